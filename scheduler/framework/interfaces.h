// Plugin and action interfaces, the hook function types plugins register on a Session, and the
// sink through which committed decisions leave the scheduling core
// (KAI pkg/scheduler/framework/interface.go, api/types.go, cache.Cache).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/statusor.h"
#include "scheduler/api/cluster_info.h"

namespace kai::scheduler {

class Session;

// Action names (KAI framework.ActionType).
inline constexpr std::string_view kActionAllocate = "allocate";
inline constexpr std::string_view kActionConsolidation = "consolidation";
inline constexpr std::string_view kActionReclaim = "reclaim";
inline constexpr std::string_view kActionPreempt = "preempt";
inline constexpr std::string_view kActionStaleGangEviction = "stalegangeviction";

class Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view Name() const = 0;
  virtual void Execute(Session* ssn) = 0;
};

using PluginArguments = std::map<std::string, std::string>;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
  // Registers hooks on the session; called in tier order when the session opens.
  virtual void OnSessionOpen(Session* ssn) = 0;
  virtual void OnSessionClose(Session* ssn) {}
};

// A set of nodes (KAI node_info.NodeSet), in a meaningful order.
using NodeSet = std::vector<NodeInfo*>;

// The subgroup a SubsetNodes call is about (root SubGroupSet, a SubGroupSet or a PodSet).
struct SubGroupRef {
  std::string name;
  const std::optional<TopologyConstraintInfo>* topology = nullptr;
  bool is_root = false;
};

// Result of a capacity check (KAI api.SchedulableResult).
struct SchedulableResult {
  bool schedulable = true;
  std::string reason;
  std::string message;
  std::optional<QueueDetails> details;
};

// Metadata of an eviction (KAI eviction_info.EvictionMetadata).
struct EvictionMetadata {
  std::string action;
  int gang_size = 0;
  std::optional<PodGroupId> preemptor;
};

// A victim job of a scenario: the tasks chosen from it, a representative clone holding exactly
// those tasks, and the original job.
struct VictimInfo {
  const PodGroupInfo* job = nullptr;             // clone with the victim tasks
  const PodGroupInfo* representative = nullptr;  // the session's job
  std::vector<PodInfo*> tasks;
};

// What validators see of a victim scenario (KAI api.ScenarioInfo).
class ScenarioInfo {
 public:
  virtual ~ScenarioInfo() = default;
  virtual const PodGroupInfo& GetPreemptor() const = 0;
  virtual const std::map<PodGroupId, VictimInfo>& GetVictims() const = 0;
  virtual const std::vector<PodInfo*>& PendingTasks() const = 0;
  // A scenario that grows (a victim search adds victims to one scenario) may log its victims as
  // they change, so that a check holding for every larger scenario (a final rejection) reads
  // only what changed since it last saw this scenario: Serial() is unique in the process (0: no
  // log), VictimUpdates() the victims in order of change, one entry each time a victim gains
  // tasks (entries point into GetVictims()).
  virtual uint64_t Serial() const { return 0; }
  virtual std::span<const VictimInfo* const> VictimUpdates() const { return {}; }
  // While a simulation's outcome is validated: the victims it may have changed, in GetVictims()
  // order. Every other victim is as the search found it, all its tasks active-allocated (a
  // simulation evicts the victims of one node, a long search's scenario holds hundreds). Null:
  // unknown, any victim may have changed.
  virtual const std::vector<const VictimInfo*>* SimulationTouchedVictims() const { return nullptr; }
};

// Hook types.
using JobCompareFn = std::function<int(const PodGroupInfo& l, const PodGroupInfo& r)>;
// A job-order key (Session::AddJobOrderRankFn): lower ranks come first.
using JobRankFn = int64_t (*)(const PodGroupInfo& job);
using TaskCompareFn = std::function<int(const PodInfo& l, const PodInfo& r)>;
using TaskRankFn = int64_t (*)(const PodInfo& task);
using PodSetCompareFn = std::function<int(const PodSet& l, const PodSet& r)>;
using QueueCompareFn =
    std::function<int(const QueueInfo& l, const QueueInfo& r, const PodGroupInfo* l_job,
                      const PodGroupInfo* r_job, const std::vector<const PodGroupInfo*>& l_victims,
                      const std::vector<const PodGroupInfo*>& r_victims)>;
// An error message when the task cannot be scheduled at all.
using PrePredicateFn =
    std::function<std::optional<std::string>(const PodInfo& task, const PodGroupInfo& job)>;
// Reasons the node is unfit; empty = fits.
using PredicateFn = std::function<std::vector<std::string>(
    const PodInfo& task, const PodGroupInfo& job, const NodeInfo& node)>;
