#include "kube/server/http_server.h"

#include <curl/curl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "kube/base/file.h"
#include "kube/metrics/registry.h"
#include "kube/server/healthz.h"
#include "kube/server/metrics_handler.h"
#include "test/localkube/tls.h"

namespace kai::server {
namespace {

using ::testing::HasSubstr;

struct Reply {
  CURLcode err = CURLE_OK;
  long code = 0;
  std::string body;
  std::string content_type;
};

size_t Append(char* p, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(p, size * n);
  return size * n;
}

// One request with libcurl; `curl` may be reused to test keep-alive.
Reply Fetch(const std::string& url, const std::string& method = "GET", const std::string& body = "",
            const std::string& ca_pem = "", CURL* reuse = nullptr) {
  CURL* curl = reuse != nullptr ? reuse : curl_easy_init();
  Reply r;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 20L);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (!body.empty() || method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_blob blob{};
  if (!ca_pem.empty()) {
    blob.data = const_cast<char*>(ca_pem.data());
    blob.len = ca_pem.size();
    blob.flags = CURL_BLOB_COPY;
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
  }
  r.err = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.code);
  char* ct = nullptr;
  curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &ct);
  if (ct != nullptr) r.content_type = ct;
  curl_slist_free_all(headers);
  if (reuse == nullptr) curl_easy_cleanup(curl);
  return r;
}

// curl reports a wrong CA as a verification failure or (OpenSSL 3) a connect error.
bool VerificationFailed(const Reply& r) {
  return r.err == CURLE_PEER_FAILED_VERIFICATION || r.err == CURLE_SSL_CONNECT_ERROR;
}

std::string Url(const HttpServer& s, const std::string& path, bool tls = false) {
  return std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(s.port()) + path;
}

TEST(BindAddressTest, Parse) {
  auto a = ParseBindAddress(":8080");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->first, "");
  EXPECT_EQ(a->second, 8080);
  a = ParseBindAddress("127.0.0.1:0");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->first, "127.0.0.1");
  a = ParseBindAddress("[::1]:9443");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->first, "::1");
  EXPECT_EQ(a->second, 9443);
  EXPECT_THAT(ParseBindAddress("8080").status().message(), HasSubstr("want host:port"));
  EXPECT_THAT(ParseBindAddress(":99999").status().message(), HasSubstr("invalid port"));
  EXPECT_FALSE(ParseBindAddress(":http").ok());
  EXPECT_TRUE(IsDisabledAddress("0"));
  EXPECT_TRUE(IsDisabledAddress(""));
  EXPECT_FALSE(IsDisabledAddress(":8080"));
}

TEST(HttpServerTest, ServesHealthAndMetrics) {
  metrics::Registry registry;
  registry.RegisterCounter("things_total", "Things.").Get().Inc(3);
  HealthChecks health;
  health.Add("ping", Ping);
  HttpServer server({.name = "test", .bind_address = "127.0.0.1:0"});
  health.Register(server.router(), "/healthz");
  server.Handle("/metrics", MetricsHandler(&registry));
  ASSERT_TRUE(server.Start().ok());
  ASSERT_NE(server.port(), 0);
  EXPECT_TRUE(server.running());

  Reply r = Fetch(Url(server, "/healthz"));
  EXPECT_EQ(r.err, CURLE_OK);
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  r = Fetch(Url(server, "/healthz/ping"));
  EXPECT_EQ(r.body, "ok");
  r = Fetch(Url(server, "/healthz?verbose"));
  EXPECT_EQ(r.body, "[+]ping ok\nhealthz check passed\n");

  r = Fetch(Url(server, "/metrics"));
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.body, "# HELP things_total Things.\n# TYPE things_total counter\nthings_total 3\n");

  r = Fetch(Url(server, "/nothing"));
  EXPECT_EQ(r.code, 404);
  EXPECT_EQ(r.body, "404 page not found\n");
  server.Stop();
  EXPECT_FALSE(server.running());
  server.Stop();  // idempotent
  EXPECT_NE(Fetch(Url(server, "/healthz")).err, CURLE_OK);
}

TEST(HttpServerTest, PostBodiesHeadersAndKeepAlive) {
  HttpServer server({.bind_address = "127.0.0.1:0"});
  std::atomic<int> calls{0};
  server.Handle("/mutate--v1-pod", [&](const HttpRequest& r) {
    ++calls;
    return HttpResponse::Json(
        200, "{\"method\":\"" + r.method + "\",\"ct\":\"" + r.Header("content-type") +
                 "\",\"len\":" + std::to_string(r.body.size()) + ",\"timeout\":\"" +
                 (r.QueryValues("timeout").empty() ? std::string() : r.QueryValues("timeout")[0]) +
                 "\"}");
  });
  ASSERT_TRUE(server.Start().ok());
  CURL* curl = curl_easy_init();
  const std::string body(100000, 'x');
  for (int i = 0; i < 3; ++i) {
    Reply r = Fetch(Url(server, "/mutate--v1-pod?timeout=10s"), "POST", body, "", curl);
    EXPECT_EQ(r.code, 200);
    EXPECT_EQ(r.content_type, "application/json");
    EXPECT_EQ(r.body,
              "{\"method\":\"POST\",\"ct\":\"application/json\",\"len\":100000,\"timeout\":"
              "\"10s\"}");
  }
  long connects = -1;
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  EXPECT_EQ(connects, 0) << "the last request should have reused the connection";
  curl_easy_cleanup(curl);
  EXPECT_EQ(calls.load(), 3);
}

