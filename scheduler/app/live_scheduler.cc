#include "scheduler/app/live_scheduler.h"

#include <glog/logging.h>

#include "api/bind_request.h"
#include "api/podgroup.h"
#include "kube/metrics/registry.h"
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

std::string KeyOf(const api::ObjectMeta& m) { return m.Key(); }

// Every object key a loader result holds, by resource name.
std::map<std::string, std::set<std::string>> KeysOf(const LoadedObjects& o) {
  std::map<std::string, std::set<std::string>> k;
  for (const auto& n : o.nodes) k["nodes"].insert(KeyOf(n.node->metadata));
  for (const auto& p : o.pods) k["pods"].insert(KeyOf(p.pod->metadata));
  for (const auto& p : o.podgroups) k["podgroups"].insert(KeyOf(p->metadata));
  for (const auto& q : o.queues) k["queues"].insert(KeyOf(q->metadata));
  for (const auto& p : o.priority_classes) k["priorityclasses"].insert(KeyOf(p->metadata));
  for (const auto& b : o.bind_requests) k["bindrequests"].insert(KeyOf(b->metadata));
  for (const auto& t : o.topologies) k["topologies"].insert(KeyOf(t->metadata));
  for (const auto& c : o.config_maps) k["configmaps"].insert(KeyOf(c->metadata));
  return k;
}

void Remove(ClusterModel* m, const std::string& resource, const std::string& key) {
  if (resource == "nodes") m->DeleteNode(key);
  if (resource == "pods") m->DeletePod(key);
  if (resource == "podgroups") m->DeletePodGroup(key);
  if (resource == "queues") m->DeleteQueue(key);
  if (resource == "priorityclasses") m->DeletePriorityClass(key);
  if (resource == "bindrequests") m->DeleteBindRequest(key);
  if (resource == "topologies") m->DeleteTopology(key);
  if (resource == "configmaps") m->DeleteConfigMap(key);
}

}  // namespace

struct LiveScheduler::Metrics {
  metrics::Gauge* e2e = nullptr;
  metrics::Gauge* open = nullptr;
  metrics::Gauge* close = nullptr;
  metrics::GaugeFamily* action = nullptr;
};

