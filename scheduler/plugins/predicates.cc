// predicates (KAI plugins/predicates, reference §8.1): per-task pre-predicates (kube-scheduler
// PreFilters, MaxNodePoolResources, ConfigMap) and per-node predicates (queue capacity, node
// resource type, GPU memory, pod count, node conditions, kube-scheduler Filters, restricted node
// scheduling). The kube-scheduler semantics live in scheduler/k8s_internal.
#include <glog/logging.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "api/well_known.h"
#include "scheduler/k8s_internal/inter_pod_affinity.h"
#include "scheduler/k8s_internal/node_affinity.h"
#include "scheduler/k8s_internal/node_conditions.h"
#include "scheduler/k8s_internal/node_ports.h"
#include "scheduler/k8s_internal/pod_affinity_index.h"
#include "scheduler/k8s_internal/taint_toleration.h"
#include "scheduler/plugins/plugins.h"
#include "scheduler/plugins/proportion/messages/format.h"

namespace kai::scheduler {

namespace k8s = ::kai::k8s_internal;

namespace {

bool HasPodAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a) return false;
  auto any = [](const std::optional<api::PodAffinity>& p) {
    return p && (!p->required_during_scheduling_ignored_during_execution.empty() ||
                 !p->preferred_during_scheduling_ignored_during_execution.empty());
  };
  return any(a->pod_affinity) || any(a->pod_anti_affinity);
}

// Per task state computed by the pre-predicates and used by the predicates on every node.
struct TaskState {
  k8s::NodeAffinityFilter node_affinity;
  k8s::NodePortsFilter node_ports;
  std::unique_ptr<k8s::InterPodAffinityFilter> pod_affinity;
};

class PredicatesPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "predicates"; }

  void OnSessionOpen(Session* ssn) override {
    ssn_ = ssn;
    const ClusterInfo& c = ssn->cluster();
    // Largest single-node allocatable per resource (MaxNodePoolResources).
    max_allocatable_ = ResourceVector(c.vector_map->size());
    for (const NodeInfo* n : c.node_list) max_allocatable_.SetMax(n->allocatable);
    for (size_t i = 0; i < c.node_list.size(); ++i) node_ids_[c.node_list[i]] = static_cast<int>(i);
    // Inter-pod affinity needs an index of every placed pod; it is only built when some pod of
    // the snapshot has pod (anti-)affinity terms (otherwise the filter always passes).
    for (const auto& t : c.tasks) {
      if (HasPodAffinityTerms(t->pod())) {
        BuildAffinityIndex();
        break;
      }
    }
    ssn->AddPrePredicateFn(
        [this](const PodInfo& task, const PodGroupInfo& job) { return PrePredicate(task, job); });
    ssn->AddPredicateFn([this](const PodInfo& task, const PodGroupInfo& job, const NodeInfo& node) {
      return Predicate(task, job, node);
    });
    if (affinity_index_) {
      EventHandler h;
      h.allocate = [this](const PodInfo& t) { SyncAffinity(t); };
      h.deallocate = [this](const PodInfo& t) { SyncAffinity(t); };
      ssn->AddEventHandler(std::move(h));
    }
  }

 private:
  void BuildAffinityIndex() {
    affinity_index_ = std::make_unique<k8s::PodAffinityIndex>();
    const ClusterInfo& c = ssn_->cluster();
    for (const auto& [node, id] : node_ids_) affinity_index_->SetNode(id, node->node());
    for (const auto& t : c.tasks) SyncAffinity(*t);
  }

  // Keeps the index equal to "pods placed on a node, except those this session evicted"
  // (victims must not block their preemptor's affinity rules).
  void SyncAffinity(const PodInfo& t) {
    if (!affinity_index_) return;
    const api::Pod* pod = t.pod_ptr().get();
    NodeInfo* node = ssn_->cluster().FindNode(t.node_name);
    bool want = node != nullptr && IsActiveUsedStatus(t.status) &&
                !(t.status == PodStatus::kReleasing && t.is_virtual_status);
    bool has = affinity_index_->Contains(pod);
    if (has && (!want || placed_on_[pod] != t.node_name)) {
      affinity_index_->RemovePod(pod);
      placed_on_.erase(pod);
      has = false;
    }
    if (want && !has) {
      affinity_index_->AddPod(pod, node_ids_[node]);
      placed_on_[pod] = t.node_name;
    }
  }

  std::optional<std::string> PrePredicate(const PodInfo& task, const PodGroupInfo& job) {
    const api::Pod& pod = task.pod();
    std::vector<std::string> errors;
    TaskState st{k8s::NodeAffinityFilter::PreFilter(pod), k8s::NodePortsFilter::PreFilter(pod),
                 nullptr};
    if (st.node_ports.status().IsRejected()) errors.push_back(st.node_ports.status().message());
    if (st.node_affinity.status().IsRejected()) {
      errors.push_back(st.node_affinity.status().message());
    }
    if (affinity_index_) {
      st.pod_affinity = std::make_unique<k8s::InterPodAffinityFilter>(
          k8s::InterPodAffinityFilter::PreFilter(pod, *affinity_index_));
      if (st.pod_affinity->status().IsRejected()) {
        errors.push_back(st.pod_affinity->status().message());
      }
    }
    if (auto e = MaxNodePoolResources(task)) errors.push_back(*e);
    if (auto e = MissingConfigMaps(task)) errors.push_back(*e);
    states_[task.uid()] = std::move(st);
    if (errors.empty()) return std::nullopt;
    std::string msg = "Scheduling conditions were not met for pod " + task.key() + ":";
    for (const auto& e : errors) msg += "\n" + e + ".";
    return msg;
  }

  std::string PoolName() const {
    const std::string& p = ssn_->params().partition_label_value;
    return p.empty() ? "default" : p;
  }

  // KAI's ResReq.DetailedString(): "GPU: <g>, CPU: <c> (cores), memory: <m> (GB)", then
  // ", <resource>: <v>" for every other requested resource and ", mig <profile>: <n>".
  std::string DetailedRequest(const PodInfo& task) const {
    namespace pm = ::kai::proportion;
    const ResourceVectorMap& map = *ssn_->cluster().vector_map;
    std::string s =
        "GPU: " + pm::HumanizeResource(task.gpu_req.GpusQuota(), 1) +
        ", CPU: " + pm::HumanizeResource(task.res_req.milli_cpu(), pm::kMilliCpuToCores) +
        " (cores), memory: " + pm::HumanizeResource(task.res_req.memory(), pm::kMemoryToGb) +
        " (GB)";
    for (int i = 0; i < map.size(); ++i) {
      if (i == kCpuIndex || i == kMemoryIndex || i == kGpuIndex || i == kPodsIndex) continue;
      const std::string& name = map.NameAt(i);
      if (IsMigResource(name)) continue;
      double v = task.res_req.Get(i);
      if (v == 0) continue;
      if (IsStorageResource(name)) {
        s += ", " + name + ": " + pm::HumanizeResource(v, pm::kMemoryToGb) + " (GB)";
      } else {
        s += ", " + name + ": " + pm::HumanizeResource(v, 1);
      }
    }
    for (const auto& [profile, n] : task.gpu_req.MigResources())
      s += ", mig " + profile + ": " + std::to_string(n);
    return s;
  }

  static bool IsStorageResource(const std::string& name) {
    return name == "ephemeral-storage" || name == "storage";
  }

  // KAI's MaxNodeResourcesPredicate: GPU, CPU and memory, then every other resource of the
  // snapshot's resource map (MIG profiles and extended resources included) against the largest
  // single node. Other resources never show a maximum ("No node ... has <R> resources") except
  // storage, shown in GB.
  std::optional<std::string> MaxNodePoolResources(const PodInfo& task) const {
    namespace pm = ::kai::proportion;
    const ResourceVectorMap& map = *ssn_->cluster().vector_map;
    auto message = [&](const std::string& resource, double shown_max, const std::string& units) {
      std::string m = "The pod " + task.key() + " requires " + DetailedRequest(task) + ". ";
      if (shown_max == 0) {
        return m + "No node in the " + PoolName() + " node-pool has " + resource + " resources";
      }
      m += "Max " + resource + " resources available in a single node in the " + PoolName() +
           " node-pool is topped at " + pm::FtoaWithDigits(shown_max, 3);
      if (!units.empty()) m += " " + units;
      return m;
    };
    if (task.res_req.gpu() > max_allocatable_.gpu())
      return message("GPU", max_allocatable_.gpu(), "");
    if (task.res_req.milli_cpu() > max_allocatable_.milli_cpu())
      return message("CPU", max_allocatable_.milli_cpu() / pm::kMilliCpuToCores, "cores");
    if (task.res_req.memory() > max_allocatable_.memory())
      return message("memory", max_allocatable_.memory() / pm::kMemoryToGb, "GB");
    for (int i = 0; i < map.size(); ++i) {
      if (i == kCpuIndex || i == kMemoryIndex || i == kGpuIndex) continue;
      double requested = task.res_req.Get(i);
      double max = max_allocatable_.Get(i);
      if (requested <= 0 || max >= requested) continue;
      const std::string& name = map.NameAt(i);
      if (IsStorageResource(name)) return message(name, max / pm::kMemoryToGb, "GB");
      return message(name, 0, "");
    }
    return std::nullopt;
  }

  std::optional<std::string> MissingConfigMaps(const PodInfo& task) const {
    const api::Pod& pod = task.pod();
    std::set<std::string> referenced;
    for (const auto& v : pod.spec.volumes) {
      if (v.config_map && !v.config_map->optional.value_or(false))
        referenced.insert(v.config_map->name);
    }
    auto add_container = [&](const api::Container& c) {
      for (const auto& e : c.env) {
        if (e.value_from && e.value_from->config_map_key_ref &&
            !e.value_from->config_map_key_ref->optional.value_or(false)) {
          referenced.insert(e.value_from->config_map_key_ref->name);
        }
      }
      for (const auto& e : c.env_from) {
        if (e.config_map_ref && !e.config_map_ref->optional.value_or(false)) {
          referenced.insert(e.config_map_ref->name);
        }
      }
    };
    for (const auto& c : pod.spec.containers) add_container(c);
    for (const auto& c : pod.spec.init_containers) add_container(c);
    if (referenced.empty()) return std::nullopt;
    // The binder creates the GPU-sharing ConfigMaps (names derived from this annotation).
    std::string shared_prefix;
    auto it = pod.metadata.annotations.find(std::string(api::kSharedGpuConfigMapAnnotation));
    if (it != pod.metadata.annotations.end()) shared_prefix = it->second;
    std::vector<std::string> missing;
    for (const auto& name : referenced) {
      if (!shared_prefix.empty() && name.starts_with(shared_prefix)) continue;
      if (ssn_->cluster().config_maps.count(pod.metadata.namespace_ + "/" + name) == 0) {
        missing.push_back(name);
      }
    }
    if (missing.empty()) return std::nullopt;
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    return "Missing required configmaps: [" + list + "]";
  }

  std::vector<std::string> Predicate(const PodInfo& task, const PodGroupInfo& job,
                                     const NodeInfo& node) {
    // 1. Queue capacity of this task on this node.
    SchedulableResult cap = ssn_->IsTaskAllocationOnNodeOverCapacity(task, job, node);
    if (!cap.schedulable) {
      return {"node does not have enough capacity. Reason: " + cap.reason +
              ", Details: " + cap.message};
    }
    // 2. MIG / resource type compatibility.
    if (auto e = node.PredicateByNodeResourcesType(task)) return {*e};
    // 3. GPU-memory requests need a node with known GPU memory.
    if (task.IsGpuMemoryRequest() && !node.gpu_memory_synced) {
      return {"node(s) didn't have GPU memory information"};
    }
    // 4. Pod slots: the pod itself, plus a reservation pod for every GPU group it opens.
    k8s::FilterResult pods = k8s::CheckPodCount(FreePodSlots(node), NeededPodSlots(task, node));
    if (!pods.ok()) return {pods.Message()};
    // 5. Node conditions.
    std::vector<std::string> cond =
        k8s::CheckNodeConditions(node.node(), task.pod().spec.tolerations);
    if (!cond.empty()) return cond;
    // 6. kube-scheduler filters.
    auto it = states_.find(task.uid());
    if (it == states_.end()) {
      PrePredicate(task, job);
      it = states_.find(task.uid());
    }
    TaskState& st = it->second;
    if (!st.node_ports.status().IsSkip() && !st.node_ports.wanted().empty()) {
      k8s::HostPortUsage usage;
      for (const auto& [key, entry] : node.tasks()) {
        if (entry.task != nullptr && entry.task->uid() != task.uid()) {
          usage.AddPod(entry.task->pod().spec);
        }
      }
      k8s::FilterResult r = st.node_ports.Filter(usage);
      if (!r.ok()) return {r.Message()};
    }
    k8s::FilterResult taints = k8s::TaintTolerationFilter(task.pod().spec, node.node());
    if (!taints.ok()) return {taints.Message()};
    if (!st.node_affinity.status().IsSkip()) {
      k8s::FilterResult r = st.node_affinity.Filter(node.node());
      if (!r.ok()) return {r.Message()};
    }
    if (st.pod_affinity && !st.pod_affinity->status().IsSkip()) {
      auto nid = node_ids_.find(const_cast<NodeInfo*>(&node));
      if (nid != node_ids_.end()) {
        k8s::FilterResult r = st.pod_affinity->Filter(nid->second);
        if (!r.ok()) return {r.Message()};
      }
    }
    // 7. Restricted node scheduling.
    if (ssn_->params().restrict_node_scheduling) {
      const auto& labels = node.node().metadata.labels;
      const std::string& key = task.IsCpuOnlyRequest() ? ssn_->params().cpu_worker_node_label_key
                                                       : ssn_->params().gpu_worker_node_label_key;
      if (labels.find(key) == labels.end()) {
        return {"node(s) didn't have the " + key + " label"};
      }
    }
    return {};
  }

  // Free pod slots (Idle + Releasing), less the reservation pods the binder still has to
  // create for shared GPU groups opened in this session (or held by pods whose reservation pod is
  // not in the snapshot): KAI counts only the pod, so that several new groups could together take
  // more slots than the node has (see docs/scheduler-behaviour.md).
  static int64_t FreePodSlots(const NodeInfo& node) {
    return static_cast<int64_t>(node.idle.pods() + node.releasing.pods()) -
           node.NumGroupsWithoutReservationPod();
  }

  // KAI requires 2 free slots for a shared-GPU pod that opens a new group (§8.1 item 4); a
  // multi-device request may open several.
  static int64_t NeededPodSlots(const PodInfo& task, const NodeInfo& node) {
    if (!task.IsSharedGpuRequest()) return 1;
    int64_t devices = std::max<int64_t>(task.gpu_req.NumDevices(), 1);
    int64_t fitting = 0;
    for (const auto& [group, mem] : node.used_shared_gpus_memory) {
      if (fitting < devices && node.IsTaskFitOnGpuGroup(task, group)) ++fitting;
    }
    return 1 + (devices - fitting);
  }

  Session* ssn_ = nullptr;
  ResourceVector max_allocatable_;
  std::map<const NodeInfo*, int> node_ids_;
  std::unique_ptr<k8s::PodAffinityIndex> affinity_index_;
  std::map<const api::Pod*, std::string> placed_on_;
  std::map<std::string, TaskState> states_;
};

}  // namespace

std::unique_ptr<Plugin> NewPredicatesPlugin(const PluginArguments&) {
  return std::make_unique<PredicatesPlugin>();
}

}  // namespace kai::scheduler
