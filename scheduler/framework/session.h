// Session: one scheduling cycle over a snapshot (KAI pkg/scheduler/framework/session.go and
// session_plugins.go). Plugins register hooks when the session opens; actions consult the hooks
// through the combination methods below and change the snapshot only through Statements.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/api/version_table.h"
#include "scheduler/conf/scheduler_conf.h"
#include "scheduler/framework/failed_search_backoff.h"
#include "scheduler/framework/interfaces.h"
#include "scheduler/framework/node_subsets.h"
#include "scheduler/framework/resource_fit_cache.h"

namespace kai::scheduler {

class Statement;
class PluginRegistry;

// The `OnSession` label values of KAI's plugin_scheduling_latency_milliseconds.
inline constexpr std::string_view kOnSessionOpen = "OnSessionOpen";
inline constexpr std::string_view kOnSessionClose = "OnSessionClose";

class Session {
 public:
  Session(std::string id, std::unique_ptr<ClusterInfo> cluster, const SchedulerConfiguration& conf,
          const SchedulerParams& params, DecisionSink* sink, Clock* clock, Random* random);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Instantiates the configured plugins (unknown names are skipped with a warning) and calls
  // OnSessionOpen on each in order.
  void Open(const PluginRegistry& registry);
  // OnSessionClose on every plugin, then records every job's status through the sink.
  void Close();
  // Gives the snapshot back once the session is over (after Close() and after its results were
  // read), for ClusterModel::Recycle; the session may only be destroyed afterwards.
  std::unique_ptr<ClusterInfo> TakeCluster();

  // How long each plugin's OnSessionOpen and OnSessionClose took, on the session's clock, in call
  // order (KAI's plugin_scheduling_latency_milliseconds{plugin, OnSession}).
  struct PluginLatency {
    std::string plugin;
    std::string_view on_session;  // kOnSessionOpen or kOnSessionClose
    Duration took{};
  };
  const std::vector<PluginLatency>& plugin_latencies() const { return plugin_latencies_; }

  const std::string& id() const { return id_; }
  ClusterInfo& cluster() { return *cluster_; }
  const ClusterInfo& cluster() const { return *cluster_; }
  const SchedulerConfiguration& config() const { return conf_; }
  const SchedulerParams& params() const { return params_; }
  SchedulerParams& mutable_params() { return params_; }
  Clock* clock() const { return clock_; }
  // Failed-search backoffs across cycles (owned by the scheduler); nullptr: none kept.
  FailedSearchBackoff* failed_search_backoff() const { return failed_search_backoff_; }
  void set_failed_search_backoff(FailedSearchBackoff* b) { failed_search_backoff_ = b; }
  Random* random() const { return random_; }
  // The name of the `position`-th GPU group of `task` when it is placed on `node` on a GPU no
  // group uses yet: a name none of the node's groups and none of `chosen` has, derived from a seed
  // the session draws when it starts (gpu_group_name.h: a rolled-back placement leaves no trace).
  std::string NewGpuGroupName(const PodInfo& task, const NodeInfo& node, size_t position,
                              const std::vector<std::string>& chosen);
  DecisionSink* sink() const { return sink_; }
  WallTime now() const { return clock_->Now(); }
  // Max jobs per leaf queue for an action (-1 = unlimited).
  int JobsDepth(std::string_view action) const;
  // The jobs whose queue is `q` (one of this session's queues), in the job map's order. Indexed
  // on first use: preempt looks for victims in the preemptor's queue once per job it tries, and
  // walking every job of the cluster for it was a fifth of L preempt.
  const std::vector<PodGroupInfo*>& JobsOfQueue(const QueueInfo& q) const;
  // Every session job in the job map's order with its queue (nullptr: none), built with the
  // index above: reclaim's victim queues walk every job of the cluster for each job they search
  // for, and reading each job's queue name through its PodGroup was most of that walk.
  struct JobAndQueue {
    PodGroupInfo* job;
    const QueueInfo* queue;
  };
  const std::vector<JobAndQueue>& JobsAndQueues() const;

