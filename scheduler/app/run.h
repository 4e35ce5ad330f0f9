// `kai-scheduler run`: the scheduler against an API server, with KAI's flags (reference §6.1).
#pragma once

#include <string>
#include <vector>

#include "kube/base/command_line.h"
#include "kube/base/statusor.h"
#include "scheduler/conf/scheduler_conf.h"

namespace kai::scheduler {

struct RunOptions {
  std::string kubeconfig;
  std::string scheduler_conf;    // --scheduler-conf: config.yaml path
  std::string scheduling_shard;  // --scheduling-shard: read the configuration from this shard
  std::string namespace_ = "kai-scheduler";  // --namespace: leader-election lease namespace
  std::string listen_address = ":8080";      // /metrics, /healthz, /readyz
  int plugin_server_port = 8081;  // --plugin-server-port: /get-snapshot on 127.0.0.1; 0 = any
  std::string metrics_namespace = "kai";
  double qps = 50;
  int burst = 300;
  bool leader_elect = false;
  int status_workers = 5;        // --num-of-status-recording-workers
  int bind_request_workers = 8;  // --bind-request-workers (ours; 1 = KAI's synchronous creates)
  int verbosity = 3;             // --v
  SchedulerParams params;        // every scheduling flag

  bool operator==(const RunOptions&) const = default;
};

// Parses the flags ("--name=value", "--name value", bare "--bool-flag"). Unknown flags are
// errors naming the flag; flags of KAI that do not apply here (profiling) are accepted and
// ignored.
StatusOr<RunOptions> ParseRunArgs(const std::vector<std::string>& args);

// The flags of `kai-scheduler run` as --help lists them.
const std::vector<FlagHelp>& RunFlags();

// `kai-scheduler --help`: both modes and every run flag with its default.
std::string SchedulerUsage();

// The leader-election lease name: <scheduler-name>[-<partition value>].
std::string LeaseName(const RunOptions& o);

// Runs until SIGTERM/SIGINT; returns the process exit code.
int RunMain(const std::vector<std::string>& args);

}  // namespace kai::scheduler
