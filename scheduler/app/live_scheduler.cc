#include "scheduler/app/live_scheduler.h"

#include <glog/logging.h>

#include <algorithm>

#include "api/bind_request.h"
#include "api/codec.h"
#include "api/podgroup.h"
#include "kube/metrics/registry.h"
#include "scheduler/framework/job_status.h"
#include "scheduler/metrics/metrics_catalog.h"

namespace kai::scheduler {

namespace {

// The resources the snapshot is built from (KAI's informers, reference §6.3).
struct Resource {
  const char* name;
  kube::GroupVersionResource gvr;
};
const std::vector<Resource>& Resources() {
  static const auto* r = new std::vector<Resource>{
      {"nodes", {"", "v1", "nodes"}},
      {"pods", {"", "v1", "pods"}},
      {"podgroups", {"scheduling.run.ai", "v2alpha2", "podgroups"}},
      {"queues", {"scheduling.run.ai", "v2", "queues"}},
      {"priorityclasses", {"scheduling.k8s.io", "v1", "priorityclasses"}},
      {"bindrequests", {"scheduling.run.ai", "v1alpha2", "bindrequests"}},
      {"topologies", {"kai.scheduler", "v1alpha1", "topologies"}},
      {"configmaps", {"", "v1", "configmaps"}},
  };
  return *r;
}

}  // namespace

struct LiveScheduler::Metrics {
  metrics::Gauge* e2e = nullptr;
  metrics::Gauge* open = nullptr;
  metrics::Gauge* close = nullptr;
  metrics::GaugeFamily* action = nullptr;
  metrics::GaugeFamily* plugin = nullptr;
  metrics::Histogram* task_scheduling = nullptr;
  metrics::Histogram* task_bind = nullptr;
  metrics::CounterFamily* scenarios_simulated = nullptr;
  metrics::CounterFamily* scenarios_filtered = nullptr;
  metrics::CounterFamily* budget_exhausted = nullptr;
  metrics::CounterFamily* podgroups_scheduled = nullptr;
  metrics::CounterFamily* podgroups_acted_on = nullptr;
  metrics::Counter* preemption_attempts = nullptr;
  metrics::CounterFamily* evicted_pods = nullptr;
  // queue_fair_share_{cpu_cores,memory_gb,gpu} and queue_{cpu,memory,gpu}_usage by queue_name.
  metrics::GaugeFamily* queue_gauges[6] = {};
};

LiveScheduler::LiveScheduler(kube::Client* client, LiveSchedulerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : RealClock::Get()),
      random_(options_.random != nullptr ? options_.random : SeededRandom::Default()),
      event_sink_(client),
      // Several event writers, and the cycle waits (up to 2 s) for room in a full queue: the
      // allocate action's Scheduled events come in a burst once its concurrent BindRequest
      // creations are answered, and one POST at a time with a dropping queue lost half of them.
      broadcaster_(
          &event_sink_,
          {.clock = clock_, .random = random_, .writers = 4, .full_wait = std::chrono::seconds(2)}),
      recorder_(broadcaster_.NewRecorder({options_.params.scheduler_name, ""})),
      writer_(client,
              [this](const EventRecord& e) {
                api::ObjectReference ref;
                ref.kind = e.object.kind;
                ref.api_version = e.object.api_version;
                ref.namespace_ = e.object.namespace_;
                ref.name = e.object.name;
                ref.uid = e.object.uid;
                ref.resource_version = e.object.resource_version;
                if (e.annotations.empty()) {
                  recorder_->Event(ref, e.type, e.reason, e.message);
                } else {
                  recorder_->AnnotatedEvent(ref, e.annotations, e.type, e.reason, e.message);
                }
              }),
      updates_(clock_),
      sink_(options_.params, &writer_, &updates_, clock_),
      cycle_(options_.conf, options_.params, &sink_, clock_, random_),
      unconfirmed_(options_.unconfirmed_bind_request_read_back),
      factory_(client, {.clock = clock_, .random = random_}),
      metrics_(std::make_unique<Metrics>()) {
  sink_.SetBindRequestWorkers(options_.bind_request_workers);
  sink_.set_on_bind_request_created([this](const api::BindRequest& br) {
    // Encoded before taking the lock: the dump shows what the model schedules with.
    auto json = std::make_shared<const std::string>(api::EncodeJson(br));
    const std::string key = br.metadata.namespace_ + "/" + br.metadata.name;
    std::lock_guard<std::mutex> lock(model_mu_);
    LearnBindRequestLocked(br, std::move(json));
    // The informer's store is updated before its handlers run (and they take this lock): either
    // it holds this BindRequest already or its Upsert confirms it later.
    const kube::ObjectPtr seen =
        bind_request_informer_ != nullptr ? bind_request_informer_->store().Get(key) : nullptr;
    if (seen == nullptr || seen->uid() != br.metadata.uid) {
      unconfirmed_.Created(key, br.metadata.uid, clock_->NowMonotonic());
    }
  });
  sink_.set_on_bind_request_dropped([this](const std::string& key) {
    std::lock_guard<std::mutex> lock(model_mu_);
    model_.DeleteBindRequest(key);
    raw_["bindrequests"].erase(key);
  });
  sink_.set_on_bind_request_deleted([this](const std::string& key, const std::string& uid) {
    std::lock_guard<std::mutex> lock(model_mu_);
    ForgetDeletedBindRequestLocked(key, uid);
  });
  model_.set_podgroup_overlay(
      [this](std::shared_ptr<const api::PodGroup> pg) { return updates_.Overlay(std::move(pg)); });
  if (metrics::Registry* r = options_.registry) {
    auto name = [&](std::string_view n) {
      return PrefixedMetricName(options_.metrics_namespace, n);
    };
    auto help = [](std::string_view n) { return std::string(FindSchedulerMetric(n)->help); };
    metrics_->e2e =
        &r->RegisterGauge(name(kE2eSchedulingLatency), help(kE2eSchedulingLatency)).Get();
    metrics_->open = &r->RegisterGauge(name(kOpenSessionLatency), help(kOpenSessionLatency)).Get();
    metrics_->close =
        &r->RegisterGauge(name(kCloseSessionLatency), help(kCloseSessionLatency)).Get();
    metrics_->action = &r->RegisterGauge(name(kActionSchedulingLatency),
                                         help(kActionSchedulingLatency), {"action"});
    metrics_->plugin = &r->RegisterGauge(name(kPluginSchedulingLatency),
                                         help(kPluginSchedulingLatency), {"plugin", "OnSession"});
    metrics_->task_scheduling =
        &r->RegisterHistogram(name(kTaskSchedulingLatency), help(kTaskSchedulingLatency), {},
                              FindSchedulerMetric(kTaskSchedulingLatency)->buckets)
             .Get();
    metrics_->task_bind = &r->RegisterHistogram(name(kTaskBindLatency), help(kTaskBindLatency), {},
                                                FindSchedulerMetric(kTaskBindLatency)->buckets)
                               .Get();
    metrics_->scenarios_simulated = &r->RegisterCounter(
        name(kScenariosSimulationByAction), help(kScenariosSimulationByAction), {"action"});
    metrics_->scenarios_filtered = &r->RegisterCounter(
        name(kScenariosFilteredByAction), help(kScenariosFilteredByAction), {"action"});
    metrics_->budget_exhausted =
        &r->RegisterCounter(name(kScenarioSearchBudgetExhausted),
                            help(kScenarioSearchBudgetExhausted), {"action", "budget"});
    metrics_->podgroups_scheduled = &r->RegisterCounter(
        name(kPodgroupsScheduledByAction), help(kPodgroupsScheduledByAction), {"action"});
    metrics_->podgroups_acted_on = &r->RegisterCounter(name(kPodgroupsActedOnByAction),
                                                       help(kPodgroupsActedOnByAction), {"action"});
    metrics_->preemption_attempts =
        &r->RegisterCounter(name(kTotalPreemptionAttempts), help(kTotalPreemptionAttempts)).Get();
    metrics_->evicted_pods =
        &r->RegisterCounter(name(kPodGroupEvictedPodsTotal), help(kPodGroupEvictedPodsTotal),
                            {"podgroup", "namespace", "uid", "nodepool", "action"});
    const std::string_view queue_names[6] = {kQueueFairShareCpu, kQueueFairShareMemory,
                                             kQueueFairShareGpu, kQueueCpuUsage,
                                             kQueueMemoryUsage,  kQueueGpuUsage};
    for (int i = 0; i < 6; ++i) {
      metrics_->queue_gauges[i] =
          &r->RegisterGauge(name(queue_names[i]), help(queue_names[i]), {"queue_name"});
    }
    // Whole milliseconds, as KAI observes them (Go's Duration.Milliseconds() truncates), so a
    // value lands in the same bucket. A pod created "in the future" by a skewed clock counts 0.
    sink_.set_on_bind_timed([this](const OutputSink::BindTiming& t) {
      auto whole_ms = [](Duration d) {
        return static_cast<double>(
            std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(d).count()));
      };
      metrics_->task_bind->Observe(whole_ms(t.bind));
      if (t.since_pod_creation) metrics_->task_scheduling->Observe(whole_ms(*t.since_pod_creation));
    });
    // One per evicted pod (KAI adds the eviction's gang size per pod, n² for a gang of n: a
    // counting bug that decides nothing, fixed here).
    sink_.set_on_pod_evicted([this](const PodGroupInfo& job, const EvictionMetadata& meta) {
      metrics_->evicted_pods
          ->WithLabelValues({job.name(), job.namespace_(), job.podgroup().metadata.uid,
                             NodePoolOf(job, options_.params.node_pool_label_key), meta.action})
          .Inc();
    });
  }
}