  // Per action, what KAI's per-action counters count: victim-search scenarios simulated, or
  // dropped by a cheap filter before simulating (scenarios_simulation_by_action,
  // scenarios_filtered_by_action); pod groups the action tried and those it scheduled
  // (podgroups_acted_on_by_action, podgroups_scheduled_by_action).
  // Also how often a search budget ran out: job searches stopped by their budget, and 1 when the
  // action's own budget stopped it before its last job.
  struct ActionCounts {
    int64_t simulated = 0;
    int64_t filtered = 0;
    int64_t acted_on = 0;
    int64_t scheduled = 0;
    int64_t job_budget_stops = 0;
    int64_t action_budget_stops = 0;
    int64_t backoff_skips = 0;  // jobs not searched: their failed-search backoff had not passed
    // Partial jobs whose search a final rejection ended (no larger scenario could pass).
    int64_t final_rejections = 0;
  };
  void CountScenario(std::string_view action, bool simulated);
  // A pod group the action tried; `scheduled` when the attempt was committed.
  void CountPodGroup(std::string_view action, bool scheduled);
  // A search budget ran out: one job's (`whole_action` false) or the action's.
  void CountBudgetStop(std::string_view action, bool whole_action);
  void CountBackoffSkip(std::string_view action) { ++CountsOf(action).backoff_skips; }
  void CountFinalRejection(std::string_view action) { ++CountsOf(action).final_rejections; }
  const std::map<std::string, ActionCounts, std::less<>>& action_counts() const {
    return action_counts_;
  }

  std::unique_ptr<Statement> NewStatement();

