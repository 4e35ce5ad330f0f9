// PodGroupInfo: KAI's job (pkg/scheduler/api/podgroup_info), with its PodSets (leaf subgroups,
// each a gang with minAvailable) and SubGroupSets (inner nodes), reference §6.6 and §11.1.
//
// Tasks are owned by the ClusterInfo; a job and its PodSets hold pointers. Counts are computed
// from the tasks' live status, so a partial clone of a job (used by the victim solver) sees every
// status change made through the session without extra bookkeeping.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/podgroup.h"
#include "kube/base/clock.h"
#include "scheduler/api/fit_errors.h"
#include "scheduler/api/pod_info.h"

namespace kai::scheduler {

inline constexpr std::string_view kDefaultSubGroup = "default";
inline constexpr int32_t kDefaultPodGroupPriority = 50;
inline constexpr int32_t kPreemptibleThreshold = 100;

struct TopologyConstraintInfo {
  std::string topology;
  std::string required_level;
  std::string preferred_level;
  bool operator==(const TopologyConstraintInfo&) const = default;
};

class SubGroupSet;
class QueueInfo;

// What a per-job memo was computed at (framework/job_state_generation.h); all zero: never.
struct JobStateStamp {
  uint64_t snapshot = 0;   // process-wide snapshot generation
  uint64_t structure = 0;  // process-wide structure generation
  uint64_t global = 0;     // process-wide job-state generation
  uint64_t job = 0;        // the job's status_version
};

class PodSet {
 public:
  PodSet(std::string name, int32_t min_available, std::optional<TopologyConstraintInfo> topology)
      : name_(std::move(name)), min_available_(min_available), topology_(std::move(topology)) {}

  const std::string& name() const { return name_; }
  int32_t min_available() const { return min_available_; }
  void set_min_available(int32_t m) { min_available_ = m; }
  const std::optional<TopologyConstraintInfo>& topology() const { return topology_; }
  const std::vector<PodInfo*>& tasks() const { return tasks_; }
  void AddTask(PodInfo* t) { tasks_.push_back(t); }
  SubGroupSet* parent() const { return parent_; }
  void set_parent(SubGroupSet* p) { parent_ = p; }

  int NumActiveAllocated() const;
  int NumActiveUsed() const;
  int NumAlive() const;
  int NumGated() const;
  int NumPending() const;
  bool IsReadyForScheduling() const { return NumAlive() - NumGated() >= min_available_; }
  bool IsGangSatisfied() const { return NumActiveUsed() >= min_available_; }
  bool IsElastic() const { return min_available_ < static_cast<int32_t>(tasks_.size()); }
  // Takes `o`'s minimum and topology (same name) and drops the tasks (PodGroupInfo::AssignFrom).
  void AssignStructureFrom(const PodSet& o);

 private:
  std::string name_;
  int32_t min_available_;
  std::optional<TopologyConstraintInfo> topology_;
  std::vector<PodInfo*> tasks_;
  SubGroupSet* parent_ = nullptr;
};

class SubGroupSet {
 public:
  SubGroupSet(std::string name, std::optional<TopologyConstraintInfo> topology)
      : name_(std::move(name)), topology_(std::move(topology)) {}

  const std::string& name() const { return name_; }
  const std::optional<TopologyConstraintInfo>& topology() const { return topology_; }
  SubGroupSet* parent() const { return parent_; }

  SubGroupSet* AddSubGroupSet(std::unique_ptr<SubGroupSet> child);
  PodSet* AddPodSet(std::unique_ptr<PodSet> child);
  const std::vector<std::unique_ptr<SubGroupSet>>& child_sets() const { return child_sets_; }
  const std::vector<std::unique_ptr<PodSet>>& pod_sets() const { return pod_sets_; }
  // All PodSets of the subtree, in tree order.
  std::vector<PodSet*> DescendantPodSets() const;

  bool IsReadyForScheduling() const;
  bool IsGangSatisfied() const;
  // Deep copy of the structure (no tasks).
  std::unique_ptr<SubGroupSet> CloneStructure() const;
  // When this tree has `o`'s shape (the same names at the same places), takes `o`'s minimums and
  // topologies in place, drops every task and returns true; false (partly assigned) otherwise.
  bool AssignStructureFrom(const SubGroupSet& o);

