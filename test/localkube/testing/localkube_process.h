// Test helper: starts build/bin/localkube on a free port, waits until it serves, and tears it
// down. For integration tests of any component that needs a Kubernetes API server.
//
//   auto kube = kai::localkube::testing::LocalKubeProcess::Start();
//   ASSERT_TRUE(kube.ok()) << kube.status();
//   auto r = (*kube)->Kubectl({"apply", "-f", "crds/"});
//   // or point a client at (*kube)->kubeconfig_path() / url() / token() / ca_pem().
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/statusor.h"

namespace kai::localkube::testing {

struct LocalKubeProcessOptions {
  // The binary; default: $LOCALKUBE_BIN, else build/bin/localkube, build-asan/bin/localkube,
  // ../build/bin/localkube (relative to the working directory, the repository root in ctest).
  std::string binary;
  // Extra flags, e.g. {"--watch-history=5", "--bookmark-interval=1s", "--tls=false"}.
  std::vector<std::string> args;
  int start_timeout_seconds = 30;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool ok() const { return exit_code == 0; }
};

struct HttpResult {
  int code = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

class LocalKubeProcess {
 public:
  static StatusOr<std::unique_ptr<LocalKubeProcess>> Start(LocalKubeProcessOptions options = {});
  ~LocalKubeProcess();  // SIGTERM, wait, remove the temporary directory

  // Stops the server with `signal` (SIGTERM: a clean shutdown, SIGKILL: a crash) and waits for
  // it to exit (SIGKILL after 10 s). The temporary directory (kubeconfig, log) stays.
  Status Stop(int signal);
  // Starts the binary again after Stop(), with the same flags, on the same address (the port of
  // url()); its log is appended to. With --data-dir the objects, certificates and token come
  // back, so kubeconfig_path() and clients configured from it keep working.
  Status Restart();

  const std::string& url() const { return url_; }
  const std::string& kubeconfig_path() const { return kubeconfig_; }
  const std::string& token() const { return token_; }
  const std::string& ca_pem() const { return ca_pem_; }
  const std::string& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

  // Runs `kubectl <args>` against this server (KUBECONFIG set), feeding `stdin_data`.
  CommandResult Kubectl(const std::vector<std::string>& args, std::string_view stdin_data = "",
                        int timeout_seconds = 60) const;
  // One HTTP request with the admin token (path like "/api/v1/pods?limit=1").
  HttpResult Request(const std::string& method, const std::string& path,
                     const std::string& body = "",
                     const std::vector<std::string>& headers = {}) const;
  // Reads a watch stream for up to `seconds` (or until the server closes it); returns the body.
  HttpResult WatchFor(const std::string& path, double seconds) const;

 private:
  LocalKubeProcess() = default;
  Status Launch(const std::string& listen, bool append_log);
  LocalKubeProcessOptions options_;
  pid_t pid_ = -1;
  std::string dir_, kubeconfig_, url_, token_, ca_pem_;
};

// Runs a command (argv[0] looked up in PATH) with extra environment entries "K=V".
CommandResult RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         std::string_view stdin_data, int timeout_seconds);

}  // namespace kai::localkube::testing
