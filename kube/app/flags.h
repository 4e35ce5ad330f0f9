// The flags every binary shares, in one convention (gflags; dashes or underscores both work):
//
//   --kubeconfig                        path; else $KUBECONFIG, in-cluster, ~/.kube/config
//   --v                                 glog verbosity
//   --metrics-addr                      /metrics listen address (":8080"; "0" disables)
//   --health-addr                       /healthz and /readyz listen address (":8081"; "0" off)
//   --leader-elect                      campaign for a Lease before doing leader work
//   --leader-elect-lease-duration       "15s"
//   --leader-elect-renew-deadline       "10s"
//   --leader-elect-retry-period         "2s"
//   --leader-elect-resource-name        Lease name (each binary sets its default)
//   --leader-elect-resource-namespace   Lease namespace (default: the client's namespace)
//   --leader-elect-release-on-cancel    release the Lease on shutdown (true)
//   --graceful-shutdown-timeout         how long reconciles in flight may finish ("30s")
//   --qps, --burst                      client-side API rate limit (50 / 300, as KAI)
//
// A binary sets its own defaults (SetProcessDefaults) before InitProcess parses the command
// line, then builds its client and Manager from ReadProcessFlags().
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "kube/app/manager.h"
#include "kube/base/statusor.h"

namespace kai::kube {
class RestClient;
}

namespace kai::app {

struct ProcessFlags {
  std::string kubeconfig;
  std::string metrics_addr = ":8080";
  std::string health_addr = ":8081";
  bool leader_elect = false;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  std::string leader_elect_resource_name;
  std::string leader_elect_resource_namespace;
  bool leader_elect_release_on_cancel = true;
  Duration graceful_shutdown_timeout = std::chrono::seconds(30);
  double qps = 50;
  int burst = 300;
};

// Changes flag defaults (what --help shows too). Call before InitProcess.
void SetProcessDefaults(const ProcessFlags& defaults);

// Parses the command line (removing the flags it knows), initialises glog (to stderr unless
// --log_dir/--logtostderr say otherwise) and names the program in logs.
void InitProcess(int* argc, char*** argv, std::string_view usage);

// The flags' values; errors name the flag ("--leader-elect-lease-duration: ...").
StatusOr<ProcessFlags> ReadProcessFlags();

// The API client: kubeconfig per the flags (or in-cluster), QPS/burst from the flags.
StatusOr<std::unique_ptr<kube::RestClient>> NewClient(const ProcessFlags& flags,
                                                      std::string_view user_agent_suffix = {});

// Manager options from the flags (name, addresses, leader election, timeouts) using `client`
// (which also supplies the default Lease namespace: its configuration's namespace).
ManagerOptions ManagerOptionsFromFlags(const ProcessFlags& flags, std::string name,
                                       kube::RestClient* client);

}  // namespace kai::app
