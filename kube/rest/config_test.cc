#include "kube/rest/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

#include "kube/base/base64.h"
#include "kube/base/file.h"
#include "kube/testing/temp_dir.h"

namespace kai::kube {
namespace {

constexpr char kCaPem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
constexpr char kKeyPem[] = "-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n";

using kai::testing::TempDir;

std::string Kubeconfig(std::string_view clusters, std::string_view users, std::string_view contexts,
                       std::string_view current = "ctx") {
  std::string s = "apiVersion: v1\nkind: Config\n";
  if (!current.empty()) s += "current-context: " + std::string(current) + "\n";
  s += "clusters:\n" + std::string(clusters) + "users:\n" + std::string(users) + "contexts:\n" +
       std::string(contexts);
  return s;
}

const std::string kCluster = "- name: c1\n  cluster:\n    server: https://10.0.0.1:6443/\n";
const std::string kUser = "- name: u1\n  user:\n    token: secret\n";
const std::string kContext = "- name: ctx\n  context:\n    cluster: c1\n    user: u1\n";

TEST(KubeconfigTest, TokenClusterContextAndDefaultNamespace) {
  TempDir dir;
  const std::string path = dir.Write("config", Kubeconfig(kCluster, kUser, kContext));
  auto cfg = LoadKubeconfig({.path = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->host, "https://10.0.0.1:6443");
  EXPECT_EQ(cfg->bearer_token, "secret");
  EXPECT_EQ(cfg->namespace_, "default");
  EXPECT_FALSE(cfg->tls.insecure);
  EXPECT_NE(cfg->source.find(path), std::string::npos);
}

TEST(KubeconfigTest, DataFieldsFilesAndNamedContext) {
  TempDir dir;
  dir.Write("pki/ca.crt", kCaPem);
  dir.Write("pki/client.crt", kCaPem);
  dir.Write("pki/client.key", kKeyPem);
  dir.Write("token", "file-token\n");
  const std::string clusters =
      "- name: data\n  cluster:\n    server: https://a:1\n    certificate-authority-data: " +
      Base64Encode(kCaPem) + "\n    tls-server-name: api.internal\n" +
      "- name: files\n  cluster:\n    server: https://b:2\n    certificate-authority: "
      "pki/ca.crt\n" +
      "- name: insecure\n  cluster:\n    server: https://c:3\n    insecure-skip-tls-verify: true\n";
  const std::string users =
      "- name: certs\n  user:\n    client-certificate: pki/client.crt\n    client-key: "
      "pki/client.key\n"
      "- name: certdata\n  user:\n    client-certificate-data: " +
      Base64Encode(kCaPem) + "\n    client-key-data: " + Base64Encode(kKeyPem) +
      "\n"
      "- name: tokenfile\n  user:\n    tokenFile: token\n";
  const std::string contexts =
      "- name: ctx\n  context:\n    cluster: data\n    user: certdata\n    namespace: team-a\n"
      "- name: files\n  context:\n    cluster: files\n    user: certs\n"
      "- name: insecure\n  context:\n    cluster: insecure\n    user: tokenfile\n";
  const std::string path = dir.Write("config", Kubeconfig(clusters, users, contexts));

  auto cfg = LoadKubeconfig({.path = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->host, "https://a:1");
  EXPECT_EQ(cfg->tls.ca_pem, kCaPem);
  EXPECT_EQ(cfg->tls.server_name, "api.internal");
  EXPECT_EQ(cfg->tls.cert_pem, kCaPem);
  EXPECT_EQ(cfg->tls.key_pem, kKeyPem);
  EXPECT_EQ(cfg->namespace_, "team-a");

  auto files = LoadKubeconfig({.path = path, .context = "files", .namespace_ = "override"});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->host, "https://b:2");
  EXPECT_EQ(files->tls.ca_pem, kCaPem);  // relative to the kubeconfig's directory
  EXPECT_EQ(files->tls.key_pem, kKeyPem);
  EXPECT_EQ(files->namespace_, "override");

  auto insecure = LoadKubeconfig({.path = path, .context = "insecure"});
  ASSERT_TRUE(insecure.ok()) << insecure.status();
  EXPECT_TRUE(insecure->tls.insecure);
  EXPECT_EQ(insecure->bearer_token_file, dir.path() + "/token");
}

TEST(KubeconfigTest, ExecPlugin) {
  TempDir dir;
  const std::string users =
      "- name: u1\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
      "      command: /bin/get-token\n      args: [\"--cluster\", \"prod\"]\n"
      "      env:\n      - name: FOO\n        value: bar\n      interactiveMode: Never\n"
      "      provideClusterInfo: true\n";
  const std::string path = dir.Write("config", Kubeconfig(kCluster, users, kContext));
  auto cfg = LoadKubeconfig({.path = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  ASSERT_TRUE(cfg->exec.has_value());
  EXPECT_EQ(cfg->exec->command, "/bin/get-token");
  EXPECT_EQ(cfg->exec->args, (std::vector<std::string>{"--cluster", "prod"}));
  ASSERT_EQ(cfg->exec->env.size(), 1u);
  EXPECT_EQ(cfg->exec->env[0].first, "FOO");
  EXPECT_EQ(cfg->exec->env[0].second, "bar");
  EXPECT_EQ(cfg->exec->interactive_mode, "Never");
  EXPECT_TRUE(cfg->exec->provide_cluster_info);
}

TEST(KubeconfigTest, KubeconfigEnvMergesFirstFileWins) {
  TempDir dir;
  // First file: current-context and a cluster c1; second: the same cluster name with another
  // server (ignored), the user and the context; third does not exist (skipped).
  const std::string a = dir.Write(
      "a", "current-context: ctx\nclusters:\n- name: c1\n  cluster:\n    server: https://first\n");
  const std::string b =
      dir.Write("b",
                "current-context: other\nclusters:\n- name: c1\n  cluster:\n    server: "
                "https://second\n" +
                    std::string("users:\n") + kUser + "contexts:\n" + kContext);
  auto cfg = LoadKubeconfig({.kubeconfig_env = a + ":" + b + ":" + dir.path() + "/missing"});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->host, "https://first");
  EXPECT_EQ(cfg->bearer_token, "secret");
  // An explicit path wins over KUBECONFIG.
  auto explicit_path = LoadKubeconfig({.path = b, .kubeconfig_env = a});
  ASSERT_FALSE(explicit_path.ok());  // b's current-context "other" does not exist
  EXPECT_NE(explicit_path.status().message().find("context \"other\" not found"), std::string::npos)
      << explicit_path.status();
}

TEST(KubeconfigTest, HomeKubeconfig) {
  TempDir dir;
  dir.Write(".kube/config", Kubeconfig(kCluster, kUser, kContext));
  auto cfg = LoadKubeconfig({.kubeconfig_env = "", .home = dir.path()});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->bearer_token, "secret");
  TempDir empty;
  auto none = LoadKubeconfig({.kubeconfig_env = "", .home = empty.path()});
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

TEST(KubeconfigTest, BadFilesNameFileAndKey) {
  struct Case {
    const char* name;
    std::string yaml;
    std::vector<std::string> want;  // substrings of the error
  };
  const std::string bad_b64 =
      "- name: c1\n  cluster:\n    server: https://x\n    certificate-authority-data: '%%%'\n";
  const std::vector<Case> cases = {
      {"no current context",
       Kubeconfig(kCluster, kUser, kContext, ""),
       {"current-context is not set"}},
      {"context missing",
       Kubeconfig(kCluster, kUser, kContext, "nope"),
       {"context \"nope\" not found"}},
      {"cluster missing",
       Kubeconfig("- name: other\n  cluster:\n    server: https://x\n", kUser, kContext),
       {"contexts[\"ctx\"].context.cluster", "cluster \"c1\" not found"}},
      {"user missing",
       Kubeconfig(kCluster, "- name: other\n  user: {}\n", kContext),
       {"contexts[\"ctx\"].context.user", "user \"u1\" not found"}},
      {"no server",
       Kubeconfig("- name: c1\n  cluster: {}\n", kUser, kContext),
       {"clusters[\"c1\"].cluster.server", "required"}},
      {"server scheme",
       Kubeconfig("- name: c1\n  cluster:\n    server: 10.0.0.1:6443\n", kUser, kContext),
       {"clusters[\"c1\"].cluster.server", "http:// or https://"}},
      {"bad base64",
       Kubeconfig(bad_b64, kUser, kContext),
       {"clusters[\"c1\"].cluster.certificate-authority-data", "base64"}},
      {"not pem",
       Kubeconfig("- name: c1\n  cluster:\n    server: https://x\n    "
                  "certificate-authority-data: aGVsbG8=\n",
                  kUser, kContext),
       {"certificate-authority-data", "PEM"}},
      {"ca file missing",
       Kubeconfig("- name: c1\n  cluster:\n    server: https://x\n    certificate-authority: "
                  "/nonexistent/ca.crt\n",
                  kUser, kContext),
       {"clusters[\"c1\"].cluster.certificate-authority", "/nonexistent/ca.crt"}},
      {"insecure with ca",
       Kubeconfig("- name: c1\n  cluster:\n    server: https://x\n    insecure-skip-tls-verify: "
                  "true\n    certificate-authority-data: " +
                      Base64Encode(kCaPem) + "\n",
                  kUser, kContext),
       {"insecure-skip-tls-verify"}},
      {"insecure not bool",
       Kubeconfig("- name: c1\n  cluster:\n    server: https://x\n    insecure-skip-tls-verify: "
                  "maybe\n",
                  kUser, kContext),
       {"clusters[\"c1\"].cluster.insecure-skip-tls-verify", "true or false"}},
      {"cert without key",
       Kubeconfig(
           kCluster,
           "- name: u1\n  user:\n    client-certificate-data: " + Base64Encode(kCaPem) + "\n",
           kContext),
       {"users[\"u1\"].user.client-key", "together"}},
      {"token file missing",
       Kubeconfig(kCluster, "- name: u1\n  user:\n    tokenFile: /nonexistent/token\n", kContext),
       {"users[\"u1\"].user.tokenFile", "/nonexistent/token"}},
      {"exec without command",
       Kubeconfig(kCluster,
                  "- name: u1\n  user:\n    exec:\n      apiVersion: "
                  "client.authentication.k8s.io/v1\n",
                  kContext),
       {"users[\"u1\"].user.exec.command", "required"}},
      {"exec api version",
       Kubeconfig(kCluster,
                  "- name: u1\n  user:\n    exec:\n      command: x\n      apiVersion: "
                  "client.authentication.k8s.io/v1alpha1\n",
                  kContext),
       {"users[\"u1\"].user.exec.apiVersion", "v1alpha1"}},
      {"exec interactive mode",
       Kubeconfig(kCluster,
                  "- name: u1\n  user:\n    exec:\n      command: x\n      apiVersion: "
                  "client.authentication.k8s.io/v1\n      interactiveMode: Sometimes\n",
                  kContext),
       {"exec.interactiveMode", "Sometimes"}},
      {"auth provider",
       Kubeconfig(kCluster, "- name: u1\n  user:\n    auth-provider:\n      name: gcp\n", kContext),
       {"users[\"u1\"].user.auth-provider", "not supported"}},
      {"clusters not a list", "current-context: ctx\nclusters: {a: 1}\n", {"clusters", "a list"}},
      {"entry without name",
       "clusters:\n- cluster:\n    server: https://x\n",
       {"clusters[0].name", "required"}},
      {"yaml syntax", "clusters: [\n", {"kubeconfig"}},
      {"token and basic",
       Kubeconfig(kCluster, "- name: u1\n  user:\n    token: t\n    username: admin\n", kContext),
       {"users[\"u1\"].user.username", "basic auth"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string path = dir.Write("config", c.yaml);
    auto cfg = LoadKubeconfig({.path = path});
    ASSERT_FALSE(cfg.ok());
    const std::string msg(cfg.status().message());
    EXPECT_NE(msg.find(path), std::string::npos) << msg;  // names the file
    for (const std::string& w : c.want) EXPECT_NE(msg.find(w), std::string::npos) << msg;
  }
  auto missing = LoadKubeconfig({.path = "/nonexistent/kubeconfig"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/kubeconfig"), std::string::npos);
}

TEST(InClusterConfigTest, ReadsEnvironmentAndServiceAccountFiles) {
  TempDir dir;
  dir.Write("token", "sa-token\n");
  dir.Write("ca.crt", kCaPem);
  dir.Write("namespace", "kai-scheduler\n");
  auto cfg =
      InClusterConfig({.service_account_dir = dir.path(), .host = "10.96.0.1", .port = "443"});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->host, "https://10.96.0.1:443");
  EXPECT_EQ(cfg->bearer_token, "sa-token");
  EXPECT_EQ(cfg->bearer_token_file, dir.path() + "/token");
  EXPECT_EQ(cfg->tls.ca_pem, kCaPem);
  EXPECT_EQ(cfg->namespace_, "kai-scheduler");

  auto v6 = InClusterConfig({.service_account_dir = dir.path(), .host = "fd00::1", .port = "6443"});
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->host, "https://[fd00::1]:6443");
}

TEST(InClusterConfigTest, Errors) {
  TempDir dir;
  auto outside = InClusterConfig({.service_account_dir = dir.path(), .host = "", .port = ""});
  EXPECT_EQ(outside.status().code(), StatusCode::kFailedPrecondition);
  auto no_token = InClusterConfig({.service_account_dir = dir.path(), .host = "h", .port = "1"});
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(no_token.status().message().find(dir.path() + "/token"), std::string::npos);
}

TEST(LoadConfigTest, Precedence) {
  TempDir sa;
  sa.Write("token", "sa-token");
  TempDir home;
  home.Write(".kube/config", Kubeconfig(kCluster, kUser, kContext));
  TempDir env;
  const std::string env_path = env.Write(
      "config",
      Kubeconfig("- name: c1\n  cluster:\n    server: https://from-env\n", kUser, kContext));
  const InClusterOptions in_cluster{
      .service_account_dir = sa.path(), .host = "10.0.0.9", .port = "443"};
  // KUBECONFIG beats in-cluster.
  auto a = LoadConfig({.kubeconfig_env = env_path, .home = home.path()}, in_cluster);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "https://from-env");
  // In-cluster beats ~/.kube/config.
  auto b = LoadConfig({.kubeconfig_env = "", .home = home.path()}, in_cluster);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->host, "https://10.0.0.9:443");
  // Outside a cluster: ~/.kube/config.
  auto c = LoadConfig({.kubeconfig_env = "", .home = home.path()},
                      {.service_account_dir = sa.path(), .host = "", .port = ""});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->host, "https://10.0.0.1:6443");
  // Nothing at all.
  TempDir empty;
  auto d = LoadConfig({.kubeconfig_env = "", .home = empty.path()},
                      {.service_account_dir = sa.path(), .host = "", .port = ""});
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace kai::kube
