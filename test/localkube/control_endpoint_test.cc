// The fault-injection control endpoint answers loopback clients only (no network needed: the
// handler is called directly with the transport's loopback flag).
#include <gtest/gtest.h>

#include "kube/base/fake_clock.h"
#include "test/localkube/api_handler.h"
#include "test/localkube/crd.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

TEST(ControlEndpointTest, LoopbackOnly) {
  FakeClock clock;
  SeededRandom random(3);
  ResourceRegistry registry;
  RegisterBuiltins(&registry);
  CrdController::RegisterCrdResource(&registry);
  Store store(&registry, &clock, &random);
  Faults faults;
  ApiHandler handler(&store, &faults, {});
  for (const char* path : {"/localkube/watches/drop", "/localkube/history/compact",
                           "/localkube/faults", "/localkube/faults/clear", "/localkube/latency"}) {
    HttpRequest req;
    req.method = "POST";
    req.path = path;
    req.body = "verb=get,code=500";
    req.remote_address = "10.1.2.3:5555";
    req.loopback = false;
    HttpResponse r = handler.Handle(req);
    EXPECT_EQ(r.status, 403) << path;
    EXPECT_NE(r.body.find("loopback-only"), std::string::npos) << r.body;
  }
  EXPECT_TRUE(faults.Rules().empty());
  HttpRequest ok;
  ok.method = "POST";
  ok.path = "/localkube/faults";
  ok.body = "verb=get,code=500";
  ok.loopback = true;
  EXPECT_EQ(handler.Handle(ok).status, 200);
  ASSERT_EQ(faults.Rules().size(), 1u);
  // A bad rule is a 400 naming the problem.
  ok.body = "verb=get,code=lots";
  HttpResponse bad = handler.Handle(ok);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("code must be an integer"), std::string::npos) << bad.body;
}

}  // namespace
}  // namespace kai::localkube