  // Hook registration.
  void AddJobOrderFn(JobCompareFn f) { AddJobOrder(std::move(f), nullptr); }
  // A job order given as a key per job, lower first (the comparison is derived from it). When
  // every job-order function is one, JobOrderLess compares ranks memoized per job
  // (PodGroupInfo::job_order_key_memo) instead of calling the functions on every heap
  // comparison; a rank may read the job's task statuses and PodSet minimums and nothing else
  // that changes during a session (see framework/job_state_generation.h).
  void AddJobOrderRankFn(JobRankFn rank);
  void AddTaskOrderFn(TaskCompareFn f) { AddTaskOrder(std::move(f), nullptr); }
  // A task order given as a key per task, lower first (the comparison is derived from it). When
  // every task-order function is one, SortTasks reads each task's ranks once per sort instead of
  // calling the functions on every comparison. A rank reads only what a task keeps for the whole
  // session (its pod's labels).
  void AddTaskOrderRankFn(TaskRankFn rank);
  void AddSubGroupOrderFn(PodSetCompareFn f) { subgroup_order_fns_.push_back(std::move(f)); }
  void AddQueueOrderFn(QueueCompareFn f) { queue_order_fns_.push_back(std::move(f)); }
  void AddPrePredicateFn(PrePredicateFn f) { pre_predicate_fns_.push_back(std::move(f)); }
  void AddPredicateFn(PredicateFn f) { predicate_fns_.push_back(std::move(f)); }
  void AddNodePreOrderFn(NodePreOrderFn f) { node_pre_order_fns_.push_back(std::move(f)); }
  // Scores add up in registration order, whichever of the two forms a plugin uses.
  void AddNodeOrderFn(NodeOrderFn f);
  void AddNodeOrderBatchFn(NodeOrderBatchFn f) { node_order_fns_.push_back(std::move(f)); }
  void AddGpuOrderFn(GpuOrderFn f) { gpu_order_fns_.push_back(std::move(f)); }
  void AddSubsetNodesFn(SubsetNodesFn f) { subset_nodes_fns_.push_back(std::move(f)); }
  void AddCanReclaimResourcesFn(CanReclaimResourcesFn f) {
    can_reclaim_fns_.push_back(std::move(f));
  }
  // A reclaim victim filter may read only the reclaimer's queue and facts of the victim fixed for
  // the session (its queue, PodSets, priority, timestamps): reclaim keeps each queue's
  // candidates for the action.
  void AddReclaimVictimFilterFn(VictimFilterFn f) {
    reclaim_victim_filter_fns_.push_back(std::move(f));
  }
  void AddPreemptVictimFilterFn(VictimFilterFn f) {
    preempt_victim_filter_fns_.push_back(std::move(f));
  }
  void AddReclaimScenarioValidatorFn(ScenarioValidatorFn f) {
    reclaim_validator_fns_.push_back(std::move(f));
  }
  void AddPreemptScenarioValidatorFn(ScenarioValidatorFn f) {
    preempt_validator_fns_.push_back(std::move(f));
  }
  // A final rejection: true when the plugin's validator rejects the scenario and every scenario
  // with more victims (more tasks of the same jobs, or more jobs), whatever a simulation does to
  // the victims and the preemptor. The victim solver then stops the partial job there: its
  // scenarios only ever add victims (ReclaimScenarioRejectedForGood).
  void AddReclaimScenarioFinalRejectionFn(ScenarioValidatorFn f) {
    reclaim_final_rejection_fns_.push_back(std::move(f));
  }
  void AddPreemptScenarioFinalRejectionFn(ScenarioValidatorFn f) {
    preempt_final_rejection_fns_.push_back(std::move(f));
  }
  void AddOnJobSolutionStartFn(OnJobSolutionStartFn f) {
    solution_start_fns_.push_back(std::move(f));
  }
  void AddPreJobAllocationFn(PreJobAllocationFn f) {
    pre_job_allocation_fns_.push_back(std::move(f));
  }
  void AddIsJobOverCapacityFn(IsJobOverCapacityFn f) {
    job_over_capacity_fns_.push_back(std::move(f));
  }
  void AddIsNonPreemptibleJobOverQueueQuotaFn(IsJobOverCapacityFn f) {
    non_preemptible_over_quota_fns_.push_back(std::move(f));
  }
  void AddIsTaskAllocationOnNodeOverCapacityFn(IsTaskAllocationOverCapacityFn f) {
    task_over_capacity_fns_.push_back(std::move(f));
  }
  void AddGetQueueAllocatedResourcesFn(QueueResourceFn f) {
    queue_allocated_fns_.push_back(std::move(f));
  }
  void AddGetQueueDeservedResourcesFn(QueueResourceFn f) {
    queue_deserved_fns_.push_back(std::move(f));
  }
  void AddGetQueueFairShareFn(QueueResourceFn f) { queue_fair_share_fns_.push_back(std::move(f)); }
  void AddGetQueueRequestedResourcesFn(QueueResourceFn f) {
    queue_requested_fns_.push_back(std::move(f));
  }
  void AddBindRequestMutateFn(BindRequestMutateFn f) { bind_mutate_fns_.push_back(std::move(f)); }
  void AddEventHandler(EventHandler h) { event_handlers_.push_back(std::move(h)); }

