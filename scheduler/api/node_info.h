// NodeInfo: a node's accounting during a session (KAI pkg/scheduler/api/node_info), including
// shared-GPU groups tracked in MiB (§6.5, §12.3) and MIG (§12.6).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/node.h"
#include "scheduler/api/assign_in_place.h"
#include "scheduler/api/fit_errors.h"
#include "scheduler/api/mirrored_version.h"
#include "scheduler/api/pod_info.h"
#include "scheduler/api/resource.h"

namespace kai::scheduler {

inline constexpr int64_t kDefaultGpuMemoryMib = 100;
// Stands for "a whole free GPU" among the candidate GPU groups of a node (KAI WholeGpuIndicator).
inline constexpr std::string_view kWholeGpuIndicator = "-2";

enum class MigStrategy { kNone, kSingle, kMixed };

// Node-level facts derived once per node version (labels, conditions).
struct NodeFacts {
  int64_t gpu_memory_mib = kDefaultGpuMemoryMib;
  bool gpu_memory_synced = false;
  std::optional<int64_t> gpu_count_label;
  std::optional<bool> mig_enabled_label;
  MigStrategy mig_strategy_label = MigStrategy::kNone;
  // Ready and schedulable (conditions and spec.unschedulable), with the failing reasons.
  bool ready = true;
  std::vector<std::string> condition_reasons;
  bool unschedulable = false;
};

NodeFacts ComputeNodeFacts(const api::Node& node, std::string_view mig_worker_label_key);

class NodeInfo {
 public:
  // What the node remembers of a task it hosts (a copy: later status changes of the task do
  // not affect the node until UpdateTask).
  struct Entry {
    const PodInfo* task = nullptr;
    PodStatus status = PodStatus::kPending;
    bool is_virtual_status = false;
    bool shared_allocation = false;
    bool reservation = false;
    bool other_scheduler = false;  // the task's of_other_scheduler, read without the task
    ResourceVector tracked;        // accepted resources, GPU zeroed for shared / reservation pods
    int64_t gpu_memory = 0;        // per shared group
    std::vector<std::string> groups;
  };

  NodeInfo(std::shared_ptr<const api::Node> node, const NodeFacts& facts,
           const ResourceVectorMap* vector_map, const ResourceVector& allocatable);

  const std::string& name() const { return node_->metadata.name; }
  const api::Node& node() const { return *node_; }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_; }
  const NodeFacts& facts() const { return facts_; }
  const ResourceVectorMap& vector_map() const { return *vector_map_; }
  // Position of the node in name order among the session's nodes (1-based; 0 = not ranked), set
  // by the Session so that ordering nodes compares integers instead of names.
  int name_rank() const { return name_rank_; }
  void set_name_rank(int r) { name_rank_ = r; }

  ResourceVector allocatable;
  ResourceVector idle;
  ResourceVector used;
  ResourceVector releasing;
  int max_task_num = 0;
  int64_t memory_of_every_gpu = kDefaultGpuMemoryMib;
  bool gpu_memory_synced = false;

  // Shared GPU accounting, per GPU group (MiB).
  std::set<std::string> releasing_shared_gpus;
  std::map<std::string, int64_t> used_shared_gpus_memory;
  std::map<std::string, int64_t> releasing_shared_gpus_memory;
  std::map<std::string, int64_t> allocated_shared_gpus_memory;
  std::map<std::string, std::string> legacy_mig_tasks;  // uid -> key

  // Tasks by pod key.
  const std::map<std::string, Entry>& tasks() const { return tasks_; }
  bool HasTask(const std::string& key) const { return tasks_.count(key) > 0; }
  // The task's entry (nullptr: none), through the hint the task keeps while this map's entries
  // stay where they were, else by key: evictions, their rollbacks and pipelines look the same few
  // tasks up again and again, and the string-keyed searches were ~5% of a victim search.
  const Entry* FindEntry(const PodInfo& task) const;
  int NumTasks() const { return static_cast<int>(tasks_.size()); }
  // Whether an entry (a shadow of a moved shared task too) is of another scheduler's pod: the
  // fair-share totals subtract those, and every session asks of every node.
  bool HasOtherSchedulerTasks() const { return other_scheduler_entries_ > 0; }

