#include "scheduler/cache/cluster_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "api/well_known.h"
#include "kube/base/time.h"

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

}  // namespace

PodRequirements ComputePodRequirements(const api::Pod& pod, const ResourceAmounts& requests) {
  PodRequirements r;
  std::map<std::string, int64_t> mig;
  double whole_gpus = 0;
  for (const auto& [name, value] : requests) {
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
    }
  }
  if (devices != nullptr) {
    if (!ParseInt(*devices, &num_devices) || num_devices <= 0) {
      r.warnings.push_back("Pod " + Key(meta) + ": annotation " +
                           std::string(api::kGpuFractionNumDevicesAnnotation) + ": \"" + *devices +
                           "\" is not a positive integer; ignored");
      num_devices = 1;
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
    mig = {{k, n}};
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
  nodes_[name] = std::move(node);
}
void ClusterModel::DeleteNode(const std::string& name) { nodes_.erase(name); }

void ClusterModel::UpsertPod(LoadedPod pod) {
  std::string key = Key(pod.pod->metadata);
  PodEntry e{std::move(pod), {}};
  e.requirements = ComputePodRequirements(*e.loaded.pod, e.loaded.requests);
  pods_[key] = std::move(e);
}
void ClusterModel::DeletePod(const std::string& key) { pods_.erase(key); }
void ClusterModel::ReplacePodObject(std::shared_ptr<const api::Pod> pod) {
  std::string key = Key(pod->metadata);
  auto it = pods_.find(key);
  LoadedPod lp{std::move(pod), it == pods_.end() ? ResourceAmounts{} : it->second.loaded.requests};
  UpsertPod(std::move(lp));
}
void ClusterModel::UpsertPodGroup(std::shared_ptr<const api::PodGroup> pg) {
  podgroups_[Key(pg->metadata)] = std::move(pg);
}
void ClusterModel::DeletePodGroup(const std::string& key) { podgroups_.erase(key); }
void ClusterModel::UpsertQueue(std::shared_ptr<const api::Queue> q) {
  queues_[q->metadata.name] = std::move(q);
}
void ClusterModel::DeleteQueue(const std::string& name) { queues_.erase(name); }
void ClusterModel::UpsertPriorityClass(std::shared_ptr<const api::PriorityClass> pc) {
  priority_classes_[pc->metadata.name] = std::move(pc);
}
void ClusterModel::DeletePriorityClass(const std::string& name) { priority_classes_.erase(name); }
void ClusterModel::UpsertTopology(std::shared_ptr<const api::Topology> t) {
  topologies_[t->metadata.name] = std::move(t);
}
void ClusterModel::DeleteTopology(const std::string& name) { topologies_.erase(name); }
void ClusterModel::UpsertConfigMap(std::shared_ptr<const api::ConfigMap> cm) {
  config_maps_[Key(cm->metadata)] = std::move(cm);
}
void ClusterModel::DeleteConfigMap(const std::string& key) { config_maps_.erase(key); }
void ClusterModel::UpsertBindRequest(std::shared_ptr<const api::BindRequest> br) {
  bind_requests_[Key(br->metadata)] = std::move(br);
}
void ClusterModel::DeleteBindRequest(const std::string& key) { bind_requests_.erase(key); }

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

std::unique_ptr<ClusterInfo> ClusterModel::Snapshot(const SchedulerParams& params,
                                                    std::vector<std::string>* warnings) const {
  auto c = std::make_unique<ClusterInfo>();
  auto warn = [&](std::string w) {
    if (warnings) warnings->push_back(std::move(w));
  };

  // Nodes of this shard.
  std::vector<const LoadedNode*> nodes;
  for (const auto& [name, n] : nodes_) {
    const api::ObjectMeta& m = n.node->metadata;
    if (!InPartition(m, params)) continue;
    if (params.restrict_node_scheduling && m.labels.count(params.gpu_worker_node_label_key) == 0 &&
        m.labels.count(params.cpu_worker_node_label_key) == 0) {
      continue;
    }
    nodes.push_back(&n);
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
    ResourceVector alloc(c->vector_map->size());
    for (const auto& [r, v] : n->allocatable) {
      int idx = c->vector_map->Index(r);
      if (idx >= 0) alloc.Set(idx, alloc.Get(idx) + v);
    }
    NodeFacts facts = ComputeNodeFacts(*n->node, params.mig_worker_node_label_key);
    auto info = std::make_unique<NodeInfo>(n->node, facts, c->vector_map.get(), alloc);
    c->node_list.push_back(info.get());
    c->nodes.emplace(n->node->metadata.name, std::move(info));
  }
  // KAI's MinNodeGPUMemory is effectively the default 100 MiB (reference §24.1).
  c->min_node_gpu_memory = kDefaultGpuMemoryMib;

  // Live BindRequests make their pods Binding on the selected node.
  struct Binding {
    std::string node;
    const std::vector<std::string>* groups;
    std::string received;
  };
  std::map<std::string, Binding> bindings;
  for (const auto& [key, br] : bind_requests_) {
    if (!InPartition(br->metadata, params) && !params.partition_label_value.empty()) continue;
    bool node_exists = c->nodes.count(br->spec.selected_node) > 0;
    if (br->IsFailed() || !node_exists) {
      c->stale_bind_requests.push_back(key);
      continue;
    }
    bindings[br->metadata.namespace_ + "/" + br->spec.pod_name] = Binding{
        br->spec.selected_node, &br->spec.selected_gpu_groups, br->spec.received_resource_type};
  }

  // Tasks: reservation pods first, then the others, each in key order.
  c->tasks.reserve(pods_.size());
  auto add_task = [&](const std::string& key, const PodEntry& e) {
    for (const auto& w : e.requirements.warnings) warn(w);
    auto b = bindings.find(key);
    std::unique_ptr<PodInfo> task;
    if (b != bindings.end() && e.loaded.pod->spec.node_name.empty()) {
      task = std::make_unique<PodInfo>(e.loaded.pod, e.requirements, *c->vector_map, b->second.node,
                                       b->second.groups, b->second.received);
    } else {
      task = std::make_unique<PodInfo>(e.loaded.pod, e.requirements, *c->vector_map);
    }
    const api::ObjectMeta& m = e.loaded.pod->metadata;
    auto app = m.labels.find(std::string(api::kAppLabel));
    task->is_reservation =
        app != m.labels.end() && app->second == params.resource_reservation_app_label;
    PodInfo* raw = task.get();
    // Keys arrive in order (two sorted runs): the end is the right hint almost always.
    c->tasks_by_key.insert_or_assign(c->tasks_by_key.end(), key, raw);
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
  for (const auto& [key, e] : pods_) {
    if (!is_reservation(e)) add_task(key, e);
  }

  // Queues of this shard, hierarchy wired, orphans removed (§6.4).
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
  for (auto& [name, q] : queues) {
    if (valid.count(name) > 0) c->queues.emplace(name, std::move(q));
  }
  for (auto& [name, q] : c->queues) {
    if (!q->parent().empty()) c->queues[q->parent()]->mutable_children().push_back(name);
  }

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
  const std::string node_pool =
      params.partition_label_value.empty() ? "default" : params.partition_label_value;
  for (const auto& [key, observed] : podgroups_) {
    std::shared_ptr<const api::PodGroup> pg =
        podgroup_overlay_ ? podgroup_overlay_(observed) : observed;
    if (!InPartition(pg->metadata, params)) continue;
    // schedulingBackoff 1: one attempt per node pool; a PodGroup whose latest scheduling
    // condition is already for this pool is not scheduled again (§6.4).
    if (pg->spec.scheduling_backoff.value_or(-1) == 1 && LatestConditionPool(*pg) == node_pool) {
      pods_by_job.erase(pg->metadata.namespace_ + "/" + pg->metadata.name);
      continue;
    }
    int32_t priority = global_default.value_or(kDefaultPodGroupPriority);
    if (!pg->spec.priority_class_name.empty()) {
      auto it = priority_classes_.find(pg->spec.priority_class_name);
      if (it != priority_classes_.end()) {
        priority = it->second->value;
      } else {
        warn("PodGroup " + key + ": spec.priorityClassName: PriorityClass \"" +
             pg->spec.priority_class_name + "\" does not exist; using the default priority");
      }
    }
    std::string error;
    auto job = std::make_unique<PodGroupInfo>(pg, priority, &error);
    if (!error.empty()) warn("PodGroup " + key + ": " + error);
    const api::ObjectMeta& m = pg->metadata;
    if (const std::string* ts = Annotation(m, api::kLastStartTimestampAnnotation)) {
      if (auto t = ParseRfc3339(*ts); t.ok()) job->last_start_timestamp = *t;
    }
    if (const std::string* ts = Annotation(m, api::kStalePodGroupTimestampAnnotation)) {
      if (auto t = ParseRfc3339(*ts); t.ok()) {
        job->stale_timestamp = *t;
      }
    }
    auto it = pods_by_job.find(job->uid());
    if (it != pods_by_job.end()) {
      for (PodInfo* t : it->second) job->AddTask(t);
      pods_by_job.erase(it);
    }
    if (c->FindQueue(job->queue()) == nullptr) {
      job->AddJobFitError(std::string(kReasonQueueDoesNotExist),
                          "Queue '" + job->queue() + "' does not exist");
    }
    c->jobs.emplace(job->uid(), std::move(job));
  }
  for (const auto& [job, tasks] : pods_by_job) {
    for (const PodInfo* t : tasks) {
      if (t->pod().spec.scheduler_name != params.scheduler_name) continue;
      warn("Pod " + t->key() + ": metadata.annotations." +
           std::string(api::kPodGroupNameAnnotation) + ": PodGroup " + job +
           " does not exist; the pod is not scheduled");
    }
  }

  for (const auto& [name, t] : topologies_) c->topologies[name] = t;
  for (const auto& [key, cm] : config_maps_) c->config_maps.insert(key);
  return c;
}

}  // namespace kai::scheduler