  // Combination rules (§6.7).
  // Job order: first non-zero comparison; fallback creation time, then UID. true = l first.
  bool JobOrderLess(const PodGroupInfo& l, const PodGroupInfo& r) const;
  // The same comparison through the registered functions only (no memo): the reference the memo
  // is checked against in debug builds and in tests.
  bool JobOrderLessUncached(const PodGroupInfo& l, const PodGroupInfo& r) const;
  bool TaskOrderLess(const PodInfo& l, const PodInfo& r) const;
  // Sorts by TaskOrderLess (`reverse`: by its converse) into exactly the order std::sort with it
  // gives.
  void SortTasks(std::vector<PodInfo*>* tasks, bool reverse) const;
  // PodSet order: first non-zero; fallback name.
  bool SubGroupOrderLess(const PodSet& l, const PodSet& r) const;
  bool QueueOrderLess(const QueueInfo& l, const QueueInfo& r, const PodGroupInfo* l_job,
                      const PodGroupInfo* r_job, const std::vector<const PodGroupInfo*>& l_victims,
                      const std::vector<const PodGroupInfo*>& r_victims) const;
  // First failure message.
  std::optional<std::string> PrePredicate(const PodInfo& task, const PodGroupInfo& job) const;
  std::vector<std::string> Predicate(const PodInfo& task, const PodGroupInfo& job,
                                     const NodeInfo& node) const;
  void NodePreOrder(const PodInfo& task, const NodeSet& nodes) const;
  std::optional<double> NodeOrderScore(const PodInfo& task, const NodeInfo& node) const;
  // Every node order function over `nodes`: scores[i] is node i's total unless failed[i].
  // Both spans hold nodes.size() entries, zeroed by the caller.
  void NodeOrderScores(const PodInfo& task, std::span<const NodeInfo* const> nodes,
                       std::span<double> scores, std::span<uint8_t> failed) const;
  std::optional<double> GpuOrderScore(const PodInfo& task, const NodeInfo& node,
                                      const std::string& group) const;
  StatusOr<NodeSubsets> SubsetNodes(const PodGroupInfo& job, const SubGroupRef& sg,
                                    const std::vector<PodSet*>& pod_sets,
                                    const std::vector<PodInfo*>& tasks, const NodeSet& nodes) const;
  // The first registered function decides (false when none).
  bool CanReclaimResources(const PodGroupInfo& reclaimer) const;
  bool ReclaimVictimFilter(const PodGroupInfo& reclaimer, const PodGroupInfo& victim) const;
  bool PreemptVictimFilter(const PodGroupInfo& preemptor, const PodGroupInfo& victim) const;
  bool ReclaimScenarioValid(const ScenarioInfo& s) const;
  bool PreemptScenarioValid(const ScenarioInfo& s) const;
  // Whether a final rejection (AddReclaimScenarioFinalRejectionFn) holds for the scenario.
  bool ReclaimScenarioRejectedForGood(const ScenarioInfo& s) const;
  bool PreemptScenarioRejectedForGood(const ScenarioInfo& s) const;
  void OnJobSolutionStart() const;
  void PreJobAllocation(const PodGroupInfo& job) const;
  SchedulableResult IsJobOverQueueCapacity(const PodGroupInfo& job,
                                           const std::vector<PodInfo*>& tasks) const;
  SchedulableResult IsNonPreemptibleJobOverQueueQuota(const PodGroupInfo& job,
                                                      const std::vector<PodInfo*>& tasks) const;
  SchedulableResult IsTaskAllocationOnNodeOverCapacity(const PodInfo& task, const PodGroupInfo& job,
                                                       const NodeInfo& node) const;
  std::optional<QueueQuantities> QueueAllocated(const QueueInfo& q) const;
  std::optional<QueueQuantities> QueueDeserved(const QueueInfo& q) const;
  std::optional<QueueQuantities> QueueFairShare(const QueueInfo& q) const;
  // The request the fair share was divided by (what the queue's pods asked for at session open).
  std::optional<QueueQuantities> QueueRequested(const QueueInfo& q) const;
  std::map<std::string, std::string> MutateBindRequestAnnotations(const PodInfo& task,
                                                                  const std::string& node) const;
  bool has_queue_order_fns() const { return !queue_order_fns_.empty(); }
  // Every job-order function is a rank (JobOrderLess compares memoized ranks).
  bool job_order_ranked() const { return job_order_ranked_; }

  // Nodes sorted by summed score (desc), ties by name (§6.7).
  NodeSet OrderedNodesByTask(const NodeSet& nodes, const PodInfo& task) const;
  // The same order, produced lazily: callers that stop at the first fitting node (allocation)
  // pay for scoring every node but not for sorting them all.
  // A node with its score and name rank copied next to it, so ordering 4,000 nodes compares
  // contiguous values instead of following a pointer into every NodeInfo per comparison.
  struct ScoredNode {
    double score;
    int rank;  // NodeInfo::name_rank(); 0 when the session did not rank the node
    NodeInfo* node;
  };
  class NodeOrder {
   public:
    explicit NodeOrder(std::vector<ScoredNode> scored);
    // The next node in order; nullptr when exhausted.
    NodeInfo* Next();

