#include "kube/app/flags.h"

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "kube/base/time.h"
#include "kube/rest/config.h"
#include "kube/rest/rest_client.h"

DEFINE_string(kubeconfig, "",
              "Path to a kubeconfig. Only required if out-of-cluster; else $KUBECONFIG, the "
              "in-cluster config, then ~/.kube/config.");
DEFINE_string(metrics_addr, ":8080",
              "The address the metrics endpoint binds to (\"0\" disables it).");
DEFINE_string(health_addr, ":8081",
              "The address the /healthz and /readyz endpoints bind to (\"0\" disables them).");
DEFINE_bool(leader_elect, false,
            "Campaign for a coordination.k8s.io/v1 Lease and only do leader work while holding "
            "it; enables running several replicas.");
DEFINE_string(leader_elect_lease_duration, "15s",
              "How long non-leaders wait after observing a leader renewal before trying to take "
              "the lease.");
DEFINE_string(leader_elect_renew_deadline, "10s",
              "How long the leader keeps retrying to renew before it stops leading.");
DEFINE_string(leader_elect_retry_period, "2s",
              "How often candidates try to acquire and the leader renews.");
DEFINE_string(leader_elect_resource_name, "", "Name of the Lease used for leader election.");
DEFINE_string(leader_elect_resource_namespace, "",
              "Namespace of the Lease (default: the namespace of the client configuration).");
DEFINE_bool(leader_elect_release_on_cancel, true,
            "Release the Lease on a graceful shutdown so that another replica takes over at "
            "once.");
DEFINE_string(graceful_shutdown_timeout, "30s",
              "How long reconciles in flight may run after SIGTERM before the process exits.");
DEFINE_double(qps, 50, "Client-side QPS limit towards the API server.");
DEFINE_int32(burst, 300, "Client-side burst towards the API server.");

namespace kai::app {

namespace {

void SetDefault(const char* name, const std::string& value) {
  gflags::SetCommandLineOptionWithMode(name, value.c_str(), gflags::SET_FLAGS_DEFAULT);
}

StatusOr<Duration> DurationFlag(const char* flag, const std::string& value) {
  auto d = ParseGoDuration(value);
  if (!d.ok()) {
    return InvalidArgumentError(std::string("--") + flag + ": " +
                                std::string(d.status().message()));
  }
  if (*d <= Duration::zero()) {
    return InvalidArgumentError(std::string("--") + flag + ": must be positive, got \"" + value +
                                "\"");
  }
  return *d;
}

}  // namespace

void SetProcessDefaults(const ProcessFlags& d) {
  SetDefault("kubeconfig", d.kubeconfig);
  SetDefault("metrics_addr", d.metrics_addr);
  SetDefault("health_addr", d.health_addr);
  SetDefault("leader_elect", d.leader_elect ? "true" : "false");
  SetDefault("leader_elect_lease_duration", FormatGoDuration(d.lease_duration));
  SetDefault("leader_elect_renew_deadline", FormatGoDuration(d.renew_deadline));
  SetDefault("leader_elect_retry_period", FormatGoDuration(d.retry_period));
  SetDefault("leader_elect_resource_name", d.leader_elect_resource_name);
  SetDefault("leader_elect_resource_namespace", d.leader_elect_resource_namespace);
  SetDefault("leader_elect_release_on_cancel", d.leader_elect_release_on_cancel ? "true" : "false");
  SetDefault("graceful_shutdown_timeout", FormatGoDuration(d.graceful_shutdown_timeout));
  SetDefault("qps", std::to_string(d.qps));
  SetDefault("burst", std::to_string(d.burst));
}

void InitProcess(int* argc, char*** argv, std::string_view usage) {
  gflags::SetUsageMessage(std::string(usage));
  // Containers log to stderr unless told otherwise.
  if (gflags::GetCommandLineFlagInfoOrDie("logtostderr").is_default &&
      gflags::GetCommandLineFlagInfoOrDie("log_dir").is_default) {
    gflags::SetCommandLineOptionWithMode("logtostderr", "true", gflags::SET_FLAGS_DEFAULT);
  }
  gflags::ParseCommandLineFlags(argc, argv, true);
  google::InitGoogleLogging((*argv)[0]);
}

StatusOr<ProcessFlags> ReadProcessFlags() {
  ProcessFlags f;
  f.kubeconfig = FLAGS_kubeconfig;
  f.metrics_addr = FLAGS_metrics_addr;
  f.health_addr = FLAGS_health_addr;
  f.leader_elect = FLAGS_leader_elect;
  KAI_ASSIGN_OR_RETURN(f.lease_duration, DurationFlag("leader-elect-lease-duration",
                                                      FLAGS_leader_elect_lease_duration));
  KAI_ASSIGN_OR_RETURN(f.renew_deadline, DurationFlag("leader-elect-renew-deadline",
                                                      FLAGS_leader_elect_renew_deadline));
  KAI_ASSIGN_OR_RETURN(f.retry_period,
                       DurationFlag("leader-elect-retry-period", FLAGS_leader_elect_retry_period));
  f.leader_elect_resource_name = FLAGS_leader_elect_resource_name;
  f.leader_elect_resource_namespace = FLAGS_leader_elect_resource_namespace;
  f.leader_elect_release_on_cancel = FLAGS_leader_elect_release_on_cancel;
  KAI_ASSIGN_OR_RETURN(f.graceful_shutdown_timeout,
                       DurationFlag("graceful-shutdown-timeout", FLAGS_graceful_shutdown_timeout));
  f.qps = FLAGS_qps;
  f.burst = FLAGS_burst;
  if (f.burst < 0) return InvalidArgumentError("--burst: must not be negative");
  if (f.leader_elect && f.leader_elect_resource_name.empty()) {
    return InvalidArgumentError("--leader-elect-resource-name: required with --leader-elect");
  }
  return f;
}

StatusOr<std::unique_ptr<kube::RestClient>> NewClient(const ProcessFlags& flags,
                                                      std::string_view user_agent_suffix) {
  KAI_ASSIGN_OR_RETURN(kube::RestConfig config, kube::LoadConfig({.path = flags.kubeconfig}));
  config.qps = flags.qps;
  config.burst = flags.burst;
  kube::RestClientOptions options;
  options.user_agent_suffix = std::string(user_agent_suffix);
  return kube::RestClient::New(std::move(config), options);
}

ManagerOptions ManagerOptionsFromFlags(const ProcessFlags& flags, std::string name,
                                       kube::RestClient* client) {
  ManagerOptions o;
  o.name = std::move(name);
  o.metrics_addr = flags.metrics_addr;
  o.health_addr = flags.health_addr;
  o.leader_elect = flags.leader_elect;
  o.leader_election_id = flags.leader_elect_resource_name;
  o.leader_election_namespace = flags.leader_elect_resource_namespace;
  o.lease_duration = flags.lease_duration;
  o.renew_deadline = flags.renew_deadline;
  o.retry_period = flags.retry_period;
  o.release_on_cancel = flags.leader_elect_release_on_cancel;
  o.graceful_shutdown_timeout = flags.graceful_shutdown_timeout;
  o.client = client;
  if (o.leader_election_namespace.empty() && client != nullptr) {
    o.leader_election_namespace = client->config().namespace_;
  }
  return o;
}

}  // namespace kai::app