  // A process-wide counter that every change of any node's accounting bumps (tasks added,
  // removed, updated or moved between GPU groups, GPU state restored by a rollback). Caches of
  // "which nodes have room for a task" (framework/resource_fit_cache.h) compare it: shared by
  // every session, so it can only invalidate too often, never too rarely.
  static uint64_t AccountingGeneration();
  // This node's accounting version: the AccountingGeneration of its latest change (0 = never
  // changed), so a cache can tell which nodes changed since it last looked.
  uint64_t accounting_version() const { return accounting_version_.get(); }
  // Also write the accounting version into slot `slot` of `table` from now on (nullptr: stop); see
  // mirrored_version.h. A copy of the node does not mirror.
  void MirrorAccountingVersion(VersionTable* table, size_t slot) {
    accounting_version_.MirrorInto(table, slot);
  }
  // The table the version is mirrored into (nullptr: none) and its slot there.
  const VersionTable* accounting_version_table() const { return accounting_version_.table(); }
  size_t accounting_version_slot() const { return accounting_version_.slot(); }
  // For code that writes the accounting fields directly (Statement rollback).
  void MarkAccountingChanged() { Touched(); }

  // After copying a NodeInfo into another snapshot: use that snapshot's vector map and its
  // copies of the tasks (`by_slot[task->snapshot_slot]`).
  void RebindTasks(const ResourceVectorMap* vector_map, const std::vector<PodInfo*>& by_slot);

  // Adds a task (sets its accepted resources first); false when already present.
  bool AddTask(PodInfo* task);
  bool RemoveTask(const PodInfo& task);
  bool UpdateTask(PodInfo* task);
  // Moves a shared-GPU task to another GPU group on this node: the old placement stays
  // accounted (its pod still holds the old group until evicted) under a shadow key.
  bool ConsolidateSharedTaskToDifferentGpu(PodInfo* task);
  // Undoes ConsolidateSharedTaskToDifferentGpu: drops the new placement, restores the old one.
  bool RestoreConsolidatedSharedTask(const PodInfo& task);

  // Fit checks (§6.5).
  bool IsTaskAllocatable(const PodInfo& task) const;
  bool IsTaskAllocatableOnReleasingOrIdle(const PodInfo& task) const;
  // The two checks above (less IsTaskAllocatable's best-effort shortcut) against resources
  // materialised by AvailableResources, for callers that keep them across many tasks
  // (framework/node_fit_view.h).
  bool IsTaskAllocatableWithin(const PodInfo& task, const ResourceVector& available) const;
  // What those checks compare a request with: Idle (+ Releasing), less the pod slots of
  // reservation pods still to be created.
  ResourceVector AvailableResources(bool with_releasing) const;
  // Allocatable - used per resource, the used GPUs counting the shared ones in use: what
  // FittingFailures compares a request with once it does not fit in Idle.
  ResourceVector UnusedResources() const;
  // FittingFailures' flags past its test against Idle, against resources UnusedResources
  // materialised (framework/node_fit_view.h keeps them across many tasks).
  FitFailures FailuresWithin(const PodInfo& task, const ResourceVector& unused) const;
  // Why the task does not fit in Idle (insufficient-resource messages).
  std::optional<NodeFitError> FittingError(const PodInfo& task, bool gang) const;
  // FittingError's checks without its strings (nullopt: fits in Idle), and the reasons they
  // stand for: FittingError is FitFailureReasons(FittingFailures(...)).
  std::optional<FitFailures> FittingFailures(const PodInfo& task) const;
  // FittingFailures where IsTaskAllocatable is false, nullopt elsewhere: what a node records for
  // a task that fits nowhere (one comparison with Idle instead of two where both make the same).
  std::optional<FitFailures> FittingFailuresUnlessAllocatable(const PodInfo& task) const;
  std::vector<std::string> FitFailureReasons(const FitFailures& f) const;
  // MIG / DRA / legacy-MIG compatibility (§8.1 item 2); empty when compatible.
  std::optional<std::string> PredicateByNodeResourcesType(const PodInfo& task) const;