   private:
    std::vector<ScoredNode> heap_;
    size_t size_;
    // The first node is found by one scan (a task usually takes it); the rest become a heap only
    // when a second one is asked for.
    bool first_taken_ = false;
    bool heapified_ = false;
  };
  // With `room` (aligned with `nodes`, see NoNodeHasRoom), only the nodes marked 1 are scored and
  // ordered; the pre-order still sees every node, so their scores and relative order are
  // unchanged. Exact for callers that skip nodes without room without recording anything.
  NodeOrder LazyOrderedNodesByTask(const NodeSet& nodes, const PodInfo& task,
                                   const std::vector<uint8_t>* room = nullptr) const;
  // Resource fit on Idle+Releasing, then all predicates; failures are recorded on the job when
  // `record_fit_errors`.
  bool FittingNode(const PodInfo& task, const NodeInfo& node, bool record_fit_errors);
  // True when no node of `nodes` has room for the task even counting releasing resources (so
  // FittingNode would reject every one of them without running a predicate); then also records
  // on `job`, when `record_fit_errors`, exactly the errors FittingNode would have recorded node by
  // node. Callers skip scoring and ordering the nodes. Memoized per resource shape until a node's
  // accounting changes (ResourceFitCache).
  // `room`, when given, receives the per-node answer (1 = room), valid until the next call.
  bool NoNodeHasRoom(const PodInfo& task, PodGroupInfo* job, const NodeSet& nodes,
                     bool record_fit_errors, const std::vector<uint8_t>** room = nullptr);
  const ResourceFitCache& resource_fit_cache() const { return resource_fit_cache_; }
  // Candidate GPU groups on a node for a fractional task, best first ("" = a whole free GPU).
  std::vector<std::string> FittingGpus(const NodeInfo& node, const PodInfo& task) const;

  // Immediate eviction outside a statement (stale gang eviction).
  Status Evict(PodInfo* task, const std::string& message, const EvictionMetadata& meta);
  // Used by Statement to mark a committed bind.
  Status BindTask(PodInfo* task);
  // Used by Statement when the sink deferred a bind (DecisionSink::BindsDeferred): `undo` puts
  // the task back as it was before its allocation, should its BindRequest be refused.
  void AddDeferredBind(PodInfo* task, std::function<void()> undo);
  // Waits for the sink's deferred binds; the allocations whose BindRequest was refused are undone
  // (latest first) and their jobs' last start timestamp restored, as a failed synchronous commit
  // leaves them. Returns how many were undone.
  int JoinBinds();

  void FireAllocate(const PodInfo& task) const;
  void FireDeallocate(const PodInfo& task) const;

  // Plugin lookup (for tests and cross-plugin queries).
  Plugin* FindPlugin(std::string_view name) const;

 private:
  // `rank` (nullptr: none) agrees with `f`.
  void AddTaskOrder(TaskCompareFn f, TaskRankFn rank);
  void AddJobOrder(JobCompareFn f, JobRankFn rank);
  ActionCounts& CountsOf(std::string_view action);
  // The job's memoized ranks when every job-order function has one (nullptr otherwise).
  const int64_t* JobOrderRanks(const PodGroupInfo& job) const;
  // Stops the nodes from writing their accounting versions into node_versions_.
  void DetachNodeVersions();

  std::string id_;
  std::unique_ptr<ClusterInfo> cluster_;
  SchedulerConfiguration conf_;
  SchedulerParams params_;
  DecisionSink* sink_;
  Clock* clock_;
  FailedSearchBackoff* failed_search_backoff_ = nullptr;
  Random* random_;
  uint64_t gpu_group_seed_ = 0;  // drawn when the session starts
  std::vector<std::unique_ptr<Plugin>> plugins_;
  std::vector<PluginLatency> plugin_latencies_;
  // Accounting version of every node of the snapshot, by name rank, mirrored by the nodes
  // (NodeInfo::MirrorAccountingVersion) so that resource_fit_cache_ reads them side by side and
  // follows its log. The nodes point at it.
  VersionTable node_versions_;
  ResourceFitCache resource_fit_cache_;
  // Builds JobsOfQueue's and JobsAndQueues' lists when the job map's size moved since.
  void IndexJobsByQueue() const;
  // JobsOfQueue's index by queue session index, and the job count it was built for.
  mutable std::vector<std::vector<PodGroupInfo*>> jobs_by_queue_;
  mutable std::vector<JobAndQueue> jobs_and_queues_;
  mutable size_t jobs_by_queue_size_ = 0;
  mutable bool jobs_by_queue_built_ = false;
  std::map<std::string, ActionCounts, std::less<>> action_counts_;

