#include "scheduler/cache/cluster_model.h"

#include <glog/logging.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "api/well_known.h"
#include "kube/base/saturating_cast.h"
#include "kube/base/time.h"
#include "scheduler/api/amount_bounds.h"
#include "scheduler/api/assign_in_place.h"
#include "scheduler/cache/snapshot_dump.h"

namespace kai::scheduler {

namespace {

std::string Key(const api::ObjectMeta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

const std::string* Annotation(const api::ObjectMeta& m, std::string_view key) {
  auto it = m.annotations.find(std::string(key));
  return it == m.annotations.end() ? nullptr : &it->second;
}

bool ParseDouble(std::string_view s, double* out) {
  std::string str(s);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(str.c_str(), &end);
  if (str.empty() || end != str.c_str() + str.size() || errno != 0 || !std::isfinite(v)) {
    return false;
  }
  *out = v;
  return true;
}

bool ParseInt(std::string_view s, int64_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool InPartition(const api::ObjectMeta& m, const SchedulerParams& p) {
  if (p.node_pool_label_key.empty()) return true;
  auto it = m.labels.find(p.node_pool_label_key);
  if (p.partition_label_value.empty()) return it == m.labels.end();
  return it != m.labels.end() && it->second == p.partition_label_value;
}

// The node pool of the PodGroup's latest scheduling condition (highest transitionID), or "".
std::string LatestConditionPool(const api::PodGroup& pg) {
  const api::SchedulingCondition* latest = nullptr;
  int64_t latest_id = -1;
  for (const auto& c : pg.status.scheduling_conditions) {
    int64_t id = 0;
    if (!ParseInt(c.transition_id, &id)) id = 0;
    if (latest == nullptr || id >= latest_id) {
      latest = &c;
      latest_id = id;
    }
  }
  return latest == nullptr ? std::string() : latest->node_pool;
}

// Queues of this shard, hierarchy wired, orphans removed (§6.4).
template <typename Warn>
std::map<std::string, std::unique_ptr<QueueInfo>> BuildQueues(
    const std::map<std::string, std::shared_ptr<const api::Queue>>& queues_,
    const SchedulerParams& params, Warn&& warn) {
  std::map<std::string, std::unique_ptr<QueueInfo>> queues;
  for (const auto& [name, q] : queues_) {
    if (!InPartition(q->metadata, params)) continue;
    queues.emplace(name, std::make_unique<QueueInfo>(q));
  }
  if (!params.full_hierarchy_fairness) {
    std::set<std::string> parents;
    for (const auto& [name, q] : queues) {
      if (!q->parent().empty()) parents.insert(q->parent());
    }
    std::map<std::string, std::unique_ptr<QueueInfo>> leaves;
    for (auto& [name, q] : queues) {
      if (parents.count(name) > 0) continue;
      q->set_parent("default");
      leaves.emplace(name, std::move(q));
    }
    QueueQuota unlimited;
    unlimited.gpu = {-1, 0, -1};
    unlimited.cpu = {-1, 0, -1};
    unlimited.memory = {-1, 0, -1};
    leaves.erase("default");
    leaves.emplace("default", std::make_unique<QueueInfo>("default", "", unlimited,
                                                          api::kDefaultQueuePriority));
    queues = std::move(leaves);
  }
  // A queue is kept only when its whole parent chain exists.
  std::set<std::string> valid;
  for (const auto& [name, q] : queues) {
    std::set<std::string> seen;
    const QueueInfo* cur = q.get();
    bool ok = true;
    while (!cur->parent().empty()) {
      if (!seen.insert(cur->uid()).second) {
        ok = false;  // cycle
        break;
      }
      auto it = queues.find(cur->parent());
      if (it == queues.end()) {
        ok = false;
        break;
      }
      cur = it->second.get();
    }
    if (ok) {
      valid.insert(name);
    } else {
      warn("Queue " + name +
           ": spec.parentQueue: parent chain is broken (missing queue or cycle); "
           "the queue and its descendants are ignored");
    }
  }
  std::map<std::string, std::unique_ptr<QueueInfo>> out;
  for (auto& [name, q] : queues) {
    if (valid.count(name) > 0) out.emplace(name, std::move(q));
  }
  for (auto& [name, q] : out) {
    if (!q->parent().empty()) out[q->parent()]->mutable_children().push_back(name);
  }
  return out;
}

// The shard's nodes: the node pool's, and with restrict_node_scheduling only worker nodes.
bool InShard(const api::ObjectMeta& m, const SchedulerParams& params) {
  if (!InPartition(m, params)) return false;
  return !params.restrict_node_scheduling || m.labels.count(params.gpu_worker_node_label_key) > 0 ||
         m.labels.count(params.cpu_worker_node_label_key) > 0;
}

// The per-object builders below are shared by FullSnapshot and the incremental rebuilds, so the
// two constructions can only differ in which objects they rebuild, never in how.

// A node's snapshot object, without tasks: its allocatable in the snapshot's resource layout.
std::unique_ptr<NodeInfo> MakeNodeInfo(const LoadedNode& n, const ResourceVectorMap* map,
                                       const SchedulerParams& params) {
  ResourceVector alloc(map->size());
  for (const auto& [r, v] : n.allocatable) {
    int idx = map->Index(r);
    if (idx >= 0) alloc.Set(idx, alloc.Get(idx) + v);
  }
  NodeFacts facts = ComputeNodeFacts(*n.node, params.mig_worker_node_label_key);
  return std::make_unique<NodeInfo>(n.node, facts, map, alloc);
}

struct BuiltTask {
  std::unique_ptr<PodInfo> info;
  // Set when the task is a candidate for a job of one under a made-up PodGroup.
  std::shared_ptr<const api::PodGroup> implicit_pg;
};

// A pod's task. A live BindRequest (`binding`, may be null) makes a pod not yet on a node
// Binding on the selected node.
BuiltTask MakeTask(const LoadedPod& pod, const PodRequirements& requirements,
                   const std::optional<ImplicitPodGroup>& implicit, const api::BindRequest* binding,
                   const ResourceVectorMap& map, const SchedulerParams& params) {
  BuiltTask t;
  if (binding != nullptr && pod.pod->spec.node_name.empty()) {
    t.info = std::make_unique<PodInfo>(pod.pod, requirements, map, binding->spec.selected_node,
                                       &binding->spec.selected_gpu_groups,
                                       binding->spec.received_resource_type);
  } else {
    t.info = std::make_unique<PodInfo>(pod.pod, requirements, map);
  }
  PodInfo& task = *t.info;
  const api::ObjectMeta& m = pod.pod->metadata;
  auto app = m.labels.find(std::string(api::kAppLabel));
  task.is_reservation =
      app != m.labels.end() && app->second == params.resource_reservation_app_label;
  task.of_other_scheduler = pod.pod->spec.scheduler_name != params.scheduler_name;
  if (implicit && !task.is_reservation && pod.pod->spec.scheduler_name == params.scheduler_name) {
    const SchedulerParams defaults;
    if (params.queue_label_key == defaults.queue_label_key &&
        params.node_pool_label_key == defaults.node_pool_label_key) {
      t.implicit_pg = implicit->podgroup;
    } else {
      t.implicit_pg =
          MakeImplicitPodGroup(*pod.pod, params.queue_label_key, params.node_pool_label_key)
              .podgroup;
    }
    task.set_job(m.namespace_ + "/" + t.implicit_pg->metadata.name);
  }
  return t;
}

using PriorityClasses = std::map<std::string, std::shared_ptr<const api::PriorityClass>>;

// schedulingBackoff 1: one attempt per node pool; a PodGroup whose latest scheduling condition
// is already for this pool is not scheduled again (§6.4).
bool BackedOffInPool(const api::PodGroup& pg, const SchedulerParams& params) {
  const std::string node_pool =
      params.partition_label_value.empty() ? "default" : params.partition_label_value;
  return pg.spec.scheduling_backoff.value_or(-1) == 1 && LatestConditionPool(pg) == node_pool;
}

// The job of a PodGroup (`key` as the model keys it), without tasks: priority from its
// PriorityClass, timestamps from its annotations.
template <typename Warn>
std::unique_ptr<PodGroupInfo> MakePodGroupJob(const std::shared_ptr<const api::PodGroup>& pg,
                                              const std::string& key,
                                              const PriorityClasses& priority_classes,
                                              std::optional<int32_t> global_default, Warn&& warn) {
  int32_t priority = global_default.value_or(kDefaultPodGroupPriority);
  if (!pg->spec.priority_class_name.empty()) {
    auto it = priority_classes.find(pg->spec.priority_class_name);
    if (it != priority_classes.end()) {
      priority = it->second->value;
    } else {
      warn("PodGroup " + key + ": spec.priorityClassName: PriorityClass \"" +
           pg->spec.priority_class_name + "\" does not exist; using the default priority");
    }
  }
  std::string error;
  auto job = std::make_unique<PodGroupInfo>(pg, priority, &error);
  if (!error.empty()) warn(std::string("PodGroup ").append(key).append(": ").append(error));
  const api::ObjectMeta& m = pg->metadata;
  if (const std::string* ts = Annotation(m, api::kLastStartTimestampAnnotation)) {
    if (auto t = ParseRfc3339(*ts); t.ok()) job->last_start_timestamp = *t;
  }
  if (const std::string* ts = Annotation(m, api::kStalePodGroupTimestampAnnotation)) {
    if (auto t = ParseRfc3339(*ts); t.ok()) job->stale_timestamp = *t;
  }
  return job;
}

// The job of one of a pod without a PodGroup: priority of the first of its candidate priority
// classes that exists.
std::unique_ptr<PodGroupInfo> MakeImplicitJob(std::shared_ptr<const api::PodGroup> pg,
                                              const std::vector<std::string>& candidates,
                                              const PriorityClasses& priority_classes,
                                              std::optional<int32_t> global_default) {
  int32_t priority = global_default.value_or(kDefaultPodGroupPriority);
  for (const std::string& name : candidates) {
    auto pc = priority_classes.find(name);
    if (pc == priority_classes.end()) continue;
    priority = pc->second->value;
    break;
  }
  auto job = std::make_unique<PodGroupInfo>(std::move(pg), priority, nullptr);
  job->implicit = true;
  return job;
}

void CheckQueueExists(PodGroupInfo* job, bool exists) {
  if (!exists) {
    job->AddJobFitError(std::string(kReasonQueueDoesNotExist),
                        "Queue '" + job->queue() + "' does not exist");
  }
}

std::string OrphanPodWarning(const PodInfo& t, const std::string& job_id) {
  return "Pod " + t.key() + ": metadata.annotations." + std::string(api::kPodGroupNameAnnotation) +
         ": PodGroup " + job_id + " does not exist; the pod is not scheduled";
}

// The warning for an amount clamped to its bound (amount_bounds.h).
std::string BeyondBound(const api::ObjectMeta& pod, std::string_view what, int64_t bound,
                        std::string_view unit = "") {
  return "Pod " + Key(pod) + ": " + std::string(what) + " is beyond the scheduler's bound (" +
         std::to_string(bound) + std::string(unit) + "); read as the bound, it fits no node";
}

}  // namespace

PodRequirements ComputePodRequirements(const api::Pod& pod, const ResourceAmounts& requests) {
  PodRequirements r;
  std::map<std::string, int64_t> mig;
  double whole_gpus = 0;
  for (const auto& [name, value] : requests) {
    const double bound = PodAmountBound(name);
    if (std::abs(value) >= bound) {
      r.warnings.push_back(BeyondBound(pod.metadata, "the " + name + " request",
                                       SaturatingCast<int64_t>(bound), name == "cpu" ? "m" : ""));
    }
    if (name == kGpuResource) {
      whole_gpus += value;
    } else if (IsMigResource(name)) {
      if (value > 0) mig[name] += static_cast<int64_t>(value);
    } else {
      r.requests[name] = value;
    }
  }
  r.gpu = GpuRequirement::WithGpus(whole_gpus, 0);
  r.request_type = ResourceRequestType::kRegular;
  const api::ObjectMeta& meta = pod.metadata;
  const std::string* fraction = Annotation(meta, api::kGpuFractionAnnotation);
  const std::string* memory = Annotation(meta, api::kGpuMemoryAnnotation);
  const std::string* devices = Annotation(meta, api::kGpuFractionNumDevicesAnnotation);
  double portion = 0;
  int64_t memory_mib = 0;
  int64_t num_devices = 1;
  bool fractional = false;
  if (fraction != nullptr) {
    if (!ParseDouble(*fraction, &portion) || portion <= 0 || portion > 1) {
      r.warnings.push_back("Pod " + Key(meta) + ": annotation " +
                           std::string(api::kGpuFractionAnnotation) + ": \"" + *fraction +
                           "\" is not a number in (0, 1]; ignored");
      portion = 0;
    } else {
      fractional = true;
    }
  }
  if (memory != nullptr) {
    if (!ParseInt(*memory, &memory_mib) || memory_mib <= 0) {
      r.warnings.push_back("Pod " + Key(meta) + ": annotation " +
                           std::string(api::kGpuMemoryAnnotation) + ": \"" + *memory +
                           "\" is not a positive integer (MiB); ignored");
      memory_mib = 0;
    } else {
      fractional = true;
      if (memory_mib > kMaxPodGpuMemoryMib) {
        r.warnings.push_back(BeyondBound(meta,
                                         "annotation " + std::string(api::kGpuMemoryAnnotation),
                                         kMaxPodGpuMemoryMib, " MiB"));
        memory_mib = kMaxPodGpuMemoryMib;
      }
    }
  }
  if (devices != nullptr) {
    if (!ParseInt(*devices, &num_devices) || num_devices <= 0) {
      r.warnings.push_back("Pod " + Key(meta) + ": annotation " +
                           std::string(api::kGpuFractionNumDevicesAnnotation) + ": \"" + *devices +
                           "\" is not a positive integer; ignored");
      num_devices = 1;
    }
    if (num_devices > kMaxPodGpuDevices) {
      r.warnings.push_back(
          BeyondBound(meta, "annotation " + std::string(api::kGpuFractionNumDevicesAnnotation),
                      kMaxPodGpuDevices));
      num_devices = kMaxPodGpuDevices;
    }
  }
  if (fractional) {
    if (memory_mib > 0) {
      r.gpu = GpuRequirement::WithGpus(0, memory_mib);
      r.request_type = ResourceRequestType::kGpuMemory;
    } else if (portion > 0) {
      r.gpu = GpuRequirement::WithGpus(portion, 0);
      r.request_type = ResourceRequestType::kFraction;
    }
    if (num_devices > 1)
      r.gpu = GpuRequirement::WithMultiFraction(num_devices, portion, memory_mib);
  }
  // Legacy MIG requests from annotations (no longer schedulable, §12.6).
  for (const auto& [k, v] : meta.annotations) {
    if (!IsMigResource(k)) continue;
    int64_t n = 0;
    if (!ParseInt(v, &n)) continue;
    mig = {{k, std::clamp<int64_t>(n, -kMaxPodGpuDevices, kMaxPodGpuDevices)}};
    r.legacy_mig = true;
  }
  if (!mig.empty()) {
    r.gpu = GpuRequirement::WithMig(mig);
    r.request_type = ResourceRequestType::kMigInstance;
  }
  return r;
}

void ClusterModel::UpsertNode(LoadedNode node) {
  std::string name = node.node->metadata.name;
  dirty_nodes_.insert(name);
  nodes_[name] = std::move(node);
}
void ClusterModel::DeleteNode(const std::string& name) {
  dirty_nodes_.insert(name);
  nodes_.erase(name);
}

void ClusterModel::CountPodResources(const PodEntry& e, int delta) {
  auto count = [&](const std::string& r) {
    int& n = pod_extra_resources_[r];
    n += delta;
    if (n == 0) pod_extra_resources_.erase(r);
  };
  for (const auto& [r, v] : e.requirements.requests) {
    if (v > 0 && r != "cpu" && r != "memory") count(r);
  }
  for (const auto& [r, v] : e.requirements.gpu.MigResources()) count(r);
}

void ClusterModel::UpsertPod(LoadedPod pod) {
  std::string key = Key(pod.pod->metadata);
  PodEntry e{std::move(pod), {}, std::nullopt};
  e.requirements = ComputePodRequirements(*e.loaded.pod, e.loaded.requests);
  const api::Pod& p = *e.loaded.pod;
  auto pg = p.metadata.annotations.find(std::string(api::kPodGroupNameAnnotation));
  if (pg == p.metadata.annotations.end() || pg->second.empty()) {
    static const SchedulerParams* const kDefaults = new SchedulerParams();
    e.implicit =
        MakeImplicitPodGroup(p, kDefaults->queue_label_key, kDefaults->node_pool_label_key);
  }
  dirty_pods_.insert(key);
  auto it = pods_.find(key);
  if (it != pods_.end()) CountPodResources(it->second, -1);
  CountPodResources(e, +1);
  pods_[key] = std::move(e);
}
void ClusterModel::DeletePod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  dirty_pods_.insert(key);
  CountPodResources(it->second, -1);
  pods_.erase(it);
}
void ClusterModel::ReplacePodObject(std::shared_ptr<const api::Pod> pod) {
  std::string key = Key(pod->metadata);
  auto it = pods_.find(key);
  LoadedPod lp{std::move(pod), it == pods_.end() ? ResourceAmounts{} : it->second.loaded.requests};
  UpsertPod(std::move(lp));
}
void ClusterModel::UpsertPodGroup(std::shared_ptr<const api::PodGroup> pg) {
  std::string key = Key(pg->metadata);
  dirty_podgroups_.insert(key);
  podgroups_[key] = std::move(pg);
}
void ClusterModel::DeletePodGroup(const std::string& key) {
  dirty_podgroups_.insert(key);
  podgroups_.erase(key);
}
void ClusterModel::UpsertQueue(std::shared_ptr<const api::Queue> q) {
  structure_changed_ = true;
  queues_[q->metadata.name] = std::move(q);
}
void ClusterModel::DeleteQueue(const std::string& name) {
  structure_changed_ = true;
  queues_.erase(name);
}
void ClusterModel::UpsertPriorityClass(std::shared_ptr<const api::PriorityClass> pc) {
  structure_changed_ = true;
  priority_classes_[pc->metadata.name] = std::move(pc);
}
void ClusterModel::DeletePriorityClass(const std::string& name) {
  structure_changed_ = true;
  priority_classes_.erase(name);
}
// Topologies, ConfigMaps and the stale-BindRequest list are copied whole into every snapshot.
void ClusterModel::UpsertTopology(std::shared_ptr<const api::Topology> t) {
  topologies_[t->metadata.name] = std::move(t);
}
void ClusterModel::DeleteTopology(const std::string& name) { topologies_.erase(name); }
void ClusterModel::UpsertConfigMap(std::shared_ptr<const api::ConfigMap> cm) {
  config_maps_[Key(cm->metadata)] = std::move(cm);
}
void ClusterModel::DeleteConfigMap(const std::string& key) { config_maps_.erase(key); }

namespace {
std::string BoundPodKey(const api::BindRequest& br) {
  return br.metadata.namespace_ + "/" + br.spec.pod_name;
}
}  // namespace

bool ClusterModel::IsStale(const api::BindRequest& br,
                           const std::map<std::string, std::unique_ptr<NodeInfo>>& nodes) const {
  if (br.IsFailed() || nodes.count(br.spec.selected_node) == 0) return true;
  auto it = pods_.find(BoundPodKey(br));
  return it != pods_.end() && br.IsForAnotherPod(it->second.loaded.pod->metadata.uid);
}

void ClusterModel::IndexBindRequest(const std::string& key, const api::BindRequest* old_br,
                                    const api::BindRequest* new_br) {
  // A BindRequest makes its pod Binding: the pods it named before and after are stale.
  if (old_br != nullptr) {
    std::string pod = BoundPodKey(*old_br);
    dirty_pods_.insert(pod);
    auto it = bind_requests_by_pod_.find(pod);
    if (it != bind_requests_by_pod_.end()) {
      it->second.erase(key);
      if (it->second.empty()) bind_requests_by_pod_.erase(it);
    }
  }
  if (new_br != nullptr) {
    std::string pod = BoundPodKey(*new_br);
    dirty_pods_.insert(pod);
    bind_requests_by_pod_[pod].insert(key);
  }
}
std::map<std::string, std::string>::iterator ClusterModel::FindDeletedBindRequest(
    const std::string& key, std::string_view uid) {
  auto d = deleted_bind_requests_.find(key);
  if (d == deleted_bind_requests_.end() || uid.empty() || d->second != uid) {
    return deleted_bind_requests_.end();
  }
  return d;
}
bool ClusterModel::UpsertBindRequest(std::shared_ptr<const api::BindRequest> br) {
  std::string key = Key(br->metadata);
  if (FindDeletedBindRequest(key, br->metadata.uid) != deleted_bind_requests_.end()) return false;
  auto it = bind_requests_.find(key);
  IndexBindRequest(key, it == bind_requests_.end() ? nullptr : it->second.get(), br.get());
  bind_requests_[key] = std::move(br);
  return true;
}
bool ClusterModel::ForgetDeletedBindRequest(const std::string& key, const std::string& uid) {
  const bool forgotten = DeleteBindRequest(key, uid);
  if (uid.empty()) return forgotten;
  if (deleted_bind_requests_.size() >= kMaxDeletedBindRequests) deleted_bind_requests_.clear();
  deleted_bind_requests_[key] = uid;
  return forgotten;
}
bool ClusterModel::DeleteBindRequest(const std::string& key, std::string_view uid) {
  if (auto d = FindDeletedBindRequest(key, uid); d != deleted_bind_requests_.end()) {
    deleted_bind_requests_.erase(d);
  }
  auto it = bind_requests_.find(key);
  if (it == bind_requests_.end()) return true;
  if (!uid.empty() && !it->second->metadata.uid.empty() && it->second->metadata.uid != uid) {
    return false;
  }
  IndexBindRequest(key, it->second.get(), nullptr);
  bind_requests_.erase(it);
  return true;
}

void ClusterModel::AddAll(const LoadedObjects& o) {
  for (const auto& n : o.nodes) UpsertNode(n);
  for (const auto& p : o.pods) UpsertPod(p);
  for (const auto& pg : o.podgroups) UpsertPodGroup(pg);
  for (const auto& q : o.queues) UpsertQueue(q);
  for (const auto& pc : o.priority_classes) UpsertPriorityClass(pc);
  for (const auto& t : o.topologies) UpsertTopology(t);
  for (const auto& cm : o.config_maps) UpsertConfigMap(cm);
  for (const auto& br : o.bind_requests) UpsertBindRequest(br);
}

std::unique_ptr<ClusterInfo> ClusterModel::FullSnapshot(const SchedulerParams& params,
                                                        std::vector<std::string>* warnings) const {
  auto c = std::make_unique<ClusterInfo>();
  auto warn = [&](std::string w) {
    if (warnings) warnings->push_back(std::move(w));
  };

  // Nodes of this shard.
  std::vector<const LoadedNode*> nodes;
  for (const auto& [name, n] : nodes_) {
    if (InShard(n.node->metadata, params)) nodes.push_back(&n);
  }
  // Resource vector layout: core resources, then every other resource a node advertises.
  std::set<std::string> extra;
  for (const LoadedNode* n : nodes) {
    for (const auto& [r, v] : n->allocatable) extra.insert(r);
  }
  // ... and every resource a pod requests: a request for a resource no node advertises must not
  // fit anywhere (KAI's LessEqual fails on a requested resource the node lacks, and its
  // MaxNodePoolResources pre-predicate reports "No node in the <pool> node-pool has <R>
  // resources").
  for (const auto& [key, e] : pods_) {
    for (const auto& [r, v] : e.requirements.requests) {
      if (v > 0 && r != "cpu" && r != "memory") extra.insert(r);
    }
    for (const auto& [r, v] : e.requirements.gpu.MigResources()) extra.insert(r);
  }
  for (const auto& r : extra) c->vector_map->Add(r);
  for (const LoadedNode* n : nodes) {
    auto info = MakeNodeInfo(*n, c->vector_map.get(), params);
    c->node_list.push_back(info.get());
    c->nodes.emplace(n->node->metadata.name, std::move(info));
  }
  // KAI's MinNodeGPUMemory is effectively the default 100 MiB (reference §24.1).
  c->min_node_gpu_memory = kDefaultGpuMemoryMib;

  // Live BindRequests make their pods Binding on the selected node.
  std::map<std::string, const api::BindRequest*> bindings;  // by pod key
  for (const auto& [key, br] : bind_requests_) {
    if (!InPartition(br->metadata, params) && !params.partition_label_value.empty()) continue;
    if (IsStale(*br, c->nodes)) {
      c->stale_bind_requests.push_back({key, br->metadata.uid});
      continue;
    }
    bindings[BoundPodKey(*br)] = br.get();
  }

  // Tasks: reservation pods first, then the others, each in key order.
  c->tasks.reserve(pods_.size());
  // Pods for this scheduler without a PodGroup, and their made-up PodGroups (in key order).
  std::vector<std::pair<PodInfo*, std::shared_ptr<const api::PodGroup>>> implicit_tasks;
  std::vector<const std::vector<std::string>*> implicit_priorities;
  auto add_task = [&](const std::string& key, const PodEntry& e) {
    for (const auto& w : e.requirements.warnings) warn(w);
    auto b = bindings.find(key);
    BuiltTask built = MakeTask(e.loaded, e.requirements, e.implicit,
                               b == bindings.end() ? nullptr : b->second, *c->vector_map, params);
    std::unique_ptr<PodInfo> task = std::move(built.info);
    if (built.implicit_pg != nullptr) {
      implicit_tasks.emplace_back(task.get(), std::move(built.implicit_pg));
      // Rebuilt candidates only differ in the label keys' effects, not in priority classes.
      implicit_priorities.push_back(&e.implicit->priority_class_candidates);
    }
    PodInfo* raw = task.get();
    c->tasks.push_back(std::move(task));
    if (IsActiveUsedStatus(raw->status) && !raw->node_name.empty()) {
      if (NodeInfo* node = c->FindNode(raw->node_name)) node->AddTask(raw);
    }
  };
  auto is_reservation = [&](const PodEntry& e) {
    const auto& labels = e.loaded.pod->metadata.labels;
    auto app = labels.find(std::string(api::kAppLabel));
    return app != labels.end() && app->second == params.resource_reservation_app_label;
  };
  for (const auto& [key, e] : pods_) {
    if (is_reservation(e)) add_task(key, e);
  }
  c->num_reservation_tasks = c->tasks.size();
  for (const auto& [key, e] : pods_) {
    if (!is_reservation(e)) add_task(key, e);
  }

  c->queues = BuildQueues(queues_, params, warn);

  // Priority classes.
  std::optional<int32_t> global_default;
  for (const auto& [name, pc] : priority_classes_) {
    if (pc->global_default) global_default = pc->value;
  }
  // Jobs.
  std::map<std::string, std::vector<PodInfo*>> pods_by_job;
  std::vector<PodInfo*>* last = nullptr;
  const std::string* last_job = nullptr;
  for (const auto& t : c->tasks) {
    if (t->job().empty()) continue;
    // Pods of one job are usually adjacent in key order: skip the map lookup for them.
    if (last_job == nullptr || *last_job != t->job()) {
      last = &pods_by_job[t->job()];
      last_job = &t->job();
    }
    last->push_back(t.get());
  }
  for (const auto& [key, observed] : podgroups_) {
    std::shared_ptr<const api::PodGroup> pg =
        podgroup_overlay_ ? podgroup_overlay_(observed) : observed;
    if (!InPartition(pg->metadata, params)) continue;
    if (BackedOffInPool(*pg, params)) {
      pods_by_job.erase(pg->metadata.namespace_ + "/" + pg->metadata.name);
      continue;
    }
    auto job = MakePodGroupJob(pg, key, priority_classes_, global_default, warn);
    auto it = pods_by_job.find(job->uid());
    if (it != pods_by_job.end()) {
      for (PodInfo* t : it->second) job->AddTask(t);
      pods_by_job.erase(it);
    }
    CheckQueueExists(job.get(), c->FindQueue(job->queue()) != nullptr);
    c->jobs.emplace(job->uid(), std::move(job));
  }
  // Jobs of one for pods without a PodGroup. A PodGroup of the same name that already exists
  // (the pod grouper created it and has not annotated the pod yet) took the pod above.
  for (size_t i = 0; i < implicit_tasks.size(); ++i) {
    auto& [task, pg] = implicit_tasks[i];
    if (!InPartition(pg->metadata, params)) continue;
    auto it = pods_by_job.find(task->job());
    if (it == pods_by_job.end()) continue;
    auto job = MakeImplicitJob(pg, *implicit_priorities[i], priority_classes_, global_default);
    for (PodInfo* t : it->second) job->AddTask(t);
    pods_by_job.erase(it);
    CheckQueueExists(job.get(), c->FindQueue(job->queue()) != nullptr);
    c->jobs.emplace(job->uid(), std::move(job));
  }
  for (const auto& [job, tasks] : pods_by_job) {
    for (const PodInfo* t : tasks) {
      if (t->pod().spec.scheduler_name == params.scheduler_name) warn(OrphanPodWarning(*t, job));
    }
  }

  for (const auto& [name, t] : topologies_) c->topologies[name] = t;
  for (const auto& [key, cm] : config_maps_) c->config_maps.insert(key);
  return c;
}

// ---------------------------------------------------------------------------------------------
// Incremental snapshot.

namespace {

// A task's place in the snapshot: reservation pods first, then the others, each in key order.
using TaskOrder = std::pair<bool, std::string>;  // (not a reservation pod, namespace/name)

// Every scheduler parameter the snapshot reads: a change rebuilds the kept state.
std::string ParamsKey(const SchedulerParams& p) {
  std::string k;
  for (const std::string* s :
       {&p.node_pool_label_key, &p.partition_label_value, &p.gpu_worker_node_label_key,
        &p.cpu_worker_node_label_key, &p.mig_worker_node_label_key,
        &p.resource_reservation_app_label, &p.scheduler_name, &p.queue_label_key}) {
    k += *s;
    k += '\0';
  }
  k += p.restrict_node_scheduling ? '1' : '0';
  k += p.full_hierarchy_fairness ? '1' : '0';
  return k;
}

// Job id ("namespace/name") <-> PodGroup key (Key(): "name" without a namespace).
std::string JobIdOfPodGroupKey(const std::string& key) {
  return key.find('/') == std::string::npos ? "/" + key : key;
}
std::string PodGroupKeyOfJobId(const std::string& id) {
  return !id.empty() && id[0] == '/' ? id.substr(1) : id;
}

}  // namespace

struct ClusterModel::KeptSnapshot {
  std::string params_key;
  std::unique_ptr<ResourceVectorMap> vector_map;
  std::set<std::string> extra_resources;  // what vector_map was built from
  std::vector<std::string> node_names;    // the shard's nodes, in name order
  struct Task {
    std::unique_ptr<PodInfo> info;
    std::vector<std::string> warnings;
    // Set when the task is a candidate for a job of one under a made-up PodGroup.
    std::shared_ptr<const api::PodGroup> implicit_pg;
    std::vector<std::string> implicit_priorities;
  };
  std::map<TaskOrder, Task> tasks;
  std::map<std::string, std::unique_ptr<NodeInfo>> nodes;
  // Active tasks by the node they name, and every task by job id (in task order).
  std::map<std::string, std::set<TaskOrder>> node_tasks;
  std::map<PodGroupId, std::set<TaskOrder>> job_tasks;
  struct Job {
    std::unique_ptr<PodGroupInfo> info;  // null: no job (skipped by backoff, or no PodGroup)
    std::shared_ptr<const api::PodGroup> overlaid;  // the PodGroup the job was built from
    std::vector<std::string> orphan_warnings;       // pods naming a missing PodGroup
  };
  std::map<PodGroupId, Job> jobs;
  std::map<std::string, std::vector<std::string>> podgroup_warnings;  // by PodGroup key
  std::map<std::string, std::unique_ptr<QueueInfo>> queues;
  std::vector<std::string> queue_warnings;
  std::optional<int32_t> global_default;
  // Scratch of CopyKept (kept to reuse its memory): the copy of the task in each slot.
  std::vector<PodInfo*> by_slot;
  // Work lists of one update.
  std::set<std::string> dirty_nodes;
  std::set<PodGroupId> dirty_jobs;
};

ClusterModel::ClusterModel() = default;
ClusterModel::~ClusterModel() = default;

void ClusterModel::RebuildKept(const SchedulerParams& params, const std::string& params_key) const {
  kept_ = std::make_unique<KeptSnapshot>();
  KeptSnapshot& k = *kept_;
  k.params_key = params_key;
  k.vector_map = std::make_unique<ResourceVectorMap>();
  for (const auto& [name, n] : nodes_) {
    if (!InShard(n.node->metadata, params)) continue;
    k.node_names.push_back(name);
    for (const auto& [r, v] : n.allocatable) k.extra_resources.insert(r);
  }
  for (const auto& [r, count] : pod_extra_resources_) k.extra_resources.insert(r);
  for (const auto& r : k.extra_resources) k.vector_map->Add(r);
  for (const std::string& name : k.node_names) k.nodes.emplace(name, nullptr);
  k.queues = BuildQueues(queues_, params,
                         [&](std::string w) { k.queue_warnings.push_back(std::move(w)); });
  for (const auto& [name, pc] : priority_classes_) {
    if (pc->global_default) k.global_default = pc->value;
  }
  // Everything is stale.
  structure_changed_ = false;
  for (const auto& [key, e] : pods_) dirty_pods_.insert(key);
  for (const auto& [key, pg] : podgroups_) dirty_podgroups_.insert(key);
  for (const std::string& name : k.node_names) k.dirty_nodes.insert(name);
}

void ClusterModel::RebuildTask(const SchedulerParams& params, const std::string& key) const {
  KeptSnapshot& k = *kept_;
  auto drop = [&](auto& index, const std::string& id, const TaskOrder& order) {
    auto it = index.find(id);
    if (it == index.end()) return;
    it->second.erase(order);
    if (it->second.empty()) index.erase(it);
  };
  for (bool not_reservation : {false, true}) {
    auto it = k.tasks.find(TaskOrder(not_reservation, key));
    if (it == k.tasks.end()) continue;
    const PodInfo& old = *it->second.info;
    if (IsActiveUsedStatus(old.status) && !old.node_name.empty()) {
      drop(k.node_tasks, old.node_name, it->first);
      k.dirty_nodes.insert(old.node_name);
    }
    if (!old.job().empty()) {
      drop(k.job_tasks, old.job(), it->first);
      k.dirty_jobs.insert(old.job());
    }
    k.tasks.erase(it);
  }
  auto pit = pods_.find(key);
  if (pit == pods_.end()) return;
  const PodEntry& e = pit->second;

  // The live BindRequest of the pod (the last valid one in key order), as FullSnapshot's map.
  const api::BindRequest* binding = nullptr;
  if (auto b = bind_requests_by_pod_.find(key); b != bind_requests_by_pod_.end()) {
    for (const std::string& br_key : b->second) {
      const api::BindRequest& br = *bind_requests_.at(br_key);
      if (!InPartition(br.metadata, params) && !params.partition_label_value.empty()) continue;
      if (IsStale(br, k.nodes)) continue;
      binding = &br;
    }
  }
  KeptSnapshot::Task t;
  t.warnings = e.requirements.warnings;
  BuiltTask built = MakeTask(e.loaded, e.requirements, e.implicit, binding, *k.vector_map, params);
  t.info = std::move(built.info);
  if (built.implicit_pg != nullptr) {
    t.implicit_pg = std::move(built.implicit_pg);
    t.implicit_priorities = e.implicit->priority_class_candidates;
  }
  PodInfo& task = *t.info;
  TaskOrder order(!task.is_reservation, key);
  if (IsActiveUsedStatus(task.status) && !task.node_name.empty()) {
    k.node_tasks[task.node_name].insert(order);
    k.dirty_nodes.insert(task.node_name);
  }
  if (!task.job().empty()) {
    k.job_tasks[task.job()].insert(order);
    k.dirty_jobs.insert(task.job());
  }
  k.tasks.emplace(std::move(order), std::move(t));
}

void ClusterModel::RebuildNode(const SchedulerParams& params, const std::string& name) const {
  KeptSnapshot& k = *kept_;
  auto slot = k.nodes.find(name);
  if (slot == k.nodes.end()) return;  // not a node of this shard
  auto info = MakeNodeInfo(nodes_.at(name), k.vector_map.get(), params);
  // The node's accounting is summed from scratch in task order, exactly as FullSnapshot does.
  if (auto it = k.node_tasks.find(name); it != k.node_tasks.end()) {
    for (const TaskOrder& order : it->second) info->AddTask(k.tasks.at(order).info.get());
  }
  slot->second = std::move(info);
}

void ClusterModel::RebuildJob(const SchedulerParams& params, const std::string& id) const {
  KeptSnapshot& k = *kept_;
  const std::string pg_key = PodGroupKeyOfJobId(id);
  k.jobs.erase(id);
  k.podgroup_warnings.erase(pg_key);
  const std::set<TaskOrder>* tasks = nullptr;
  if (auto it = k.job_tasks.find(id); it != k.job_tasks.end()) tasks = &it->second;
  auto add_tasks = [&](PodGroupInfo* job) {
    if (tasks == nullptr) return;
    for (const TaskOrder& order : *tasks) job->AddTask(k.tasks.at(order).info.get());
  };
  auto check_queue = [&](PodGroupInfo* job) {
    CheckQueueExists(job, k.queues.count(job->queue()) > 0);
  };
  KeptSnapshot::Job job;
  bool consumed = false;
  bool has_podgroup = false;
  if (auto pit = podgroups_.find(pg_key); pit != podgroups_.end()) {
    has_podgroup = true;
    std::shared_ptr<const api::PodGroup> pg =
        podgroup_overlay_ ? podgroup_overlay_(pit->second) : pit->second;
    job.overlaid = pg;
    if (InPartition(pg->metadata, params)) {
      consumed = true;
      if (!BackedOffInPool(*pg, params)) {
        std::vector<std::string> warnings;
        auto info = MakePodGroupJob(pg, pg_key, priority_classes_, k.global_default,
                                    [&](std::string w) { warnings.push_back(std::move(w)); });
        if (!warnings.empty()) k.podgroup_warnings[pg_key] = std::move(warnings);
        add_tasks(info.get());
        check_queue(info.get());
        job.info = std::move(info);
      }
    }
  }
  if (!consumed && tasks != nullptr) {
    // A job of one under the made-up PodGroup of its first candidate task in this partition.
    for (const TaskOrder& order : *tasks) {
      const KeptSnapshot::Task& t = k.tasks.at(order);
      if (t.implicit_pg == nullptr || !InPartition(t.implicit_pg->metadata, params)) continue;
      auto info = MakeImplicitJob(t.implicit_pg, t.implicit_priorities, priority_classes_,
                                  k.global_default);
      add_tasks(info.get());
      check_queue(info.get());
      job.info = std::move(info);
      consumed = true;
      break;
    }
  }
  if (!consumed && tasks != nullptr) {
    for (const TaskOrder& order : *tasks) {
      const PodInfo& t = *k.tasks.at(order).info;
      if (t.pod().spec.scheduler_name == params.scheduler_name) {
        job.orphan_warnings.push_back(OrphanPodWarning(t, id));
      }
    }
  }
  if (has_podgroup || job.info != nullptr || !job.orphan_warnings.empty()) {
    k.jobs.emplace(id, std::move(job));
  }
}

void ClusterModel::ApplyDirty(const SchedulerParams& params) const {
  KeptSnapshot& k = *kept_;
  for (const std::string& key : dirty_pods_) RebuildTask(params, key);
  dirty_pods_.clear();
  for (const std::string& name : dirty_nodes_) k.dirty_nodes.insert(name);
  dirty_nodes_.clear();
  for (const std::string& name : k.dirty_nodes) RebuildNode(params, name);
  k.dirty_nodes.clear();
  for (const std::string& key : dirty_podgroups_) k.dirty_jobs.insert(JobIdOfPodGroupKey(key));
  dirty_podgroups_.clear();
  if (podgroup_overlay_) {
    // The overlay shows in-flight status writes: a job whose overlaid PodGroup differs from the
    // one it was built from is stale too.
    for (const auto& [key, observed] : podgroups_) {
      std::string id = JobIdOfPodGroupKey(key);
      if (k.dirty_jobs.count(id) > 0) continue;
      auto it = k.jobs.find(id);
      if (it == k.jobs.end() || it->second.overlaid != podgroup_overlay_(observed)) {
        k.dirty_jobs.insert(id);
      }
    }
  }
  for (const std::string& id : k.dirty_jobs) RebuildJob(params, id);
  k.dirty_jobs.clear();
}

void ClusterModel::CopyKept(const SchedulerParams& params, std::vector<std::string>* warnings,
                            ClusterInfo* c) const {
  // `c` is either new (every container empty) or a recycled snapshot of an earlier session: every
  // field is overwritten, and containers are assigned in place so that what the earlier session
  // left (mostly the same pods, nodes and jobs) is reused instead of freed and allocated again.
  KeptSnapshot& k = *kept_;
  *c->vector_map = *k.vector_map;
  std::vector<PodInfo*>& by_slot = k.by_slot;
  by_slot.resize(k.tasks.size());
  if (c->tasks.size() > k.tasks.size()) c->tasks.resize(k.tasks.size());
  c->tasks.reserve(k.tasks.size());
  uint32_t slot = 0;
  for (const auto& [order, t] : k.tasks) {
    if (warnings != nullptr) {
      for (const std::string& w : t.warnings) warnings->push_back(w);
    }
    t.info->snapshot_slot = slot;
    if (slot < c->tasks.size()) {
      *c->tasks[slot] = *t.info;
    } else {
      c->tasks.push_back(std::make_unique<PodInfo>(*t.info));
    }
    by_slot[slot] = c->tasks[slot].get();
    ++slot;
  }
  c->num_reservation_tasks = 0;
  while (c->num_reservation_tasks < c->tasks.size() &&
         c->tasks[c->num_reservation_tasks]->is_reservation) {
    ++c->num_reservation_tasks;
  }
  AssignMapInPlace(
      &c->nodes, k.nodes,
      [&](std::unique_ptr<NodeInfo>& d, const std::unique_ptr<NodeInfo>& s) {
        *d = *s;
        d->RebindTasks(c->vector_map.get(), by_slot);
      },
      [&](const std::unique_ptr<NodeInfo>& s) {
        auto copy = std::make_unique<NodeInfo>(*s);
        copy->RebindTasks(c->vector_map.get(), by_slot);
        return copy;
      });
  c->node_list.clear();
  c->node_list.reserve(c->nodes.size());
  for (const auto& [name, n] : c->nodes) c->node_list.push_back(n.get());
  c->min_node_gpu_memory = kDefaultGpuMemoryMib;
  c->stale_bind_requests.clear();
  for (const auto& [key, br] : bind_requests_) {
    if (!InPartition(br->metadata, params) && !params.partition_label_value.empty()) continue;
    if (IsStale(*br, c->nodes)) c->stale_bind_requests.push_back({key, br->metadata.uid});
  }
  AssignMapInPlace(
      &c->queues, k.queues,
      [](std::unique_ptr<QueueInfo>& d, const std::unique_ptr<QueueInfo>& s) { *d = *s; },
      [](const std::unique_ptr<QueueInfo>& s) { return std::make_unique<QueueInfo>(*s); });
  {
    // Jobs: the kept map also holds entries without a job (skipped by backoff, orphans).
    InPlaceMapWriter jobs(&c->jobs);
    for (const auto& [id, job] : k.jobs) {
      // A named copy: lambdas cannot capture structured bindings before clang 16.
      const PodGroupInfo* info = job.info.get();
      if (info == nullptr) continue;
      jobs.Put(
          id, [&](std::unique_ptr<PodGroupInfo>& d) { d->AssignFrom(*info, by_slot); },
          [&] { return info->CloneWithTasks(by_slot); });
    }
    jobs.Finish();
  }
  // Set by the Session when it opens.
  c->jobs_pending_at_open.clear();
  c->jobs_pending_at_open_set = false;
  c->num_jobs_at_open = 0;
  c->queues_indexed = false;
  c->session_epoch = 0;
  c->queue_usage.clear();
  if (warnings != nullptr) {
    for (const std::string& w : k.queue_warnings) warnings->push_back(w);
    for (const auto& [key, ws] : k.podgroup_warnings) {
      for (const std::string& w : ws) warnings->push_back(w);
    }
    for (const auto& [id, job] : k.jobs) {
      for (const std::string& w : job.orphan_warnings) warnings->push_back(w);
    }
  }
  c->topologies.clear();
  for (const auto& [name, t] : topologies_) c->topologies[name] = t;
  c->config_maps.clear();
  for (const auto& [key, cm] : config_maps_) c->config_maps.insert(key);
}

void ClusterModel::Recycle(std::unique_ptr<ClusterInfo> used) const { recycled_ = std::move(used); }

std::unique_ptr<ClusterInfo> ClusterModel::Snapshot(const SchedulerParams& params,
                                                    std::vector<std::string>* warnings) const {
  const std::string params_key = ParamsKey(params);
  bool rebuild = kept_ == nullptr || structure_changed_ || kept_->params_key != params_key;
  if (!rebuild) {
    // The shard's node set and the resource names shape every object: rebuild when they moved.
    std::set<std::string> extra;
    size_t i = 0;
    for (const auto& [name, n] : nodes_) {
      if (!InShard(n.node->metadata, params)) continue;
      if (i >= kept_->node_names.size() || kept_->node_names[i] != name) {
        rebuild = true;
        break;
      }
      ++i;
      for (const auto& [r, v] : n.allocatable) extra.insert(r);
    }
    if (!rebuild && i != kept_->node_names.size()) rebuild = true;
    if (!rebuild) {
      for (const auto& [r, count] : pod_extra_resources_) extra.insert(r);
      rebuild = extra != kept_->extra_resources;
    }
  }
  if (rebuild) RebuildKept(params, params_key);
  ApplyDirty(params);
  [[maybe_unused]] const size_t warnings_before = warnings != nullptr ? warnings->size() : 0;
  std::unique_ptr<ClusterInfo> c =
      recycled_ != nullptr ? std::move(recycled_) : std::make_unique<ClusterInfo>();
  CopyKept(params, warnings, c.get());
#ifndef NDEBUG
  // Debug builds (the sanitizer CI build) check every incremental snapshot against a full one.
  {
    std::vector<std::string> full_warnings;
    auto full = FullSnapshot(params, warnings != nullptr ? &full_warnings : nullptr);
    std::string diff = FirstSnapshotDifference(*full, *c);
    CHECK(diff.empty()) << "incremental snapshot differs from a full one: " << diff;
    if (warnings != nullptr) {
      std::vector<std::string> incremental(warnings->begin() + warnings_before, warnings->end());
      CHECK(incremental == full_warnings) << "incremental snapshot warnings differ";
    }
  }
#endif
  return c;
}

}  // namespace kai::scheduler