  double NonAllocatedResource(int index) const { return idle.Get(index) + releasing.Get(index); }
  // Whole idle GPUs plus free parts of shared groups; and the same in MiB.
  std::pair<double, int64_t> SumOfIdleGpus() const;
  std::pair<double, int64_t> SumOfReleasingGpus() const;
  // SumOfIdleGpus().first + SumOfReleasingGpus().first, memoized per accounting version: victim
  // searches ask it of every node once per job they search for.
  double IdleAndReleasingGpus() const;
  // Whether some GPU is idle or releasing here (SumOfIdleGpus or SumOfReleasingGpus positive),
  // memoized as IdleAndReleasingGpus is: victim searches ask it of every node once per job.
  bool HasIdleOrReleasingGpus() const;
  int64_t NumberOfGpusInNode() const;
  bool IsCpuOnlyNode() const;
  bool IsMigEnabled() const;
  MigStrategy GetMigStrategy() const;

  int64_t ResourceGpuMemory(const GpuRequirement& r) const;
  double ResourceGpuPortion(const GpuRequirement& r) const;
  bool IsValidGpuPortion(const GpuRequirement& r) const;
  double GpuMemoryFractionOnNode(int64_t memory) const;
  // Quota the task would consume on this node (GPU-memory requests converted with this node's
  // GPU memory).
  ResourceVector RequiredInitQuota(const PodInfo& task) const;

  // Shared GPU helpers.
  // The shared GPU groups a fractional task fits in, up to its device count (what IsTaskAllocatable
  // adds to the whole idle GPUs).
  int64_t FractionTaskGpusAllocatableDeviceCount(const PodInfo& task) const;
  // At most how many device slots of `need` MiB the node's GPUs still hold for shared-GPU pods:
  // each group's multiples of `need` within its free memory, and each whole idle or releasing
  // GPU's. Placing any pod lowers it or leaves it (a shared pod takes `need` from a group, or
  // starts a group on a whole GPU; a whole-GPU pod takes whole GPUs); victim searches bound a
  // preemptor with it. Infinity when `need` or the node's GPU memory is not positive.
  double SharedGpuSlots(int64_t need) const;
  bool IsTaskFitOnGpuGroup(const PodInfo& task, const std::string& group) const;
  // The shared GPU groups the task fits on (IsTaskFitOnGpuGroup), in group order, at most
  // `limit` of them (-1 = all). One ordered walk over the accounting maps instead of three
  // lookups per group: this runs for every node a fractional task is scored on.
  int CountFittingGpuGroups(const PodInfo& task, int limit) const;
  std::vector<std::string> FittingGpuGroups(const PodInfo& task) const;
  bool EnoughIdleResourcesOnGpu(const GpuRequirement& r, const std::string& group) const;
  // Whether any shared-GPU accounting or reservation pod of the node names the group.
  bool KnowsGpuGroup(const std::string& group) const;
  // Used portion of a group (0..1); nullopt when the node's GPU memory is unusable.
  std::optional<double> UsedGpuPortion(const std::string& group) const;
  int NumberOfUsedSharedGpus() const;
  int NumberOfAllocatedSharedGpus() const;
  // Shared GPU groups in use whose reservation pod is not on the node (yet): the binder creates
  // one per group when it binds the first pod, and it takes a pod slot.
  int NumGroupsWithoutReservationPod() const;