LiveScheduler::LiveScheduler(kube::Client* client, LiveSchedulerOptions options)
    : client_(client),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : RealClock::Get()),
      random_(options_.random != nullptr ? options_.random : SeededRandom::Default()),
      events_(client, options_.params.scheduler_name, clock_),
      writer_(client,
              [this](const EventRecord& e) {
                events_.Record({e.object.kind, e.object.api_version, e.object.namespace_,
                                e.object.name, e.object.uid, e.object.resource_version, e.type,
                                e.reason, e.message, e.annotations});
              }),
      sink_(options_.params, &writer_, &updates_, clock_),
      cycle_(options_.conf, options_.params, &sink_, clock_, random_),
      metrics_(std::make_unique<Metrics>()) {
  sink_.set_on_bind_request_created([this](const api::BindRequest& br) {
    std::lock_guard<std::mutex> lock(model_mu_);
    model_.UpsertBindRequest(std::make_shared<const api::BindRequest>(br));
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
  }
}

LiveScheduler::~LiveScheduler() { Stop(); }

void LiveScheduler::Apply(const LoadedObjects& o, bool remove) {
  if (remove) {
    for (const auto& [resource, keys] : KeysOf(o)) {
      for (const auto& k : keys) Remove(&model_, resource, k);
    }
    return;
  }
  for (const auto& n : o.nodes) model_.UpsertNode(n);
  for (const auto& p : o.pods) model_.UpsertPod(p);
  for (const auto& p : o.podgroups) model_.UpsertPodGroup(p);
  for (const auto& q : o.queues) model_.UpsertQueue(q);
  for (const auto& p : o.priority_classes) model_.UpsertPriorityClass(p);
  for (const auto& b : o.bind_requests) model_.UpsertBindRequest(b);
  for (const auto& t : o.topologies) model_.UpsertTopology(t);
  for (const auto& c : o.config_maps) model_.UpsertConfigMap(c);
}

void LiveScheduler::Start() {
  for (const Resource& r : Resources()) {
    std::string resource = r.name;
    controllers::ListWatchHandlers h;
    h.on_list = [this, resource](const std::vector<std::string>& items) {
      LoadedObjects all;
      for (const auto& json : items) {
        auto one = LoadObjectJson(json);
        if (!one.ok()) {
          LOG(WARNING) << resource << ": " << one.status();
          continue;
        }
        for (auto& x : one->nodes) all.nodes.push_back(std::move(x));
        for (auto& x : one->pods) all.pods.push_back(std::move(x));
        for (auto& x : one->podgroups) all.podgroups.push_back(std::move(x));
        for (auto& x : one->queues) all.queues.push_back(std::move(x));
        for (auto& x : one->priority_classes) all.priority_classes.push_back(std::move(x));
        for (auto& x : one->bind_requests) all.bind_requests.push_back(std::move(x));
        for (auto& x : one->topologies) all.topologies.push_back(std::move(x));
        for (auto& x : one->config_maps) all.config_maps.push_back(std::move(x));
      }
      std::set<std::string> now = KeysOf(all)[resource];
      std::lock_guard<std::mutex> lock(model_mu_);
      for (const auto& old : known_[resource]) {
        if (now.count(old) == 0) Remove(&model_, resource, old);
      }
      known_[resource] = now;
      Apply(all, false);
    };
    h.on_event = [this, resource](kube::WatchEventType type, const std::string& json) {
      auto one = LoadObjectJson(json);
      if (!one.ok()) {
        LOG(WARNING) << resource << ": " << one.status();
        return;
      }
      bool remove = type == kube::WatchEventType::kDeleted;
      std::lock_guard<std::mutex> lock(model_mu_);
      const std::set<std::string> keys = KeysOf(*one)[resource];
      for (const auto& k : keys) {
        if (remove) {
          known_[resource].erase(k);
        } else {
          known_[resource].insert(k);
        }
      }
      Apply(*one, remove);
    };
    controllers::ListWatchOptions o;
    o.gvr = r.gvr;
    o.clock = clock_;
    watches_.push_back(std::make_unique<controllers::ListWatch>(client_, o, std::move(h)));
  }
  for (auto& w : watches_) w->Start();
  for (int i = 0; i < options_.status_workers; ++i) {
    workers_.emplace_back([this] { StatusWorker(); });
  }
}

bool LiveScheduler::HasSynced() const {
  for (const auto& w : watches_) {
    if (!w->HasSynced()) return false;
  }
  return !watches_.empty();
}

void LiveScheduler::StatusWorker() {
  while (true) {
    {
      std::lock_guard<std::mutex> lock(run_mu_);
      if (stopping_) return;
    }
    auto u = updates_.PopWait(clock_, std::chrono::seconds(1));
    if (u) updates_.Perform(*u, &writer_);
  }
}

void LiveScheduler::FlushStatusUpdates() { updates_.Drain(&writer_); }

CycleResult LiveScheduler::RunOnce() {
  std::unique_ptr<ClusterInfo> snapshot;
  std::vector<std::string> warnings;
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    snapshot = model_.Snapshot(options_.params, &warnings);
  }
  CycleResult r = cycle_.Run(std::move(snapshot));
  ++cycles_;
  if (metrics_->e2e != nullptr) {
    metrics_->e2e->Set(r.timings.e2e_ms);
    metrics_->open->Set(r.timings.open_session_ms);
    metrics_->close->Set(r.timings.close_session_ms);
    for (const auto& [action, ms] : r.timings.action_ms) {
      metrics_->action->WithLabelValues({action}).Set(ms);
    }
  }
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
  for (auto& w : watches_) w->Stop();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

}  // namespace kai::scheduler
