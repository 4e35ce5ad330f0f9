#include "kube/rest/auth.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

#include "kube/base/fake_clock.h"
#include "kube/base/file.h"
#include "kube/base/time.h"
#include "kube/testing/temp_dir.h"

namespace kai::kube {
namespace {

using kai::testing::TempDir;

TEST(TokenFileSourceTest, RereadsAfterAMinute) {
  TempDir dir;
  const std::string path = dir.Write("token", "first\n");
  FakeClock clock;
  TokenFileSource source(path, "", &clock);
  EXPECT_EQ(source.Get()->bearer_token, "first");
  dir.Write("token", "second");
  clock.Advance(std::chrono::seconds(30));
  EXPECT_EQ(source.Get()->bearer_token, "first");  // cached
  clock.Advance(std::chrono::seconds(30));
  EXPECT_EQ(source.Get()->bearer_token, "second");  // rotated token picked up
  // A vanished file keeps the last token.
  std::filesystem::remove(path);
  clock.Advance(std::chrono::minutes(2));
  EXPECT_EQ(source.Get()->bearer_token, "second");
  TokenFileSource missing(dir.path() + "/none", "", &clock);
  EXPECT_FALSE(missing.Get().ok());
}

// A plugin script that counts its runs and prints an ExecCredential built from its environment.
std::string Plugin(TempDir& dir, std::string_view body) {
  return dir.Write("plugin.sh",
                   "#!/bin/sh\necho run >> \"" + dir.path() + "/runs\"\n" + std::string(body),
                   0755);
}

int Runs(TempDir& dir) {
  auto s = ReadFile(dir.path() + "/runs");
  if (!s.ok()) return 0;
  return static_cast<int>(std::count(s->begin(), s->end(), '\n'));
}

TEST(ExecCredentialSourceTest, TokenCachedUntilExpiryAndAfter401) {
  TempDir dir;
  FakeClock clock;
  const std::string expiry = FormatRfc3339(clock.Now() + std::chrono::minutes(10));
  ExecConfig exec;
  exec.command = Plugin(dir,
                        "cat <<EOF\n{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                        "\"ExecCredential\",\"status\":{\"token\":\"tok-$FOO\","
                        "\"expirationTimestamp\":\"" +
                            expiry + "\"}}\nEOF\n");
  exec.env = {{"FOO", "bar"}};
  RestConfig cluster;
  cluster.host = "https://example:6443";
  ExecCredentialSource source(exec, cluster, &clock);
  auto c = source.Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->bearer_token, "tok-bar");
  EXPECT_EQ(source.Get()->bearer_token, "tok-bar");
  EXPECT_EQ(Runs(dir), 1);  // cached
  clock.Advance(std::chrono::minutes(11));
  ASSERT_TRUE(source.Get().ok());
  EXPECT_EQ(Runs(dir), 2);  // expired: run again
  EXPECT_TRUE(source.Invalidate());
  ASSERT_TRUE(source.Get().ok());
  EXPECT_EQ(Runs(dir), 3);  // after a 401
  EXPECT_EQ(source.runs(), 3);
}

TEST(ExecCredentialSourceTest, ExecInfoAndClientCertificates) {
  TempDir dir;
  FakeClock clock;
  ExecConfig exec;
  // Echo KUBERNETES_EXEC_INFO back through the certificate field so the test can read it.
  exec.command =
      Plugin(dir, "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"" + dir.path() +
                      "/info\"\n"
                      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                      "\"ExecCredential\",\"status\":{\"clientCertificateData\":\"CERT\","
                      "\"clientKeyData\":\"KEY\"}}'\n");
  exec.provide_cluster_info = true;
  RestConfig cluster;
  cluster.host = "https://example:6443";
  cluster.tls.server_name = "api";
  ExecCredentialSource source(exec, cluster, &clock);
  auto c = source.Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->cert_pem, "CERT");
  EXPECT_EQ(c->key_pem, "KEY");
  EXPECT_EQ(c->bearer_token, "");
  EXPECT_EQ(
      *ReadFile(dir.path() + "/info"),
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false,"cluster":{"server":"https://example:6443","tls-server-name":"api"}}})");
}

TEST(ExecCredentialSourceTest, PluginErrors) {
  struct Case {
    const char* name;
    std::string script;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"exit status", "echo 'no credentials for you' >&2\nexit 3\n",
       "exit status 3: no credentials"},
      {"not json", "echo hello\n", "not an ExecCredential"},
      {"wrong kind", "echo '{\"kind\":\"Pod\"}'\n", "kind is \"Pod\""},
      {"wrong api version",
       "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
       "\"status\":{\"token\":\"t\"}}'\n",
       "apiVersion"},
      {"no status",
       "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\"}'\n",
       "without status"},
      {"empty status",
       "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
       "\"status\":{}}'\n",
       "neither token"},
      {"cert without key",
       "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
       "\"status\":{\"clientCertificateData\":\"C\"}}'\n",
       "together"},
      {"bad expiry",
       "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
       "\"status\":{\"token\":\"t\",\"expirationTimestamp\":\"tomorrow\"}}'\n",
       "expirationTimestamp"},
  };
  FakeClock clock;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    ExecConfig exec;
    exec.command = Plugin(dir, c.script);
    ExecCredentialSource source(exec, RestConfig(), &clock);
    auto got = source.Get();
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
    EXPECT_NE(got.status().message().find(c.want), std::string::npos) << got.status();
    EXPECT_NE(got.status().message().find(exec.command), std::string::npos) << got.status();
  }
  ExecConfig missing;
  missing.command = "/nonexistent/kai-credential-plugin";
  missing.install_hint = "install it with: apt install kai-plugin";
  auto got = ExecCredentialSource(missing, RestConfig(), &clock).Get();
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("install it with"), std::string::npos) << got.status();
}

}  // namespace
}  // namespace kai::kube
