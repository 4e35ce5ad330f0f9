#include "controllers/binder/binder_app.h"

#include <glog/logging.h>

#include <iostream>
#include <set>

#include "kube/app/manager.h"
#include "kube/app/shutdown_signal.h"
#include "kube/base/command_line.h"
#include "kube/cache/typed.h"
#include "kube/metrics/registry.h"
#include "kube/rest/config.h"
#include "kube/rest/rest_client.h"
#include "kube/server/http_server.h"
#include "kube/workqueue/rate_limiter.h"

namespace kai::binder {

const std::vector<FlagHelp>& BinderFlags() {
  static const auto* flags = new std::vector<FlagHelp>{
      {"kubeconfig", "/tmp/kubeconfig", "$KUBECONFIG, then in-cluster, then ~/.kube/config",
       "API server and credentials"},
      {"scheduler-name", "kai-scheduler", "kai-scheduler", "bind pods with this schedulerName"},
      {"max-concurrent-reconciles", "10", "10", "BindRequests reconciled at once"},
      {"qps", "50", "50", "API client requests per second"},
      {"burst", "300", "300", "API client burst"},
      {"rate-limiter-base-delay", "1", "1", "first retry delay of a failed bind, seconds"},
      {"rate-limiter-max-delay", "60", "60", "longest retry delay, seconds"},
      {"resource-reservation-namespace", "kai-resource-reservation", "kai-resource-reservation",
       "namespace of the GPU-sharing reservation pods"},
      {"resource-reservation-service-account", "kai-resource-reservation",
       "kai-resource-reservation", "their service account"},
      {"resource-reservation-pod-image", "registry/local/kai-scheduler/resource-reservation",
       "registry/local/kai-scheduler/resource-reservation", "their image"},
      {"resource-reservation-app-label", "kai-resource-reservation", "kai-resource-reservation",
       "their app label"},
      {"resource-reservation-allocation-timeout", "40", "40",
       "seconds a new reservation pod may take to report its GPU"},
      {"resource-reservation-pod-resources", R"({"requests":{"cpu":"2m"}})", "none",
       "their container's resources, as ResourceRequirements JSON"},
      {"scale-adjust-namespace", "kai-scale-adjust", "kai-scale-adjust",
       "namespace of scaling pods (no reservation pod is made while one exists)"},
      {"fake-gpu-nodes", "true", "false",
       "reservation pods only sleep (clusters with fake GPU operators)"},
      {"cdi-enabled", "true", "false", "GPU-sharing pods name their GPUs as CDI devices"},
      {"runtime-class-name", "nvidia", "\"\"", "runtime class of the reservation pods"},
      {"leader-elect", "true", "false", "run several replicas, one acting (Lease)"},
      {"leader-election-namespace", "kai-scheduler", "kai-scheduler",
       "namespace of the leader-election Lease"},
      {"metrics-bind-address", ":8080", ":8080", "address of /metrics (0: off)"},
      {"health-probe-bind-address", ":8081", ":8081", "address of /healthz and /readyz (0: off)"},
      {"volume-binding-timeout-seconds", "120", "-", "accepted; volume binding is not implemented"},
  };
  return *flags;
}

std::string BinderUsage() {
  return FormatUsage(
      "usage: kai-binder [flags]    turn BindRequests into bindings (docs/binder.md)\n"
      "\nflags (--name=value or --name value; booleans also bare):\n",
      BinderFlags(), "");
}

StatusOr<BinderRunOptions> ParseBinderArgs(const std::vector<std::string>& args) {
  static const std::set<std::string> kBool = {"leader-elect", "fake-gpu-nodes", "cdi-enabled"};
  BinderRunOptions o;
  BinderOptions& b = o.binder;
  Status st = ForEachFlag(args, kBool, [&](const std::string& name, const std::string& v) {
    if (name == "kubeconfig") {
      o.kubeconfig = v;
    } else if (name == "scheduler-name") {
      b.scheduler_name = v;
    } else if (name == "resource-reservation-namespace") {
      b.resource_reservation_namespace = v;
    } else if (name == "resource-reservation-service-account") {
      b.resource_reservation_service_account = v;
    } else if (name == "resource-reservation-pod-image") {
      b.resource_reservation_pod_image = v;
    } else if (name == "resource-reservation-app-label") {
      b.resource_reservation_app_label = v;
    } else if (name == "resource-reservation-allocation-timeout") {
      KAI_ASSIGN_OR_RETURN(int64_t s, FlagInt(name, v, 0, kMaxFlagSeconds));
      b.resource_reservation_allocation_timeout = std::chrono::seconds(s);
    } else if (name == "resource-reservation-pod-resources") {
      if (v.empty()) return Status::OK();
      auto req =
          api::Decode<api::Pod>(R"({"spec":{"containers":[{"name":"x","resources":)" + v + "}]}}");
      if (!req.ok()) {
        return InvalidArgumentError("--" + name + ": expected ResourceRequirements JSON: " +
                                    std::string(req.status().message()));
      }
      b.resource_reservation_pod_resources = req->spec.containers[0].resources;
    } else if (name == "scale-adjust-namespace") {
      b.scale_adjust_namespace = v;
    } else if (name == "fake-gpu-nodes") {
      KAI_ASSIGN_OR_RETURN(b.fake_gpu_nodes, FlagBool(name, v));
    } else if (name == "cdi-enabled") {
      KAI_ASSIGN_OR_RETURN(b.cdi_enabled, FlagBool(name, v));
    } else if (name == "runtime-class-name") {
      b.runtime_class_name = v;
    } else if (name == "qps") {
      KAI_ASSIGN_OR_RETURN(o.qps, FlagNumber(name, v));
    } else if (name == "burst") {
      KAI_ASSIGN_OR_RETURN(int64_t n, FlagInt(name, v, 0, kMaxClientBurst));
      o.burst = static_cast<int>(n);
    } else if (name == "max-concurrent-reconciles") {
      KAI_ASSIGN_OR_RETURN(int64_t n, FlagInt(name, v, 1, kMaxWorkerThreads));
      o.max_concurrent_reconciles = static_cast<int>(n);
    } else if (name == "rate-limiter-base-delay") {
      KAI_ASSIGN_OR_RETURN(int64_t n, FlagInt(name, v, 0, kMaxFlagSeconds));
      o.rate_limiter_base_delay_seconds = static_cast<int>(n);
    } else if (name == "rate-limiter-max-delay") {
      KAI_ASSIGN_OR_RETURN(int64_t n, FlagInt(name, v, 0, kMaxFlagSeconds));
      o.rate_limiter_max_delay_seconds = static_cast<int>(n);
    } else if (name == "leader-elect") {
      KAI_ASSIGN_OR_RETURN(o.leader_elect, FlagBool(name, v));
    } else if (name == "leader-election-namespace") {
      o.leader_election_namespace = v;
    } else if (name == "metrics-bind-address") {
      KAI_RETURN_IF_ERROR(server::ValidateBindAddressFlag(name, v));
      o.metrics_bind_address = v;
    } else if (name == "health-probe-bind-address") {
      KAI_RETURN_IF_ERROR(server::ValidateBindAddressFlag(name, v));
      o.health_probe_bind_address = v;
    } else if (name == "volume-binding-timeout-seconds") {
      // Volume binding is not implemented (docs/binder.md); accepted for compatibility.
    } else {
      return InvalidArgumentError("unknown flag --" + name);
    }
    return Status::OK();
  });
  if (!st.ok()) return st;
  return o;
}

BinderApp::BinderApp(kube::Client* client, BinderRunOptions options, Clock* clock,
                     metrics::Registry* registry, kube::Client* event_client)
    : options_(std::move(options)),
      clock_(clock != nullptr ? clock : RealClock::Get()),
      event_sink_(event_client != nullptr ? event_client : client),
      // Several event writers: one POST at a time caps the Bound events below the bind rate
      // once the limits are lifted, and the full queue drops them (docs/binder.md).
      broadcaster_(&event_sink_, {.clock = clock_, .writers = 4}),
      recorder_(broadcaster_.NewRecorder({"binder", ""})),
      binder_client_(client,
                     [this](const BinderEvent& e) {
                       api::ObjectReference ref;
                       ref.kind = e.kind;
                       ref.api_version = "v1";
                       ref.namespace_ = e.namespace_;
                       ref.name = e.name;
                       ref.uid = e.uid;
                       recorder_->Event(ref, e.type, e.reason, e.message);
                     }),
      reconciler_(&binder_client_, options_.binder, clock_),
      factory_(client, {.clock = clock_}) {
  controller::ControllerOptions co;
  co.name = "bindrequest";
  co.max_concurrent_reconciles = options_.max_concurrent_reconciles;
  co.clock = clock_;
  co.registry = registry;
  co.rate_limiter = std::make_unique<workqueue::ItemExponentialFailureRateLimiter>(
      std::chrono::seconds(options_.rate_limiter_base_delay_seconds),
      std::chrono::seconds(options_.rate_limiter_max_delay_seconds));
  co.need_leader_election = options_.leader_elect;
  controller_ = std::make_unique<controller::Controller>(
      std::move(co), [this](const controller::Request& r) { return Reconcile(r); });
}

BinderApp::~BinderApp() { Stop(clock_->NowMonotonic() + std::chrono::seconds(30)); }

controller::Result BinderApp::Reconcile(const controller::Request& r) {
  ReconcileResult res = reconciler_.Reconcile(r.namespace_, r.name);
  VLOG(1) << "BindRequest " << r.Key() << ": " << OutcomeName(res.outcome);
  switch (res.outcome) {
    case ReconcileResult::Outcome::kError:
      return controller::Result::Error(res.error);
    case ReconcileResult::Outcome::kFailed:
      return controller::Result::Terminal(res.error);
    case ReconcileResult::Outcome::kRetrying:
    case ReconcileResult::Outcome::kWaitingForReservation:
      return controller::Result::RequeueAfter(*res.requeue_after);
    default:
      return controller::Result::Done();
  }
}

void BinderApp::Enqueue(const kube::ObjectPtr& obj) {
  const api::BindRequest* br = obj->As<api::BindRequest>();
  if (br != nullptr && BindRequestReconciler::IsActionable(*br)) {
    controller_->Enqueue({br->metadata.namespace_, br->metadata.name});
  }
}

Status BinderApp::Start() {
  Status s = reconciler_.SyncAll();
  if (!s.ok()) LOG(WARNING) << "initial reservation sync: " << s;
  // BindRequests and pods are decoded only when a handler or a read needs them typed
  // (rest_binder_client.h): the handlers below look at scanned fields first.
  kube::SharedInformer* brs = BindRequestCacheInformer(&factory_);
  // Only spec changes are new work (KAI: generation changed), not our status writes. As a
  // wants_update filter it keeps the other updates out of the handler's queue altogether.
  auto spec_changed = [](const kube::ObjectPtr& old_obj, const kube::ObjectPtr& o) {
    return old_obj->field(kBindRequestCacheGeneration) != o->field(kBindRequestCacheGeneration);
  };
  registrations_.Add(brs->AddEventHandler(
      {.on_add = [this](const kube::ObjectPtr& o, bool) { Enqueue(o); },
       .on_update =
           [this, spec_changed](const kube::ObjectPtr& old_obj, const kube::ObjectPtr& o) {
             if (spec_changed(old_obj, o)) Enqueue(o);
           },
       .on_delete =
           [this](const kube::ObjectPtr& o, bool) {
             if (const api::BindRequest* br = o->As<api::BindRequest>()) {
               reconciler_.OnBindRequestDeleted(*br);
             }
           },
       .wants_update = spec_changed}));
  KAI_ASSIGN_OR_RETURN(kube::SharedInformer * pods, PodCacheInformer(&factory_));
  const std::string scheduler = options_.binder.scheduler_name;
  // A pod of our scheduler that just finished: its GPU groups may be released. Every other pod
  // update (about 5 per bound pod) stays out of the handler's queue.
  auto completed = [scheduler](const kube::ObjectPtr& old_obj, const kube::ObjectPtr& o) {
    if (o->field(kPodCacheSchedulerName) != scheduler) return false;
    const std::string_view phase = o->field(kPodCachePhase);
    return old_obj->field(kPodCachePhase) != phase && (phase == "Succeeded" || phase == "Failed");
  };
  registrations_.Add(pods->AddEventHandler(
      {.on_update =
           [this, completed](const kube::ObjectPtr& old_obj, const kube::ObjectPtr& o) {
             if (!completed(old_obj, o)) return;
             if (const api::Pod* after = o->As<api::Pod>()) {
               reconciler_.OnPodCompletedOrDeleted(*after);
             }
           },
       .on_delete =
           [this, scheduler](const kube::ObjectPtr& o, bool) {
             if (o->field(kPodCacheSchedulerName) != scheduler) return;
             if (const api::Pod* pod = o->As<api::Pod>()) reconciler_.OnPodCompletedOrDeleted(*pod);
           },
       .wants_update = completed}));
  kube::SharedInformer* nodes = factory_.InformerFor<api::Node>(/*keep_json=*/false);
  // Registered for HasSynced only (the reconciler reads the store).
  registrations_.Add(nodes->AddEventHandler(
      {.wants_update = [](const kube::ObjectPtr&, const kube::ObjectPtr&) { return false; }}));
  // Reads come from these stores once synced (KAI's binder reads its controller-runtime cache):
  // no GET per BindRequest, pod and node, so the client's QPS goes to writes.
  binder_client_.UseCaches({.bind_requests = brs, .pods = pods, .nodes = nodes});
  factory_.Start();
  return controller_->Start();
}

bool BinderApp::HasSynced() const { return registrations_.AllSynced(); }

bool BinderApp::Stop(MonoTime deadline) {
  factory_.Shutdown();
  const bool in_time = controller_ == nullptr || controller_->Stop(deadline);
  broadcaster_.Flush();
  return in_time;
}

int BinderMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::cout << BinderUsage();
    return 0;
  }
  auto opts = ParseBinderArgs(args);
  if (!opts.ok()) {
    std::cerr << "kai-binder: " << opts.status().message() << "\n";
    return 2;
  }
  kube::KubeconfigOptions ko;
  ko.path = opts->kubeconfig;
  auto config = kube::LoadConfig(ko);
  if (!config.ok()) {
    std::cerr << "kai-binder: " << config.status().message() << "\n";
    return 1;
  }
  config->qps = opts->qps;
  config->burst = opts->burst;
  auto client = kube::RestClient::New(*config);
  auto event_client = kube::RestClient::New(*config);
  for (const auto* c : {&client, &event_client}) {
    if (!c->ok()) {
      std::cerr << "kai-binder: " << c->status().message() << "\n";
      return 1;
    }
  }
  app::ShutdownSignal* shutdown = app::ShutdownSignal::InstallProcessSignals();
  metrics::Registry* registry = metrics::Registry::Default();
  BinderApp binder(client->get(), *opts, RealClock::Get(), registry, event_client->get());
  app::Manager manager({.name = "kai-binder",
                        .metrics_addr = opts->metrics_bind_address,
                        .health_addr = opts->health_probe_bind_address,
                        .leader_elect = opts->leader_elect,
                        .leader_election_id = std::string(kBinderLeaderElectionId),
                        .leader_election_namespace = opts->leader_election_namespace,
                        .client = client->get(),
                        .registry = registry});
  manager.Add(&binder);
  manager.AddReadyzCheck("informers-synced", [&binder]() -> Status {
    return binder.HasSynced() ? Status::OK() : UnavailableError("caches not synced");
  });
  LOG(INFO) << "kai-binder running against " << config->host;
  return manager.Run(shutdown);
}

}  // namespace kai::binder
