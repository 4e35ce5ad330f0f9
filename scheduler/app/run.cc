#include "scheduler/app/run.h"

#include <glog/logging.h>

#include <iostream>
#include <set>

#include "api/scheduling_shard.h"
#include "kube/app/manager.h"
#include "kube/app/shutdown_signal.h"
#include "kube/base/clock.h"
#include "kube/base/command_line.h"
#include "kube/base/file.h"
#include "kube/metrics/registry.h"
#include "kube/rest/config.h"
#include "kube/rest/rest_client.h"
#include "kube/server/http_server.h"
#include "scheduler/app/live_scheduler.h"
#include "scheduler/app/scheduler_runnables.h"

namespace kai::scheduler {

namespace {

const std::set<std::string>& BoolFlags() {
  static const auto* s = new std::set<std::string>{"leader-elect",
                                                   "restrict-node-scheduling",
                                                   "detailed-fit-errors",
                                                   "update-pod-eviction-condition",
                                                   "use-scheduling-signatures",
                                                   "full-hierarchy-fairness",
                                                   "allow-consolidating-reclaim",
                                                   "enable-profiler",
                                                   "schedule-csi-storage"};
  return *s;
}

// KAI flags that configure things this port does not have (profiling, feature gates of
// unimplemented features).
const std::set<std::string>& IgnoredFlags() {
  static const auto* s = new std::set<std::string>{"enable-profiler",
                                                   "profiler-port",
                                                   "pyroscope-address",
                                                   "pyroscope-mutex-profiler-rate",
                                                   "pyroscope-block-profiler-rate",
                                                   "feature-gates",
                                                   "schedule-csi-storage"};
  return *s;
}

}  // namespace

const std::vector<FlagHelp>& RunFlags() {
  static const auto* flags = new std::vector<FlagHelp>{
      {"kubeconfig", "/tmp/kubeconfig", "$KUBECONFIG, then in-cluster, then ~/.kube/config",
       "API server and credentials"},
      {"scheduler-conf", "/etc/kai/config.yaml", "built-in",
       "configuration file (actions, plugins and their arguments)"},
      {"scheduling-shard", "default", "-",
       "read the configuration from this SchedulingShard (exclusive with --scheduler-conf)"},
      {"scheduler-name", "kai-scheduler", "kai-scheduler", "schedule pods with this schedulerName"},
      {"schedule-period", "1s", "1s", "time between cycles"},
      {"nodepool-label-key", "kai.scheduler/node-pool", "kai.scheduler/node-pool",
       "node label that splits the cluster into shards"},
      {"partition-label-value", "pool-a", "\"\"",
       "this shard's node-pool label value (\"\": nodes without the label)"},
      {"queue-label-key", "kai.scheduler/queue", "kai.scheduler/queue",
       "pod label naming its queue"},
      {"resource-reservation-app-label", "kai-resource-reservation", "kai-resource-reservation",
       "app label of GPU-sharing reservation pods"},
      {"restrict-node-scheduling", "true", "false",
       "place GPU pods only on GPU worker nodes and CPU pods only on CPU worker nodes"},
      {"cpu-worker-node-label-key", "node-role.kubernetes.io/cpu-worker",
       "node-role.kubernetes.io/cpu-worker", "label of CPU worker nodes"},
      {"gpu-worker-node-label-key", "node-role.kubernetes.io/gpu-worker",
       "node-role.kubernetes.io/gpu-worker", "label of GPU worker nodes"},
      {"mig-worker-node-label-key", "node-role.kubernetes.io/mig-enabled",
       "node-role.kubernetes.io/mig-enabled", "label of MIG nodes"},
      {"max-consolidation-preemptees", "16", "16",
       "most victim jobs one consolidation considers (0: no consolidation, -1: no limit)"},
      {"default-staleness-grace-period", "60s", "60s",
       "how long a gang may run below its minimum before stalegangeviction evicts it"},
      {"use-scheduling-signatures", "true", "true",
       "skip jobs equivalent to one that already failed in the cycle"},
      {"full-hierarchy-fairness", "true", "true",
       "false: only leaf queues, under one synthetic parent"},
      {"allow-consolidating-reclaim", "true", "true",
       "victims that are only moved elsewhere do not count as reclaimed"},
      {"update-pod-eviction-condition", "true", "false",
       "set DisruptionTarget=True on a victim before deleting it"},
      {"detailed-fit-errors", "false", "false", "accepted; per-node fit details are not modelled"},
      {"qps", "50", "50", "API client requests per second"},
      {"burst", "300", "300", "API client burst"},
      {"bind-request-workers", "8", "8",
       "concurrent BindRequest creations per cycle (1 = KAI's one at a time)"},
      {"num-of-status-recording-workers", "5", "5", "workers writing PodGroup and pod statuses"},
      {"leader-elect", "true", "false", "run several replicas, one acting (Lease)"},
      {"namespace", "kai-scheduler", "kai-scheduler", "namespace of the leader-election Lease"},
      {"listen-address", ":8080", ":8080", "address of /metrics, /healthz and /readyz"},
      {"metrics-namespace", "kai", "kai", "prefix of the metrics' names"},
      {"plugin-server-port", "8081", "8081",
       "port of /get-snapshot on 127.0.0.1 (0: any free port)"},
      {"v", "3", "3", "log verbosity (4: one line per cycle)"},
  };
  return *flags;
}

std::string SchedulerUsage() {
  return FormatUsage(
      "usage: kai-scheduler [run] [flags]            schedule the pods of an API server\n"
      "       kai-scheduler simulate --snapshot FILE [--actions LIST] [--cycles N]\n"
      "                              [-o json|yaml|table] [--strict] [--seed S]\n"
      "                                                decisions on a snapshot file "
      "(kubectl get -o yaml, or /get-snapshot);\n"
      "                                                kai-scheduler simulate --help for more\n"
      "\nrun flags (--name=value or --name value; booleans also bare):\n",
      RunFlags(),
      "\nKAI's profiling flags (--enable-profiler, --pyroscope-*, --feature-gates, ...) are "
      "accepted and ignored.\n");
}

StatusOr<RunOptions> ParseRunArgs(const std::vector<std::string>& args) {
  RunOptions o;
  // "kai-scheduler run --flags" and "kai-scheduler --flags" are the same.
  const bool run = !args.empty() && args[0] == "run";
  const std::vector<std::string> flags(args.begin() + (run ? 1 : 0), args.end());
  Status st =
      ForEachFlag(flags, BoolFlags(), [&](const std::string& name, const std::string& value) {
        if (name == "kubeconfig") {
          o.kubeconfig = value;
        } else if (name == "scheduler-conf") {
          o.scheduler_conf = value;
        } else if (name == "scheduling-shard") {
          o.scheduling_shard = value;
        } else if (name == "namespace") {
          o.namespace_ = value;
        } else if (name == "listen-address") {
          KAI_RETURN_IF_ERROR(server::ValidateBindAddressFlag(name, value));
          o.listen_address = value;
        } else if (name == "plugin-server-port") {
          KAI_ASSIGN_OR_RETURN(int64_t p, FlagInt(name, value, 0, 65535));
          o.plugin_server_port = static_cast<int>(p);
        } else if (name == "metrics-namespace") {
          o.metrics_namespace = value;
        } else if (name == "qps") {
          KAI_ASSIGN_OR_RETURN(o.qps, FlagNumber(name, value));
        } else if (name == "burst") {
          KAI_ASSIGN_OR_RETURN(int64_t b, FlagInt(name, value, 0, kMaxClientBurst));
          o.burst = static_cast<int>(b);
        } else if (name == "leader-elect") {
          KAI_ASSIGN_OR_RETURN(o.leader_elect, FlagBool(name, value));
        } else if (name == "num-of-status-recording-workers") {
          KAI_ASSIGN_OR_RETURN(int64_t n, FlagInt(name, value, 1, kMaxWorkerThreads));
          o.status_workers = static_cast<int>(n);
        } else if (name == "bind-request-workers") {
          KAI_ASSIGN_OR_RETURN(int64_t n, FlagInt(name, value, 1, kMaxWorkerThreads));
          o.bind_request_workers = static_cast<int>(n);
        } else if (name == "v") {
          KAI_ASSIGN_OR_RETURN(int64_t v, FlagInt(name, value, INT32_MIN, INT32_MAX));
          o.verbosity = static_cast<int>(v);
        } else if (IgnoredFlags().count(name) > 0) {
          LOG(INFO) << "--" << name << " is accepted but has no effect";
        } else {
          bool known = false;
          KAI_RETURN_IF_ERROR(o.params.SetFlag(name, value, &known));
          if (!known) return InvalidArgumentError("unknown flag --" + name);
        }
        return Status::OK();
      });
  if (!st.ok()) return st;
  if (!o.scheduler_conf.empty() && !o.scheduling_shard.empty()) {
    return InvalidArgumentError("--scheduler-conf and --scheduling-shard are exclusive");
  }
  return o;
}

std::string LeaseName(const RunOptions& o) {
  return o.params.partition_label_value.empty()
             ? o.params.scheduler_name
             : o.params.scheduler_name + "-" + o.params.partition_label_value;
}

int RunMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::cout << SchedulerUsage();
    return 0;
  }
  auto opts = ParseRunArgs(args);
  if (!opts.ok()) {
    std::cerr << "kai-scheduler: " << opts.status().message() << "\n";
    return 2;
  }
  FLAGS_v = opts->verbosity - 3;  // KAI's default --v=3 is our VLOG(0)
  kube::KubeconfigOptions ko;
  ko.path = opts->kubeconfig;
  auto config = kube::LoadConfig(ko);
  if (!config.ok()) {
    std::cerr << "kai-scheduler: " << config.status().message() << "\n";
    return 1;
  }
  config->qps = opts->qps;
  config->burst = opts->burst;
  auto client = kube::RestClient::New(*config);
  if (!client.ok()) {
    std::cerr << "kai-scheduler: " << client.status().message() << "\n";
    return 1;
  }

  LiveSchedulerOptions lo;
  lo.params = opts->params;
  lo.status_workers = opts->status_workers;
  lo.bind_request_workers = opts->bind_request_workers;
  lo.metrics_namespace = opts->metrics_namespace;
  lo.registry = metrics::Registry::Default();
  if (!opts->scheduler_conf.empty()) {
    auto text = ReadFile(opts->scheduler_conf);
    if (!text.ok()) {
      std::cerr << "kai-scheduler: --scheduler-conf: " << text.status().message() << "\n";
      return 1;
    }
    auto conf = ParseSchedulerConfiguration(*text);
    if (!conf.ok()) {
      std::cerr << "kai-scheduler: --scheduler-conf " << opts->scheduler_conf << ": "
                << conf.status().message() << "\n";
      return 1;
    }
    lo.conf = *conf;
  } else if (!opts->scheduling_shard.empty()) {
    auto json = (*client)->Get(kube::GvrOf<api::SchedulingShard>(), "", opts->scheduling_shard);
    if (!json.ok()) {
      std::cerr << "kai-scheduler: --scheduling-shard " << opts->scheduling_shard << ": "
                << json.status().message() << "\n";
      return 1;
    }
    auto shard = api::Decode<api::SchedulingShard>(*json);
    Status s =
        shard.ok() ? ConfigFromSchedulingShard(*shard, &lo.conf, &lo.params) : shard.status();
    if (!s.ok()) {
      std::cerr << "kai-scheduler: SchedulingShard " << opts->scheduling_shard << ": "
                << s.message() << "\n";
      return 1;
    }
  }

  app::ShutdownSignal* shutdown = app::ShutdownSignal::InstallProcessSignals();
  LiveScheduler scheduler(client->get(), lo);
  SchedulerInformers informers(&scheduler);
  SchedulingLoop loop(&scheduler);
  app::Manager manager({.name = "kai-scheduler",
                        .metrics_addr = opts->listen_address,
                        .probes_on_metrics_server = true,
                        .leader_elect = opts->leader_elect,
                        .leader_election_id = LeaseName(*opts),
                        .leader_election_namespace = opts->namespace_,
                        .retry_period = std::chrono::seconds(5),  // KAI's: 15 s / 10 s / 5 s
                        .client = client->get(),
                        .registry = lo.registry});
  manager.Add(&informers);
  manager.Add(&loop);
  manager.AddReadyzCheck("informers-synced", [&scheduler]() -> Status {
    return scheduler.HasSynced() ? Status::OK() : UnavailableError("caches not synced");
  });
  // KAI's plugin server: debug endpoints on loopback only (the snapshot holds every pod spec).
  server::HttpServer plugin_server(
      {.name = "plugin-server",
       .bind_address = "127.0.0.1:" + std::to_string(opts->plugin_server_port)});
  plugin_server.Handle("/get-snapshot", [&scheduler](const server::HttpRequest& req) {
    if (req.method != "GET") {
      server::HttpResponse r = server::HttpResponse::Error(405, "method not allowed");
      r.headers.emplace_back("Allow", "GET");
      return r;
    }
    auto zip = scheduler.DebugSnapshotZip();
    if (!zip.ok()) return server::HttpResponse::Error(500, zip.status().message());
    server::HttpResponse r;
    r.content_type = "application/zip";
    r.body = std::move(*zip);
    r.headers.emplace_back("Content-Disposition", "attachment; filename=\"snapshot.zip\"");
    return r;
  });
  if (Status s = plugin_server.Start(); !s.ok()) {
    std::cerr << "kai-scheduler: --plugin-server-port=" << opts->plugin_server_port << ": "
              << s.message() << "\n";
    return 1;
  }
  LOG(INFO) << "plugin server: /get-snapshot on 127.0.0.1:" << plugin_server.port();
  LOG(INFO) << "kai-scheduler " << LeaseName(*opts) << " running against " << config->host;
  const int code = manager.Run(shutdown);
  plugin_server.Stop();
  return code;
}

}  // namespace kai::scheduler