LiveScheduler::~LiveScheduler() { Stop(); }

void LiveScheduler::Upsert(const std::string& resource, const kube::ObjectPtr& obj) {
  if (!obj->json()) return;
  auto o = LoadObjectJson(*obj->json());
  if (!o.ok()) {
    LOG(WARNING) << resource << " " << obj->key() << ": " << o.status();
    return;
  }
  std::lock_guard<std::mutex> lock(model_mu_);
  for (const auto& n : o->nodes) model_.UpsertNode(n);
  for (const auto& p : o->pods) model_.UpsertPod(p);
  for (const auto& p : o->podgroups) model_.UpsertPodGroup(p);
  for (const auto& q : o->queues) model_.UpsertQueue(q);
  for (const auto& p : o->priority_classes) model_.UpsertPriorityClass(p);
  bool applied = true;
  for (const auto& b : o->bind_requests) {
    unconfirmed_.Seen(obj->key(), obj->uid());
    applied = model_.UpsertBindRequest(b) && applied;
  }
  for (const auto& t : o->topologies) model_.UpsertTopology(t);
  for (const auto& c : o->config_maps) model_.UpsertConfigMap(c);
  if (applied) raw_[resource][obj->key()] = obj->json();  // not a late event of a deleted one
}

void LiveScheduler::Remove(const std::string& resource, const kube::ObjectPtr& obj) {
  const std::string& key = obj->key();
  std::lock_guard<std::mutex> lock(model_mu_);
  if (resource == "bindrequests") {
    unconfirmed_.Seen(key, obj->uid());
    // The model may already hold a newer BindRequest under this name: one this scheduler created
    // after deleting the stale one whose DELETED arrives now.
    if (model_.DeleteBindRequest(key, obj->uid())) raw_[resource].erase(key);
    return;
  }
  raw_[resource].erase(key);
  if (resource == "nodes") model_.DeleteNode(key);
  if (resource == "pods") model_.DeletePod(key);
  if (resource == "podgroups") {
    model_.DeletePodGroup(key);
    updates_.ForgetPodGroup(std::string(obj->namespace_()), std::string(obj->name()), obj->uid());
  }
  if (resource == "queues") model_.DeleteQueue(key);
  if (resource == "priorityclasses") model_.DeletePriorityClass(key);
  if (resource == "topologies") model_.DeleteTopology(key);
  if (resource == "configmaps") model_.DeleteConfigMap(key);
}