 private:
  std::string name_;
  std::optional<TopologyConstraintInfo> topology_;
  SubGroupSet* parent_ = nullptr;
  std::vector<std::unique_ptr<SubGroupSet>> child_sets_;
  std::vector<std::unique_ptr<PodSet>> pod_sets_;
};

class PodGroupInfo {
 public:
  // Builds the job (and its subgroup tree) from a PodGroup. Invalid subgroup definitions are
  // reported in *error (the job then has no PodSets and cannot be scheduled).
  PodGroupInfo(std::shared_ptr<const api::PodGroup> pg, int32_t priority, std::string* error);
  // A copy that shares the given tasks (which must belong to `other`), used for partial jobs and
  // victim representatives.
  PodGroupInfo(const PodGroupInfo& other, const std::vector<PodInfo*>& tasks);
  // A full copy for another snapshot whose copies of this job's tasks are
  // `by_slot[task->snapshot_slot]`: structure, tasks in the same order, fit errors. Session memos
  // (queue, tasks to allocate, signature) start empty.
  std::unique_ptr<PodGroupInfo> CloneWithTasks(const std::vector<PodInfo*>& by_slot) const;
  // Makes this job what `o.CloneWithTasks(by_slot)` would be, reusing this job's subgroup tree
  // (when it has the same shape), vectors and strings: a recycled snapshot's job
  // (ClusterModel::Recycle) is usually the same job as before.
  void AssignFrom(const PodGroupInfo& o, const std::vector<PodInfo*>& by_slot);
  PodGroupInfo(const PodGroupInfo&) = delete;
  PodGroupInfo& operator=(const PodGroupInfo&) = delete;

  const PodGroupId& uid() const { return uid_; }
  const std::string& name() const { return pg_->metadata.name; }
  const std::string& namespace_() const { return pg_->metadata.namespace_; }
  const std::string& queue() const { return pg_->spec.queue; }
  const api::PodGroup& podgroup() const { return *pg_; }
  const std::shared_ptr<const api::PodGroup>& podgroup_ptr() const { return pg_; }
  int32_t priority() const { return priority_; }
  bool IsPreemptible() const { return preemptible_; }
  WallTime creation_time() const { return creation_time_; }

  std::optional<WallTime> last_start_timestamp;
  std::optional<WallTime> stale_timestamp;
  bool stale = false;
  // The PodGroup was made up by the snapshot for a pod without one (a gang of one, as KAI's pod
  // grouper would create): no PodGroup object exists, so nothing is written to it.
  bool implicit = false;

  // Tasks whose subgroup exists; invalid ones are kept apart (never scheduled).
  const std::vector<PodInfo*>& tasks() const { return tasks_; }
  const std::vector<PodInfo*>& invalid_subgroup_tasks() const { return invalid_tasks_; }
  // Attaches a task to its PodSet; false when the PodSet does not exist.
  bool AddTask(PodInfo* task);

  SubGroupSet* root() const { return root_.get(); }
  // Leaf PodSets by name.
  const std::map<std::string, PodSet*, std::less<>>& pod_sets() const { return pod_sets_; }
  PodSet* FindPodSet(std::string_view name) const;
  PodSet* PodSetOf(const PodInfo& task) const;

  int NumActiveAllocated() const;
  int NumActiveUsed() const;
  int NumAlive() const;
  int NumAllocated() const;
  int NumPending() const;
  int NumGated() const;
  int NumSucceeded() const;
  bool HasPendingTasks() const;
  bool IsReadyForScheduling() const;
  bool IsGangSatisfied() const;
  bool IsElastic() const;
  bool IsStale() const;
  // Some PodSet has pipelined tasks and is below its minimum (§7.3 step 3).
  bool ShouldPipelineJob() const;
  // minAvailable of the "default" PodSet (or the sum of all PodSets' minimums).
  int32_t DefaultMinAvailable() const;
  // Sum of requested resources of tasks in allocated statuses.
  ResourceVector AllocatedResources(int vector_size) const;
  std::vector<PodInfo*> PendingTasks() const;

  // The job's queue in the session's snapshot, resolved once (queues do not change during a
  // session); nullptr when the queue does not exist.
  mutable const QueueInfo* cached_queue = nullptr;
  mutable bool queue_resolved = false;

  // Signature over the PodSets' task signatures (§7.7).
  const std::string& SchedulingConstraintsSignature() const;