 private:
  // Every accounting change: drops the memo below and bumps AccountingGeneration.
  void Touched();
  void SetAcceptedResources(PodInfo* task) const;
  Entry MakeEntry(const PodInfo& task) const;
  void AddEntryResources(const Entry& e);
  void RemoveEntryResources(const Entry& e);
  void AddSharedPerGroup(const Entry& e, const std::string& group);
  void RemoveSharedPerGroup(const Entry& e, const std::string& group);
  void DropGroupIfUnused(const std::string& group);
  // V: a ResourceVector or anything with size() and Get(i) (node_info.cc's AvailableView).
  template <typename V>
  bool IsTaskAllocatableOn(const PodInfo& task, const V& vec) const;
  template <typename V>
  bool LessEqualTaskToNodeResources(const PodInfo& task, const V& vec) const;
  // FittingFailures past its test against Idle: requests against allocatable - used.
  FitFailures FailuresAgainstUsed(const PodInfo& task) const;
  // V: a ResourceVector or anything with Get(i) (node_info.cc's UnusedView).
  template <typename V>
  FitFailures FailuresAgainst(const PodInfo& task, const V& unused) const;
  int CountFittingGpuGroupsUncached(int64_t need) const;
  static constexpr size_t kMaxFitMemo = 8;
  int NumberOfUsedGpus() const;
  bool IsGpuReleasingFromSharedTasks(const std::string& group) const;
  bool EnoughResourcesOnGpu(const GpuRequirement& r, const std::string& group) const;
  bool IsAllGpuReleased(const std::string& group) const;
  // Calls f(group, used, allocated, releasing) for every group of used_shared_gpus_memory in
  // key order (missing entries of the other maps are 0); stops when f returns false.
  template <typename F>
  void ForEachSharedGroup(F&& f) const;
  int64_t Lookup(const std::map<std::string, int64_t>& m, const std::string& k) const {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }

  std::shared_ptr<const api::Node> node_;
  NodeFacts facts_;
  const ResourceVectorMap* vector_map_;
  // Copy-assignment reuses the entries of tasks present in both nodes (a recycled snapshot).
  InPlaceMap<std::string, Entry> tasks_;
  // Names where tasks_'s entries are: a value never used before, drawn again whenever an entry
  // is added or removed and by every copy (a copy's entries are elsewhere), so that a hint taken
  // under it holds exactly while it stands.
  class Layout {
   public:
    Layout() : value_(Next()) {}
    Layout(const Layout& /*other*/) : value_(Next()) {}
    Layout& operator=(const Layout& /*other*/) {
      value_ = Next();
      return *this;
    }
    ~Layout() = default;
    void Changed() { value_ = Next(); }
    uint64_t value() const { return value_; }

   private:
    static uint64_t Next();
    uint64_t value_;
  };
  Layout tasks_layout_;
  int other_scheduler_entries_ = 0;          // entries of tasks_ with other_scheduler set
  Entry* MutableEntry(const PodInfo& task);  // FindEntry, for UpdateTask to write the entry
  // GPU groups of the reservation pods on the node (count of pods per group).
  std::map<std::string, int> reservation_groups_;
  // NumGroupsWithoutReservationPod, -1 = not known (it walks the shared-GPU maps, and every
  // resource check of every node asks for it).
  mutable int missing_reservations_ = -1;
  // NumberOfUsedSharedGpus, -1 = not known (every fit error of every node asks for it; the
  // shared-GPU maps change only where missing_reservations_ is reset).
  mutable int used_shared_gpus_ = -1;
  int name_rank_ = 0;
  MirroredVersion accounting_version_;
  // CountFittingGpuGroups without a limit, per requested GPU memory, valid while the accounting
  // version is fit_memo_version_: victim simulations ask it of the same unchanged nodes for every
  // scenario (resource checks, FittingNode, two node-order plugins), and each answer walks three
  // string-keyed maps.
  struct FitMemo {
    int64_t need;
    int count;
  };
  mutable uint64_t fit_memo_version_ = 0;
  mutable std::vector<FitMemo> fit_memo_;
  // IdleAndReleasingGpus and HasIdleOrReleasingGpus, valid while the accounting version is
  // gpu_capacity_version_ (not 0).
  mutable uint64_t gpu_capacity_version_ = 0;
  mutable double gpu_capacity_ = 0;
  mutable bool has_idle_or_releasing_gpus_ = false;
};

}  // namespace kai::scheduler