RawObjectLists LiveScheduler::RawObjects() const {
  RawObjectLists out;
  std::lock_guard<std::mutex> lock(model_mu_);
  for (const auto& [resource, objects] : raw_) {
    auto& list = out[resource];
    list.reserve(objects.size());
    for (const auto& [key, json] : objects) list.push_back(json);
  }
  return out;
}

StatusOr<std::string> LiveScheduler::DebugSnapshotZip() const {
  RawObjectLists raw = RawObjects();
  return BuildSnapshotZip(options_.conf, options_.params, raw);
}

void LiveScheduler::Start() {
  for (const Resource& r : Resources()) {
    std::string resource = r.name;
    kube::SharedInformer* informer = factory_.InformerFor(r.gvr);  // keeps the JSON
    if (resource == "bindrequests") {
      std::lock_guard<std::mutex> lock(model_mu_);
      bind_request_informer_ = informer;
    }
    registrations_.Add(informer->AddEventHandler(
        {[this, resource](const kube::ObjectPtr& o, bool) { Upsert(resource, o); },
         [this, resource](const kube::ObjectPtr&, const kube::ObjectPtr& o) {
           Upsert(resource, o);
         },
         [this, resource](const kube::ObjectPtr& o, bool) { Remove(resource, o); }}));
  }
  factory_.Start();
  for (int i = 0; i < options_.status_workers; ++i) {
    workers_.emplace_back([this] { StatusWorker(); });
  }
}

