// RestConfig: where the API server is and how to authenticate (client-go rest.Config), loaded
// from kubeconfig files or from the in-cluster service-account environment.
//
// Precedence of LoadConfig (controller-runtime's GetConfig): --kubeconfig, then $KUBECONFIG
// (several files separated by ':', merged with the first file winning per key), then in-cluster,
// then ~/.kube/config. Every error names the file and the key ("kubeconfig /x/config: context
// \"dev\": cluster \"c1\" not found").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::kube {

// users[].user.exec: an exec credential plugin (client.authentication.k8s.io/v1).
struct ExecConfig {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string api_version = "client.authentication.k8s.io/v1";
  bool provide_cluster_info = false;
  // Never | IfAvailable | Always. A daemon has no terminal: always run non-interactive.
  std::string interactive_mode = "IfAvailable";
  std::string install_hint;
};

struct TlsConfig {
  bool insecure = false;    // insecure-skip-tls-verify
  std::string server_name;  // tls-server-name (SNI and certificate name)
  std::string ca_pem;       // certificate-authority(-data), PEM; empty = system roots
  std::string cert_pem;     // client-certificate(-data)
  std::string key_pem;      // client-key(-data)
};

struct RestConfig {
  std::string host;  // "https://10.0.0.1:443" (no trailing slash)
  TlsConfig tls;
  std::string bearer_token;
  // Re-read every minute (client-go NewCachedFileTokenSource), so rotated bound service-account
  // tokens are picked up. Wins over bearer_token when both are set (as in client-go).
  std::string bearer_token_file;
  std::string username;  // basic auth
  std::string password;
  std::optional<ExecConfig> exec;
  std::string proxy_url;
  // The context's namespace, the in-cluster namespace file, or "default".
  std::string namespace_ = "default";
  // Client-side throttling (token bucket). client-go's defaults; KAI sets 50/300.
  double qps = 5;
  int burst = 10;
  // Per-request timeout for non-watch requests; 0 = none.
  Duration timeout{0};
  std::string user_agent;  // empty: "<command>/<version> (linux/amd64) kai"
  // Human description of where the config came from (for logs and errors).
  std::string source;
};

struct KubeconfigOptions {
  std::string path;        // --kubeconfig (wins over everything)
  std::string context;     // --context: instead of current-context
  std::string namespace_;  // --namespace: instead of the context's
  // $KUBECONFIG; nullopt = read the process environment.
  std::optional<std::string> kubeconfig_env;
  // Home directory for ~/.kube/config; empty = $HOME.
  std::string home;
};

// Loads one kubeconfig (from options.path, $KUBECONFIG or ~/.kube/config, in that order).
StatusOr<RestConfig> LoadKubeconfig(const KubeconfigOptions& options);

// One kubeconfig document (YAML or JSON) from memory. Relative file references resolve against
// `dir`; `origin` names the file in errors.
StatusOr<RestConfig> KubeconfigFromString(std::string_view yaml, const KubeconfigOptions& options,
                                          std::string_view origin = "kubeconfig",
                                          std::string_view dir = ".");

struct InClusterOptions {
  // Directory with token, ca.crt, namespace.
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  // $KUBERNETES_SERVICE_HOST / _PORT; nullopt = read the process environment.
  std::optional<std::string> host;
  std::optional<std::string> port;
};

// In-cluster config: https://HOST:PORT (IPv6 bracketed), the CA and namespace files, the token
// file (re-read every minute). Fails with kFailedPrecondition outside a cluster.
StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options = {});

// --kubeconfig, $KUBECONFIG, in-cluster, ~/.kube/config, in that order (controller-runtime).
StatusOr<RestConfig> LoadConfig(const KubeconfigOptions& options = {},
                                const InClusterOptions& in_cluster = {});

}  // namespace kai::kube