using NodePreOrderFn = std::function<void(const PodInfo& task, const NodeSet& nodes)>;
// nullopt = the node could not be scored (it is dropped).
using NodeOrderFn = std::function<std::optional<double>(const PodInfo& task, const NodeInfo& node)>;
// The same for many nodes at once: adds node i's score to scores[i], or sets failed[i] when the
// node cannot be scored. One call per task instead of one per node lets a plugin decide once
// what depends on the task alone (most add nothing for most tasks).
using NodeOrderBatchFn =
    std::function<void(const PodInfo& task, std::span<const NodeInfo* const> nodes,
                       std::span<double> scores, std::span<uint8_t> failed)>;
using GpuOrderFn = std::function<std::optional<double>(const PodInfo& task, const NodeInfo& node,
                                                       const std::string& gpu_group)>;
// The subsets of `nodes` to try, in order (empty: none fits); nullopt: `nodes` whole, unsplit
// (not copied: it is usually every node of the cluster).
using SubsetNodesFn = std::function<StatusOr<std::optional<std::vector<NodeSet>>>(
    const PodGroupInfo& job, const SubGroupRef& subgroup, const std::vector<PodSet*>& pod_sets,
    const std::vector<PodInfo*>& tasks, const NodeSet& nodes)>;
using CanReclaimResourcesFn = std::function<bool(const PodGroupInfo& reclaimer)>;
using VictimFilterFn = std::function<bool(const PodGroupInfo& pending, const PodGroupInfo& victim)>;
using ScenarioValidatorFn = std::function<bool(const ScenarioInfo& scenario)>;
using OnJobSolutionStartFn = std::function<void()>;
using PreJobAllocationFn = std::function<void(const PodGroupInfo& job)>;
using IsJobOverCapacityFn =
    std::function<SchedulableResult(const PodGroupInfo& job, const std::vector<PodInfo*>& tasks)>;
using IsTaskAllocationOverCapacityFn = std::function<SchedulableResult(
    const PodInfo& task, const PodGroupInfo& job, const NodeInfo& node)>;
// Queue numbers for messages and reports, in the units the proportion plugin keeps: GPUs, CPU
// millicores, memory bytes. A struct, not a name -> value map: a reclaim eviction batch reads six
// of them before its first eviction, and the maps were 3.5% of L reclaim. (Not api::QueueResources,
// a Queue's quota, limit and weight per resource.)
struct QueueQuantities {
  double gpu = 0;
  double cpu = 0;
  double memory = 0;
  // By resource name ("gpu", "cpu", "memory"), as reports and messages print them.
  std::map<std::string, double> ToMap() const {
    return {{"gpu", gpu}, {"cpu", cpu}, {"memory", memory}};
  }
};
using QueueResourceFn = std::function<std::optional<QueueQuantities>(const QueueInfo& queue)>;
using BindRequestMutateFn =
    std::function<std::map<std::string, std::string>(const PodInfo& task, const std::string& node)>;

// Called for every statement allocate/pipeline (Allocate) and evict/undo (Deallocate).
struct EventHandler {
  std::function<void(const PodInfo& task)> allocate;
  std::function<void(const PodInfo& task)> deallocate;
};

// Decisions leaving the core when a statement commits (KAI cache.Cache: Bind, Evict,
// TaskPipelined, RecordJobStatusEvent). The live mode writes BindRequests, deletes pods and
// patches statuses; simulate records them.
struct BindDecision {
  std::string pod_key;
  std::string node;
  std::string received_resource_type;  // Regular | Fraction | MigInstance
  int gpu_count = 0;
  std::string gpu_portion;  // "%.2f"
  std::vector<std::string> gpu_groups;
  std::map<std::string, std::string> annotations;
  const PodInfo* task = nullptr;  // the session's task (pod, UID, labels)
};

struct EvictDecision {
  std::string pod_key;
  std::string podgroup;  // namespace/name
  std::string message;
  EvictionMetadata metadata;
  const PodInfo* task = nullptr;
};

struct PipelineDecision {
  std::string pod_key;
  std::string node;
  std::string message;
  const PodInfo* task = nullptr;
};

class DecisionSink {
 public:
  virtual ~DecisionSink() = default;
  // Returns OK once the decision is written, or, while BindsDeferred(), once it is issued: its
  // outcome is then known only at JoinBinds().
  virtual Status Bind(const BindDecision& d) = 0;
  // Whether Bind() currently returns before the BindRequest's creation is answered.
  virtual bool BindsDeferred() const { return false; }
  // Waits for every deferred Bind() and returns the pod keys whose BindRequest was not written
  // (refused), in issue order. Their allocations are the caller's to undo.
  virtual std::vector<std::string> JoinBinds() { return {}; }
  virtual Status Evict(const EvictDecision& d) = 0;
  virtual void Pipelined(const PipelineDecision& d) = 0;
  // Session close: per job, the annotations and unschedulable explanation to persist (§21.2).
  virtual void RecordJobStatus(const PodGroupInfo& job, bool stale_changed,
                               bool last_start_changed) {}
};

}  // namespace kai::scheduler