bool LiveScheduler::HasSynced() const { return registrations_.AllSynced(); }

void LiveScheduler::StatusWorker() {
  while (true) {
    {
      std::lock_guard<std::mutex> lock(run_mu_);
      if (stopping_) return;
    }
    updates_.PerformNext(&writer_, std::chrono::seconds(1));
  }
}

void LiveScheduler::FlushStatusUpdates() {
  updates_.Drain(&writer_);
  broadcaster_.Flush();
}

void LiveScheduler::ReadBackUnconfirmedBindRequests() {
  std::vector<std::pair<std::string, std::string>> due;
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    due = unconfirmed_.Due(clock_->NowMonotonic(), kMaxReadBacksPerCycle);
  }
  for (const auto& [key, uid] : due) {
    const size_t slash = key.find('/');
    auto got = writer_.GetBindRequest(key.substr(0, slash), key.substr(slash + 1));
    if (!got.ok() && !IsNotFound(got.status())) {
      LOG(WARNING) << "reading back BindRequest " << key << ": " << got.status();
      continue;  // due again later
    }
    std::lock_guard<std::mutex> lock(model_mu_);
    unconfirmed_.Forget(key);
    if (got.ok() && got->metadata.uid == uid) continue;  // there: the informer is only behind
    LOG(WARNING) << "BindRequest " << key << " (uid " << uid
                 << ") was deleted unseen by the informer"
                 << (got.ok() ? "; another holds its name" : "; its pod is decided again");
    ForgetDeletedBindRequestLocked(key, uid);
    // Another BindRequest holds the name (a new leader's): its pod is Binding by that one.
    if (got.ok()) {
      LearnBindRequestLocked(*got, std::make_shared<const std::string>(api::EncodeJson(*got)));
    }
  }
}

void LiveScheduler::LearnBindRequestLocked(const api::BindRequest& br,
                                           std::shared_ptr<const std::string> json) {
  if (model_.UpsertBindRequest(std::make_shared<const api::BindRequest>(br))) {
    raw_["bindrequests"][br.metadata.namespace_ + "/" + br.metadata.name] = std::move(json);
  }
}

void LiveScheduler::ForgetDeletedBindRequestLocked(const std::string& key, const std::string& uid) {
  // The dump follows the model: it keeps a successor the model holds under the name.
  if (model_.ForgetDeletedBindRequest(key, uid)) raw_["bindrequests"].erase(key);
}