  // Memo of the actions' "tasks to allocate" (actions/common/allocation.cc): KAI caches the list
  // on the job and drops it when one of its tasks changes status (reference §7.2). Here the memo
  // is keyed by the statuses themselves (and the PodSets' minimums), so no status change can be
  // missed. One entry per mode (real allocation / simulation).
  struct TasksToAllocateMemo {
    bool valid = false;
    // When the key last matched (framework/job_state_generation.h): while the stamp holds, none
    // of the job's task statuses or PodSet minimums changed, so the key needs no re-check.
    JobStateStamp stamp;
    std::vector<uint16_t> key;
    std::vector<PodInfo*> tasks;
    bool has_init_resource = false;
    ResourceVector init_resource;
  };
  mutable TasksToAllocateMemo tasks_to_allocate_memo[2];

  // Memo of the job-order plugins' ranks (framework Session::JobOrderLess), valid while its
  // stamp holds.
  struct JobOrderKeyMemo {
    JobStateStamp stamp;
    int64_t ranks[4] = {};
  };
  mutable JobOrderKeyMemo job_order_key_memo;
  // A yes/no fact about the job's task statuses, valid while its stamp holds for statuses
  // (JobStatusStampHolds: a partial job's minimums do not matter).
  struct FlagMemo {
    JobStateStamp stamp;
    bool value = false;
  };
  // The victim queues' "has a live pod on an existing node" (actions/common/victims.cc): a pod's
  // status and node change only with a status write.
  mutable FlagMemo alive_memo;
  // "Has a Pending task", asked of every pending job by each victim simulation.
  mutable FlagMemo pending_memo;
  // "Has an active-allocated task", asked of every job of the cluster by each victim queue.
  mutable FlagMemo active_allocated_memo;
  // IsReadyForScheduling of a job of the session's map (whose PodSet minimums do not change),
  // asked of every job by each job-order queue that filters unready jobs.
  mutable FlagMemo ready_memo;
  // Bumped by the session whenever one of this job's tasks changes status (framework
  // job_state_generation.h); 0 for a copy outside the session's job map (a partial job, a victim
  // representative), whose memos follow the process-wide generation instead.
  mutable uint64_t status_version = 0;
  // The job's place in the session's job map (0..n-1), set with status_version: per-job memos
  // of plugins live in tables by this index. Meaningless while status_version is 0.
  mutable uint32_t session_index = 0;

  // Unschedulable explanations.
  std::vector<JobFitError> job_fit_errors;
  std::map<std::string, TaskFitErrors> task_fit_errors;  // by task uid
  void AddJobFitError(std::string reason, std::string message,
                      std::optional<QueueDetails> details = std::nullopt);
  void AddTaskFitErrors(const PodInfo& task, const TaskFitErrors& errors);
  // The same as AddTaskFitErrors with one node's error, without a temporary TaskFitErrors (this
  // runs for every node a task that fits nowhere is tried on).
  void AddTaskNodeError(const PodInfo& task, const NodeFitError& error);
  // While > 0 the three above record nothing: a victim job re-placed in a victim simulation
  // (actions/common/victims.cc) is not told why a hypothetical move failed.
  int fit_errors_muted = 0;

 private:
  void IndexPodSets();
  // The PodGroup and its attributes (not the structure, tasks or session memos) of `o`: what the
  // copy constructor and AssignFrom share.
  void CopyAttributesFrom(const PodGroupInfo& o);
  // Appends `o`'s tasks (valid and invalid) as their copies `by_slot[task->snapshot_slot]`, and
  // copies its fit errors.
  void CopyTasksFrom(const PodGroupInfo& o, const std::vector<PodInfo*>& by_slot);

  std::shared_ptr<const api::PodGroup> pg_;
  PodGroupId uid_;
  int32_t priority_ = kDefaultPodGroupPriority;
  bool preemptible_ = true;
  WallTime creation_time_{};
  std::unique_ptr<SubGroupSet> root_;
  std::map<std::string, PodSet*, std::less<>> pod_sets_;
  std::vector<PodInfo*> tasks_;
  std::vector<PodInfo*> invalid_tasks_;
  mutable std::string signature_;
};

// Preemptibility rule (§4.3).
bool IsPreemptible(std::string_view preemptibility, int32_t priority);

}  // namespace kai::scheduler
