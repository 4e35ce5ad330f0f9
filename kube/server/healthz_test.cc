#include "kube/server/healthz.h"

#include <gtest/gtest.h>

namespace kai::server {
namespace {

HttpResponse Get(const HealthChecks& checks, const std::string& target) {
  HttpRequest r;
  r.method = "GET";
  r.target = target;
  ParseTarget(target, &r.path, &r.query);
  return checks.Serve(r, "/readyz");
}

TEST(HealthzTest, NoChecksReportsPing) {
  HealthChecks checks;
  HttpResponse r = Get(checks, "/readyz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  r = Get(checks, "/readyz?verbose");
  EXPECT_EQ(r.body, "[+]ping ok\nhealthz check passed\n");
}

TEST(HealthzTest, AllPassing) {
  HealthChecks checks;
  checks.Add("ping", Ping);
  checks.Add("informers", [] { return Status::OK(); });
  EXPECT_EQ(Get(checks, "/readyz").body, "ok");
  EXPECT_EQ(Get(checks, "/readyz?verbose=1").body,
            "[+]informers ok\n[+]ping ok\nhealthz check passed\n");
}

TEST(HealthzTest, FailingCheckGives500ListingFailuresWithoutReasons) {
  HealthChecks checks;
  checks.Add("ping", Ping);
  checks.Add("leader", [] { return UnavailableError("secret detail"); });
  HttpResponse r = Get(checks, "/readyz");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[-]leader failed: reason withheld\n[+]ping ok\nhealthz check failed\n");
}

TEST(HealthzTest, ExcludeSkipsChecksAndWarnsAboutUnknownOnes) {
  HealthChecks checks;
  checks.Add("ping", Ping);
  checks.Add("leader", [] { return UnavailableError("not leading"); });
  HttpResponse r = Get(checks, "/readyz?exclude=leader");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = Get(checks, "/readyz?exclude=leader&exclude=nope&exclude=zz&verbose");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]leader excluded: ok\n[+]ping ok\n"
            "warn: some health checks cannot be excluded: no matches for \"nope\", \"zz\"\n"
            "healthz check passed\n");
}

TEST(HealthzTest, SingleCheckEndpoint) {
  HealthChecks checks;
  checks.Add("ping", Ping);
  checks.Add("leader", [] { return UnavailableError("not leading"); });
  HttpResponse r = Get(checks, "/readyz/ping");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = Get(checks, "/readyz/leader");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "internal server error: not leading\n");
  r = Get(checks, "/readyz/nope");
  EXPECT_EQ(r.status, 404);
}

TEST(HealthzTest, ChecksCanChangeAfterwards) {
  HealthChecks checks;
  bool ready = false;
  checks.Add("sync", [&] { return ready ? Status::OK() : UnavailableError("syncing"); });
  EXPECT_EQ(Get(checks, "/readyz").status, 500);
  ready = true;
  EXPECT_EQ(Get(checks, "/readyz").status, 200);
}

}  // namespace
}  // namespace kai::server