CycleResult LiveScheduler::RunOnce() {
  std::unique_ptr<ClusterInfo> snapshot;
  std::vector<std::string> warnings;
  // BindRequests whose creation had no answer, or that the informer never confirmed, are read
  // back first: the snapshot then sees them (or their pods pending again).
  ReadBackUnconfirmedBindRequests();
  sink_.ResolveInDoubtBindRequests();
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    snapshot = model_.Snapshot(options_.params, &warnings);
  }
  CycleResult r = cycle_.Run(std::move(snapshot));
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    model_.Recycle(std::move(r.used_snapshot));
  }
  ++cycles_;
  if (metrics_->e2e != nullptr) {
    metrics_->e2e->Set(r.timings.e2e_ms);
    metrics_->open->Set(r.timings.open_session_ms);
    metrics_->close->Set(r.timings.close_session_ms);
    for (const auto& [action, ms] : r.timings.action_ms) {
      metrics_->action->WithLabelValues({action}).Set(ms);
    }
    for (const auto& p : r.timings.plugin_ms) {
      metrics_->plugin->WithLabelValues({p.plugin, p.on_session}).Set(p.ms);
    }
    for (const auto& [action, n] : r.action_counts) {
      metrics_->podgroups_scheduled->WithLabelValues({action}).Inc(
          static_cast<double>(n.scheduled));
      metrics_->podgroups_acted_on->WithLabelValues({action}).Inc(static_cast<double>(n.acted_on));
      metrics_->scenarios_simulated->WithLabelValues({action}).Inc(
          static_cast<double>(n.simulated));
      metrics_->scenarios_filtered->WithLabelValues({action}).Inc(static_cast<double>(n.filtered));
      if (n.job_budget_stops > 0) {
        metrics_->budget_exhausted->WithLabelValues({action, "job"})
            .Inc(static_cast<double>(n.job_budget_stops));
      }
      if (n.action_budget_stops > 0) {
        metrics_->budget_exhausted->WithLabelValues({action, "action"})
            .Inc(static_cast<double>(n.action_budget_stops));
      }
      // KAI counts each successful preempt-action solution.
      if (action == kActionPreempt)
        metrics_->preemption_attempts->Inc(static_cast<double>(n.scheduled));
    }
    for (const auto& q : r.queues) {
      const double values[6] = {q.fair_share_cpu_cores, q.fair_share_memory_gb,
                                q.fair_share_gpu,       q.usage_cpu,
                                q.usage_memory,         q.usage_gpu};
      for (int i = 0; i < 6; ++i) {
        metrics_->queue_gauges[i]->WithLabelValues({q.queue_name}).Set(values[i]);
      }
    }
  }
  std::set<std::string> current(warnings.begin(), warnings.end());
  for (const auto& w : current) {
    if (last_warnings_.count(w) == 0) LOG(WARNING) << w;
  }
  last_warnings_ = std::move(current);
  for (auto& w : warnings) r.warnings.push_back(std::move(w));
  VLOG(1) << "session " << r.session_id << " done in " << r.timings.e2e_ms << " ms";
  return r;
}

void LiveScheduler::Run() {
  std::unique_lock<std::mutex> lock(run_mu_);
  while (!stopping_ && !HasSynced()) {
    clock_->WaitUntil(run_cv_, lock, clock_->NowMonotonic() + std::chrono::milliseconds(100));
  }
  while (!stopping_) {
    MonoTime next = clock_->NowMonotonic() + options_.params.schedule_period;
    lock.unlock();
    RunOnce();
    lock.lock();
    while (!stopping_ && clock_->NowMonotonic() < next) clock_->WaitUntil(run_cv_, lock, next);
  }
}

void LiveScheduler::Stop() {
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    stopping_ = true;
  }
  run_cv_.notify_all();
  updates_.Close();
  factory_.Shutdown();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

}  // namespace kai::scheduler