TEST(HttpServerTest, TooLargeBodyGets413) {
  HttpServer server({.bind_address = "127.0.0.1:0", .max_body_bytes = 1000});
  server.Handle("/", [](const HttpRequest&) { return HttpResponse::Text(200, "ok"); });
  ASSERT_TRUE(server.Start().ok());
  Reply r = Fetch(Url(server, "/x"), "POST", std::string(5000, 'y'));
  EXPECT_EQ(r.code, 413);
  r = Fetch(Url(server, "/x"), "POST", std::string(1000, 'y'));
  EXPECT_EQ(r.code, 200);
}

TEST(HttpServerTest, HandlerExceptionBecomes500AndServerKeepsServing) {
  HttpServer server({.bind_address = "127.0.0.1:0"});
  server.Handle("/boom",
                [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); });
  server.Handle("/ok", [](const HttpRequest&) { return HttpResponse::Text(200, "fine"); });
  ASSERT_TRUE(server.Start().ok());
  Reply r = Fetch(Url(server, "/boom"));
  EXPECT_EQ(r.code, 500);
  EXPECT_EQ(r.body, "internal server error\n");
  EXPECT_EQ(Fetch(Url(server, "/ok")).body, "fine");
}

TEST(HttpServerTest, PortInUseIsAClearError) {
  HttpServer a({.bind_address = "127.0.0.1:0"});
  ASSERT_TRUE(a.Start().ok());
  HttpServer b({.name = "metrics", .bind_address = "127.0.0.1:" + std::to_string(a.port())});
  const Status s = b.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("metrics: listen on 127.0.0.1:"));
  HttpServer c({.bind_address = "nonsense"});
  EXPECT_FALSE(c.Start().ok());
}

class TlsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto certs = localkube::GenerateCerts({"127.0.0.1", "localhost"});
    ASSERT_TRUE(certs.ok()) << certs.status();
    certs_ = *certs;
    auto other = localkube::GenerateCerts({"127.0.0.1", "localhost"});
    ASSERT_TRUE(other.ok());
    other_ = *other;
    dir_ = std::filesystem::temp_directory_path() /
           ("kai-tls-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  localkube::CertBundle certs_, other_;
  std::filesystem::path dir_;
};

TEST_F(TlsServerTest, InMemoryCertificateVerifiesWithTheRightCaOnly) {
  HttpServer server({.name = "webhook",
                     .bind_address = "127.0.0.1:0",
                     .tls = TlsOptions{.cert_pem = certs_.cert_pem, .key_pem = certs_.key_pem}});
  server.Handle("/validate", [](const HttpRequest& r) { return HttpResponse::Json(200, r.body); });
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.certificate_loads(), 1);
  Reply r = Fetch(Url(server, "/validate", true), "POST", "{\"a\":1}", certs_.ca_pem);
  EXPECT_EQ(r.err, CURLE_OK) << curl_easy_strerror(r.err);
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, "{\"a\":1}");
  r = Fetch(Url(server, "/validate", true), "POST", "{}", other_.ca_pem);
  EXPECT_TRUE(VerificationFailed(r)) << curl_easy_strerror(r.err);
  // Plain HTTP to the TLS port is refused.
  EXPECT_NE(Fetch(Url(server, "/validate", false)).code, 200);
}

TEST_F(TlsServerTest, BadCertificatesAreClearStartErrors) {
  HttpServer missing({.name = "webhook",
                      .bind_address = "127.0.0.1:0",
                      .tls = TlsOptions{.cert_file = (dir_ / "nope.crt").string(),
                                        .key_file = (dir_ / "nope.key").string()}});
  Status s = missing.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("nope.crt"));

  HttpServer garbage({.bind_address = "127.0.0.1:0",
                      .tls = TlsOptions{.cert_pem = "not a cert", .key_pem = certs_.key_pem}});
  s = garbage.Start();
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad certificate"));

  HttpServer mismatch({.bind_address = "127.0.0.1:0",
                       .tls = TlsOptions{.cert_pem = certs_.cert_pem, .key_pem = other_.key_pem}});
  s = mismatch.Start();
  EXPECT_THAT(std::string(s.message()), HasSubstr("key values mismatch"));
}

TEST_F(TlsServerTest, ReloadsCertificateFilesWhenTheyChange) {
  const std::string crt = (dir_ / "tls.crt").string();
  const std::string key = (dir_ / "tls.key").string();
  ASSERT_TRUE(WriteFileAtomic(crt, certs_.cert_pem).ok());
  ASSERT_TRUE(WriteFileAtomic(key, certs_.key_pem).ok());
  HttpServer server(
      {.bind_address = "127.0.0.1:0", .tls = TlsOptions{.cert_file = crt, .key_file = key}});
  server.Handle("/", [](const HttpRequest&) { return HttpResponse::Text(200, "ok"); });
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(Fetch(Url(server, "/", true), "GET", "", certs_.ca_pem).code, 200);
  EXPECT_TRUE(VerificationFailed(Fetch(Url(server, "/", true), "GET", "", other_.ca_pem)));

  // Rotate (atomic renames, as a Secret volume update does).
  ASSERT_TRUE(WriteFileAtomic(crt, other_.cert_pem).ok());
  ASSERT_TRUE(WriteFileAtomic(key, other_.key_pem).ok());
  EXPECT_EQ(Fetch(Url(server, "/", true), "GET", "", other_.ca_pem).code, 200);
  EXPECT_TRUE(VerificationFailed(Fetch(Url(server, "/", true), "GET", "", certs_.ca_pem)));
  EXPECT_EQ(server.certificate_loads(), 2);

  // A broken rotation keeps serving the last good certificate.
  ASSERT_TRUE(WriteFileAtomic(crt, "garbage").ok());
  EXPECT_EQ(Fetch(Url(server, "/", true), "GET", "", other_.ca_pem).code, 200);
  EXPECT_EQ(server.certificate_loads(), 2);
}

}  // namespace
}  // namespace kai::server