  std::vector<JobCompareFn> job_order_fns_;
  std::vector<JobRankFn> job_rank_fns_;  // parallel to job_order_fns_
  bool job_order_ranked_ = true;         // every function has a rank (and few enough)
  std::vector<TaskCompareFn> task_order_fns_;
  std::vector<TaskRankFn> task_rank_fns_;  // parallel to task_order_fns_
  bool task_order_ranked_ = true;          // every function has a rank (and few enough)
  std::vector<PodSetCompareFn> subgroup_order_fns_;
  std::vector<QueueCompareFn> queue_order_fns_;
  std::vector<PrePredicateFn> pre_predicate_fns_;
  std::vector<PredicateFn> predicate_fns_;
  std::vector<NodePreOrderFn> node_pre_order_fns_;
  std::vector<NodeOrderBatchFn> node_order_fns_;
  std::vector<GpuOrderFn> gpu_order_fns_;
  std::vector<SubsetNodesFn> subset_nodes_fns_;
  std::vector<CanReclaimResourcesFn> can_reclaim_fns_;
  std::vector<VictimFilterFn> reclaim_victim_filter_fns_;
  std::vector<VictimFilterFn> preempt_victim_filter_fns_;
  std::vector<ScenarioValidatorFn> reclaim_validator_fns_;
  std::vector<ScenarioValidatorFn> preempt_validator_fns_;
  std::vector<ScenarioValidatorFn> reclaim_final_rejection_fns_;
  std::vector<ScenarioValidatorFn> preempt_final_rejection_fns_;
  std::vector<OnJobSolutionStartFn> solution_start_fns_;
  std::vector<PreJobAllocationFn> pre_job_allocation_fns_;
  std::vector<IsJobOverCapacityFn> job_over_capacity_fns_;
  std::vector<IsJobOverCapacityFn> non_preemptible_over_quota_fns_;
  std::vector<IsTaskAllocationOverCapacityFn> task_over_capacity_fns_;
  std::vector<QueueResourceFn> queue_allocated_fns_;
  std::vector<QueueResourceFn> queue_deserved_fns_;
  std::vector<QueueResourceFn> queue_fair_share_fns_;
  std::vector<QueueResourceFn> queue_requested_fns_;
  std::vector<BindRequestMutateFn> bind_mutate_fns_;
  std::vector<EventHandler> event_handlers_;

  struct DeferredBind {
    PodInfo* task;
    std::function<void()> undo;
  };
  std::vector<DeferredBind> deferred_binds_;
  // Each job's last start timestamp before its first deferred bind since the last join.
  std::map<PodGroupId, std::optional<WallTime>> start_before_deferred_;
};

// Explicit registration of plugins and actions (no self-registering globals).
class PluginRegistry {
 public:
  using Builder = std::function<std::unique_ptr<Plugin>(const PluginArguments&)>;
  void Register(std::string name, Builder builder) {
    builders_[std::move(name)] = std::move(builder);
  }
  const Builder* Find(const std::string& name) const {
    auto it = builders_.find(name);
    return it == builders_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, Builder> builders_;
};

class ActionRegistry {
 public:
  using Builder = std::function<std::unique_ptr<Action>()>;
  void Register(std::string name, Builder builder) {
    builders_[std::move(name)] = std::move(builder);
  }
  const Builder* Find(const std::string& name) const {
    auto it = builders_.find(name);
    return it == builders_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Builder> builders_;
};

}  // namespace kai::scheduler
