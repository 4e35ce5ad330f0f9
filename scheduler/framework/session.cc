#include "scheduler/framework/session.h"

#include <glog/logging.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <functional>
#include <set>

#include "scheduler/framework/gpu_group_name.h"
#include "scheduler/framework/job_state_generation.h"
#include "scheduler/framework/statement.h"

namespace kai::scheduler {

Session::Session(std::string id, std::unique_ptr<ClusterInfo> cluster,
                 const SchedulerConfiguration& conf, const SchedulerParams& params,
                 DecisionSink* sink, Clock* clock, Random* random)
    : id_(std::move(id)),
      cluster_(std::move(cluster)),
      conf_(conf),
      params_(params),
      sink_(sink),
      clock_(clock),
      random_(random) {
  // The snapshot set its tasks' statuses without moving the generations: no memo stamped before
  // this session may be trusted in it. The session's jobs follow their own status versions.
  BumpJobSnapshot();
  // Drawn whether or not the session names a GPU group, so that the stream the next session
  // draws from does not depend on which simulations ran.
  if (random_ != nullptr) gpu_group_seed_ = random_->Uniform(UINT64_MAX);
  uint32_t index = 0;
  for (const auto& [id, job] : cluster_->jobs) {
    job->status_version = 1;
    job->session_index = index++;
    if (job->HasPendingTasks()) cluster_->jobs_pending_at_open.push_back(job.get());
  }
  cluster_->jobs_pending_at_open_set = true;
  cluster_->num_jobs_at_open = cluster_->jobs.size();
  cluster_->IndexQueues();
  static std::atomic<uint64_t> sessions{0};
  cluster_->session_epoch = sessions.fetch_add(1, std::memory_order_relaxed) + 1;
  cluster_->IndexNodes();
  std::vector<NodeInfo*> by_name = cluster_->node_list;
  std::sort(by_name.begin(), by_name.end(),
            [](const NodeInfo* l, const NodeInfo* r) { return l->name() < r->name(); });
  for (size_t i = 0; i < by_name.size(); ++i) by_name[i]->set_name_rank(static_cast<int>(i) + 1);
  node_versions_.Reset(by_name.size() + 1);
  for (size_t i = 0; i < by_name.size(); ++i) {
    by_name[i]->MirrorAccountingVersion(&node_versions_, i + 1);
  }
  resource_fit_cache_.SetNodeVersions(&node_versions_);
}

Session::~Session() { DetachNodeVersions(); }

void Session::DetachNodeVersions() {
  if (cluster_ == nullptr) return;
  // The owners, not node_list: a node dropped from the list mid-session still mirrors.
  for (const auto& [name, n] : cluster_->nodes) {
    if (n->accounting_version_table() == &node_versions_) n->MirrorAccountingVersion(nullptr, 0);
  }
}

std::unique_ptr<ClusterInfo> Session::TakeCluster() {
  DetachNodeVersions();
  return std::move(cluster_);
}

void Session::Open(const PluginRegistry& registry) {
  for (const PluginOption& opt : conf_.plugins) {
    const PluginRegistry::Builder* b = registry.Find(opt.name);
    if (b == nullptr) {
      LOG(WARNING) << "session " << id_ << ": plugin " << opt.name << " is not registered, skipped";
      continue;
    }
    plugins_.push_back((*b)(opt.arguments));
  }
  for (auto& p : plugins_) {
    const MonoTime start = clock_->NowMonotonic();
    p->OnSessionOpen(this);
    plugin_latencies_.push_back(
        {std::string(p->Name()), kOnSessionOpen, clock_->NowMonotonic() - start});
  }
}

void Session::Close() {
  for (auto& p : plugins_) {
    const MonoTime start = clock_->NowMonotonic();
    p->OnSessionClose(this);
    plugin_latencies_.push_back(
        {std::string(p->Name()), kOnSessionClose, clock_->NowMonotonic() - start});
  }
}

Plugin* Session::FindPlugin(std::string_view name) const {
  for (const auto& p : plugins_) {
    if (p->Name() == name) return p.get();
  }
  return nullptr;
}

const std::vector<PodGroupInfo*>& Session::JobsOfQueue(const QueueInfo& q) const {
  const ClusterInfo& c = *cluster_;
  CHECK(q.session_index() >= 0 && static_cast<size_t>(q.session_index()) < c.queues.size())
      << "queue " << q.name() << " is not one of the session's";
  IndexJobsByQueue();
  return jobs_by_queue_[q.session_index()];
}

const std::vector<Session::JobAndQueue>& Session::JobsAndQueues() const {
  IndexJobsByQueue();
  return jobs_and_queues_;
}

void Session::IndexJobsByQueue() const {
  const ClusterInfo& c = *cluster_;
  CHECK(c.queues_indexed);
  if (jobs_by_queue_built_ && jobs_by_queue_size_ == c.jobs.size()) return;
  jobs_by_queue_.assign(c.queues.size(), {});
  jobs_and_queues_.clear();
  jobs_and_queues_.reserve(c.jobs.size());
  for (const auto& [id, job] : c.jobs) {
    const QueueInfo* jq = c.QueueOf(*job);
    if (jq != nullptr) jobs_by_queue_[jq->session_index()].push_back(job.get());
    jobs_and_queues_.push_back({job.get(), jq});
  }
  jobs_by_queue_size_ = c.jobs.size();
  jobs_by_queue_built_ = true;
}

int Session::JobsDepth(std::string_view action) const {
  auto it = conf_.queue_depth_per_action.find(std::string(action));
  return it == conf_.queue_depth_per_action.end() ? -1 : it->second;
}

std::unique_ptr<Statement> Session::NewStatement() { return std::make_unique<Statement>(this); }

namespace {

// The comparison a rank stands for: lower first.
template <typename T>
auto CompareByRank(int64_t (*rank)(const T&)) {
  return [rank](const T& l, const T& r) {
    const int64_t a = rank(l), b = rank(r);
    return a < b ? -1 : (a > b ? 1 : 0);
  };
}

}  // namespace

void Session::AddJobOrderRankFn(JobRankFn rank) { AddJobOrder(CompareByRank(rank), rank); }

void Session::AddJobOrder(JobCompareFn f, JobRankFn rank) {
  constexpr size_t kMaxRanks = sizeof(PodGroupInfo::JobOrderKeyMemo::ranks) /
                               sizeof(PodGroupInfo::JobOrderKeyMemo::ranks[0]);
  job_order_fns_.push_back(std::move(f));
  job_rank_fns_.push_back(rank);
  job_order_ranked_ = job_order_ranked_ && rank != nullptr && job_rank_fns_.size() <= kMaxRanks;
  BumpJobStructure();  // memos filled before hold fewer ranks
}

const int64_t* Session::JobOrderRanks(const PodGroupInfo& job) const {
  if (!job_order_ranked_) return nullptr;
  PodGroupInfo::JobOrderKeyMemo& m = job.job_order_key_memo;
  if (!JobStateStampHolds(job, m.stamp)) {
    for (size_t i = 0; i < job_rank_fns_.size(); ++i) m.ranks[i] = job_rank_fns_[i](job);
    m.stamp = CurrentJobStateStamp(job);
  }
#ifndef NDEBUG
  for (size_t i = 0; i < job_rank_fns_.size(); ++i) {
    CHECK_EQ(m.ranks[i], job_rank_fns_[i](job))
        << "stale job-order rank " << i << " of job " << job.uid();
  }
#endif
  return m.ranks;
}

bool Session::JobOrderLess(const PodGroupInfo& l, const PodGroupInfo& r) const {
  const int64_t* lr = JobOrderRanks(l);
  const int64_t* rr = lr == nullptr ? nullptr : JobOrderRanks(r);
  if (rr == nullptr) return JobOrderLessUncached(l, r);
  bool result;
  size_t i = 0;
  while (i < job_rank_fns_.size() && lr[i] == rr[i]) ++i;
  if (i < job_rank_fns_.size()) {
    result = lr[i] < rr[i];
  } else if (l.creation_time() == r.creation_time()) {
    result = l.uid() < r.uid();
  } else {
    result = l.creation_time() < r.creation_time();
  }
  DCHECK_EQ(result, JobOrderLessUncached(l, r)) << l.uid() << " vs " << r.uid();
  return result;
}

bool Session::JobOrderLessUncached(const PodGroupInfo& l, const PodGroupInfo& r) const {
  for (const auto& f : job_order_fns_) {
    int c = f(l, r);
    if (c != 0) return c < 0;
  }
  if (l.creation_time() == r.creation_time()) return l.uid() < r.uid();
  return l.creation_time() < r.creation_time();
}

void Session::AddTaskOrderRankFn(TaskRankFn rank) { AddTaskOrder(CompareByRank(rank), rank); }

namespace {

// After every task-order function: the older task first, then the lower uid.
bool TaskTieLess(const PodInfo& l, const PodInfo& r) {
  if (l.creation_time() == r.creation_time()) return l.uid() < r.uid();
  return l.creation_time() < r.creation_time();
}

// A task with its task-order ranks, read once per sort.
constexpr size_t kMaxTaskRanks = 4;
struct RankedTask {
  std::array<int64_t, kMaxTaskRanks> ranks;
  PodInfo* task;
};

}  // namespace

void Session::AddTaskOrder(TaskCompareFn f, TaskRankFn rank) {
  task_order_fns_.push_back(std::move(f));
  task_rank_fns_.push_back(rank);
  task_order_ranked_ =
      task_order_ranked_ && rank != nullptr && task_rank_fns_.size() <= kMaxTaskRanks;
}

void Session::SortTasks(std::vector<PodInfo*>* tasks, bool reverse) const {
  const auto plain = [this, reverse](PodInfo* l, PodInfo* r) {
    return reverse ? TaskOrderLess(*r, *l) : TaskOrderLess(*l, *r);
  };
  // Below three tasks a sort compares at most once: reading every rank would cost more.
  if (!task_order_ranked_ || tasks->size() < 3) {
    std::sort(tasks->begin(), tasks->end(), plain);
    return;
  }
#ifndef NDEBUG
  std::vector<PodInfo*> check = *tasks;
  std::sort(check.begin(), check.end(), plain);
#endif
  const size_t n = task_rank_fns_.size();
  thread_local std::vector<RankedTask> ranked;  // reused: victim searches sort per pop
  ranked.clear();
  for (PodInfo* t : *tasks) {
    RankedTask& rt = ranked.emplace_back();
    rt.task = t;
    for (size_t i = 0; i < n; ++i) rt.ranks[i] = task_rank_fns_[i](*t);
  }
  // TaskOrderLess on the ranks: the comparisons come out the same, so std::sort (whose moves
  // depend on nothing else) leaves the same order, ties between equal tasks included.
  auto less = [n](const RankedTask& l, const RankedTask& r) {
    for (size_t i = 0; i < n; ++i) {
      if (l.ranks[i] != r.ranks[i]) return l.ranks[i] < r.ranks[i];
    }
    return TaskTieLess(*l.task, *r.task);
  };
  std::sort(ranked.begin(), ranked.end(),
            [&less, reverse](const RankedTask& l, const RankedTask& r) {
              return reverse ? less(r, l) : less(l, r);
            });
  for (size_t i = 0; i < ranked.size(); ++i) (*tasks)[i] = ranked[i].task;
#ifndef NDEBUG
  CHECK(*tasks == check) << "ranked task order differs from TaskOrderLess";
#endif
}

bool Session::TaskOrderLess(const PodInfo& l, const PodInfo& r) const {
  for (const auto& f : task_order_fns_) {
    int c = f(l, r);
    if (c != 0) return c < 0;
  }
  return TaskTieLess(l, r);
}

bool Session::SubGroupOrderLess(const PodSet& l, const PodSet& r) const {
  for (const auto& f : subgroup_order_fns_) {
    int c = f(l, r);
    if (c != 0) return c < 0;
  }
  return l.name() < r.name();
}

bool Session::QueueOrderLess(const QueueInfo& l, const QueueInfo& r, const PodGroupInfo* l_job,
                             const PodGroupInfo* r_job,
                             const std::vector<const PodGroupInfo*>& l_victims,
                             const std::vector<const PodGroupInfo*>& r_victims) const {
  for (const auto& f : queue_order_fns_) {
    int c = f(l, r, l_job, r_job, l_victims, r_victims);
    if (c != 0) return c < 0;
  }
  if (l.creation_time() == r.creation_time()) return l.uid() < r.uid();
  return l.creation_time() < r.creation_time();
}

std::optional<std::string> Session::PrePredicate(const PodInfo& task,
                                                 const PodGroupInfo& job) const {
  for (const auto& f : pre_predicate_fns_) {
    if (auto err = f(task, job)) return err;
  }
  return std::nullopt;
}

std::vector<std::string> Session::Predicate(const PodInfo& task, const PodGroupInfo& job,
                                            const NodeInfo& node) const {
  for (const auto& f : predicate_fns_) {
    std::vector<std::string> reasons = f(task, job, node);
    if (!reasons.empty()) return reasons;
  }
  return {};
}

void Session::NodePreOrder(const PodInfo& task, const NodeSet& nodes) const {
  for (const auto& f : node_pre_order_fns_) f(task, nodes);
}

void Session::AddNodeOrderFn(NodeOrderFn f) {
  node_order_fns_.push_back(
      [f = std::move(f)](const PodInfo& task, std::span<const NodeInfo* const> nodes,
                         std::span<double> scores, std::span<uint8_t> failed) {
        for (size_t i = 0; i < nodes.size(); ++i) {
          if (failed[i] != 0) continue;  // already dropped: later plugins are not asked
          if (std::optional<double> s = f(task, *nodes[i])) {
            scores[i] += *s;
          } else {
            failed[i] = 1;
          }
        }
      });
}

void Session::NodeOrderScores(const PodInfo& task, std::span<const NodeInfo* const> nodes,
                              std::span<double> scores, std::span<uint8_t> failed) const {
  CHECK_EQ(scores.size(), nodes.size());
  CHECK_EQ(failed.size(), nodes.size());
  for (const auto& f : node_order_fns_) f(task, nodes, scores, failed);
}

std::optional<double> Session::NodeOrderScore(const PodInfo& task, const NodeInfo& node) const {
  const NodeInfo* one[] = {&node};
  double score = 0;
  uint8_t failed = 0;
  NodeOrderScores(task, one, std::span<double>(&score, 1), std::span<uint8_t>(&failed, 1));
  if (failed != 0) return std::nullopt;
  return score;
}

std::optional<double> Session::GpuOrderScore(const PodInfo& task, const NodeInfo& node,
                                             const std::string& group) const {
  double total = 0;
  for (const auto& f : gpu_order_fns_) {
    std::optional<double> s = f(task, node, group);
    if (!s) return std::nullopt;
    total += *s;
  }
  return total;
}

StatusOr<NodeSubsets> Session::SubsetNodes(const PodGroupInfo& job, const SubGroupRef& sg,
                                           const std::vector<PodSet*>& pod_sets,
                                           const std::vector<PodInfo*>& tasks,
                                           const NodeSet& nodes) const {
  std::optional<std::vector<NodeSet>> sets;  // nullopt: `nodes`, unsplit so far
  for (const auto& f : subset_nodes_fns_) {
    if (!sets) {
      KAI_ASSIGN_OR_RETURN(sets, f(job, sg, pod_sets, tasks, nodes));
      continue;
    }
    std::vector<NodeSet> next;
    for (NodeSet& s : *sets) {
      KAI_ASSIGN_OR_RETURN(std::optional<std::vector<NodeSet>> sub, f(job, sg, pod_sets, tasks, s));
      if (!sub) {
        next.push_back(std::move(s));
        continue;
      }
      for (auto& x : *sub) next.push_back(std::move(x));
    }
    sets = std::move(next);
  }
  if (!sets) return NodeSubsets::Whole(nodes);
  return NodeSubsets::Split(std::move(*sets));
}

bool Session::CanReclaimResources(const PodGroupInfo& reclaimer) const {
  if (can_reclaim_fns_.empty()) return false;
  return can_reclaim_fns_.front()(reclaimer);
}

bool Session::ReclaimVictimFilter(const PodGroupInfo& reclaimer, const PodGroupInfo& victim) const {
  for (const auto& f : reclaim_victim_filter_fns_) {
    if (!f(reclaimer, victim)) return false;
  }
  return true;
}

bool Session::PreemptVictimFilter(const PodGroupInfo& preemptor, const PodGroupInfo& victim) const {
  for (const auto& f : preempt_victim_filter_fns_) {
    if (!f(preemptor, victim)) return false;
  }
  return true;
}

bool Session::ReclaimScenarioValid(const ScenarioInfo& s) const {
  for (const auto& f : reclaim_validator_fns_) {
    if (!f(s)) return false;
  }
  return true;
}

std::string Session::NewGpuGroupName(const PodInfo& task, const NodeInfo& node, size_t position,
                                     const std::vector<std::string>& chosen) {
  return DeriveGpuGroupName(gpu_group_seed_, task.uid(), node.name(), position,
                            [&](const std::string& name) {
                              return node.KnowsGpuGroup(name) ||
                                     std::find(chosen.begin(), chosen.end(), name) != chosen.end();
                            });
}

bool Session::ReclaimScenarioRejectedForGood(const ScenarioInfo& s) const {
  for (const auto& f : reclaim_final_rejection_fns_) {
    if (f(s)) return true;
  }
  return false;
}

bool Session::PreemptScenarioRejectedForGood(const ScenarioInfo& s) const {
  for (const auto& f : preempt_final_rejection_fns_) {
    if (f(s)) return true;
  }
  return false;
}

Session::ActionCounts& Session::CountsOf(std::string_view action) {
  auto it = action_counts_.find(action);
  if (it == action_counts_.end()) it = action_counts_.emplace(action, ActionCounts{}).first;
  return it->second;
}

void Session::CountScenario(std::string_view action, bool simulated) {
  ActionCounts& c = CountsOf(action);
  ++(simulated ? c.simulated : c.filtered);
}

void Session::CountPodGroup(std::string_view action, bool scheduled) {
  ActionCounts& c = CountsOf(action);
  ++c.acted_on;
  if (scheduled) ++c.scheduled;
}

void Session::CountBudgetStop(std::string_view action, bool whole_action) {
  ActionCounts& c = CountsOf(action);
  ++(whole_action ? c.action_budget_stops : c.job_budget_stops);
}

bool Session::PreemptScenarioValid(const ScenarioInfo& s) const {
  for (const auto& f : preempt_validator_fns_) {
    if (!f(s)) return false;
  }
  return true;
}

void Session::OnJobSolutionStart() const {
  for (const auto& f : solution_start_fns_) f();
}

void Session::PreJobAllocation(const PodGroupInfo& job) const {
  for (const auto& f : pre_job_allocation_fns_) f(job);
}

SchedulableResult Session::IsJobOverQueueCapacity(const PodGroupInfo& job,
                                                  const std::vector<PodInfo*>& tasks) const {
  if (job_over_capacity_fns_.empty()) return {};
  return job_over_capacity_fns_.front()(job, tasks);
}

SchedulableResult Session::IsNonPreemptibleJobOverQueueQuota(
    const PodGroupInfo& job, const std::vector<PodInfo*>& tasks) const {
  if (non_preemptible_over_quota_fns_.empty()) return {};
  return non_preemptible_over_quota_fns_.front()(job, tasks);
}

SchedulableResult Session::IsTaskAllocationOnNodeOverCapacity(const PodInfo& task,
                                                              const PodGroupInfo& job,
                                                              const NodeInfo& node) const {
  if (task_over_capacity_fns_.empty()) return {};
  return task_over_capacity_fns_.front()(task, job, node);
}

std::optional<QueueQuantities> Session::QueueAllocated(const QueueInfo& q) const {
  if (queue_allocated_fns_.empty()) return std::nullopt;
  return queue_allocated_fns_.front()(q);
}

std::optional<QueueQuantities> Session::QueueDeserved(const QueueInfo& q) const {
  if (queue_deserved_fns_.empty()) return std::nullopt;
  return queue_deserved_fns_.front()(q);
}

std::optional<QueueQuantities> Session::QueueFairShare(const QueueInfo& q) const {
  if (queue_fair_share_fns_.empty()) return std::nullopt;
  return queue_fair_share_fns_.front()(q);
}

std::optional<QueueQuantities> Session::QueueRequested(const QueueInfo& q) const {
  if (queue_requested_fns_.empty()) return std::nullopt;
  return queue_requested_fns_.front()(q);
}

std::map<std::string, std::string> Session::MutateBindRequestAnnotations(
    const PodInfo& task, const std::string& node) const {
  std::map<std::string, std::string> out;
  for (const auto& f : bind_mutate_fns_) {
    for (auto& [k, v] : f(task, node)) out[k] = v;
  }
  return out;
}

namespace {

std::vector<Session::ScoredNode> ScoreNodes(const Session& ssn, const NodeSet& nodes,
                                            const PodInfo& task,
                                            const std::vector<uint8_t>* room = nullptr) {
  ssn.NodePreOrder(task, nodes);
  NodeSet with_room;
  if (room != nullptr) {
    // Few nodes have room for a simulation's task (18 of ~2,350 on average at L): eight answers
    // are skipped at a time while they are all 0.
    const uint8_t* r = room->data();
    const size_t n = nodes.size();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t word = 0;
      std::memcpy(&word, r + i, sizeof(word));
      if (word == 0) continue;
      for (size_t j = i; j < i + 8; ++j) {
        if (r[j] != 0) with_room.push_back(nodes[j]);
      }
    }
    for (; i < n; ++i) {
      if (r[i] != 0) with_room.push_back(nodes[i]);
    }
  }
  const NodeSet& candidates = room != nullptr ? with_room : nodes;
  std::vector<double> scores(candidates.size(), 0.0);
  std::vector<uint8_t> failed(candidates.size(), 0);
  ssn.NodeOrderScores(task, candidates, scores, failed);
  std::vector<Session::ScoredNode> scored;
  scored.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    NodeInfo* n = candidates[i];
    if (failed[i] != 0) {
      LOG(ERROR) << "session " << ssn.id() << ": scoring node " << n->name() << " for "
                 << task.key() << " failed; node skipped";
      continue;
    }
    scored.push_back({scores[i], n->name_rank(), n});
  }
  return scored;
}

// Score descending, then name ascending: a strict total order (names are unique), so a heap
// yields exactly the sorted sequence.
bool NodeBefore(const Session::ScoredNode& a, const Session::ScoredNode& b) {
  if (a.score != b.score) return a.score > b.score;
  // Name order through the session's ranks (distinct for distinct nodes); names for nodes the
  // session did not rank.
  if (a.rank != 0 && b.rank != 0) return a.rank < b.rank;
  return a.node->name() < b.node->name();
}

bool NodeAfter(const Session::ScoredNode& a, const Session::ScoredNode& b) {
  return NodeBefore(b, a);
}

}  // namespace

NodeSet Session::OrderedNodesByTask(const NodeSet& nodes, const PodInfo& task) const {
  std::vector<ScoredNode> scored = ScoreNodes(*this, nodes, task);
  std::sort(scored.begin(), scored.end(), NodeBefore);
  NodeSet out;
  out.reserve(scored.size());
  for (const ScoredNode& s : scored) out.push_back(s.node);
  return out;
}

Session::NodeOrder::NodeOrder(std::vector<ScoredNode> scored)
    : heap_(std::move(scored)), size_(heap_.size()) {}

NodeInfo* Session::NodeOrder::Next() {
  if (size_ == 0) return nullptr;
  const auto end = heap_.begin() + static_cast<std::ptrdiff_t>(size_);
  if (!first_taken_) {
    // The strict total order has one first node: the scan finds exactly what a heap would pop.
    first_taken_ = true;
    std::iter_swap(std::min_element(heap_.begin(), end, NodeBefore), end - 1);
    --size_;
    return heap_[size_].node;
  }
  if (!heapified_) {
    std::make_heap(heap_.begin(), end, NodeAfter);
    heapified_ = true;
  }
  std::pop_heap(heap_.begin(), end, NodeAfter);
  --size_;
  return heap_[size_].node;
}

Session::NodeOrder Session::LazyOrderedNodesByTask(const NodeSet& nodes, const PodInfo& task,
                                                   const std::vector<uint8_t>* room) const {
  CHECK(room == nullptr || room->size() == nodes.size());
  return NodeOrder(ScoreNodes(*this, nodes, task, room));
}

bool Session::FittingNode(const PodInfo& task, const NodeInfo& node, bool record_fit_errors) {
  PodGroupInfo* job = cluster_->JobOf(task);
  if (job == nullptr) return false;
  if (!node.IsTaskAllocatableOnReleasingOrIdle(task)) {
    if (record_fit_errors && !node.IsTaskAllocatable(task)) {
      if (auto fe = node.FittingError(task, job->tasks().size() > 1)) {
        job->AddTaskNodeError(task, *fe);
      }
    }
    return false;
  }
  std::vector<std::string> reasons = Predicate(task, *job, node);
  if (!reasons.empty()) {
    if (record_fit_errors)
      job->AddTaskNodeError(task, NodeFitError{node.name(), std::move(reasons)});
    return false;
  }
  return true;
}

bool Session::NoNodeHasRoom(const PodInfo& task, PodGroupInfo* job, const NodeSet& nodes,
                            bool record_fit_errors, const std::vector<uint8_t>** room) {
  const ResourceFitCache::Result r =
      resource_fit_cache_.Check(task, nodes, job->tasks().size() > 1, record_fit_errors);
  if (room != nullptr) *room = r.room;
  if (!r.none_fits) return false;
  if (record_fit_errors && r.errors != nullptr) {
    job->task_fit_errors[task.uid()].AddNodeErrors(r.errors);
  }
  return true;
}

std::vector<std::string> Session::FittingGpus(const NodeInfo& node, const PodInfo& task) const {
  std::vector<std::string> filtered = node.FittingGpuGroups(task);
  int whole = static_cast<int>(node.idle.gpu()) + static_cast<int>(node.releasing.gpu());
  if (node.idle.gpu() > 0 || node.releasing.gpu() > 0) {
    for (int i = 0; i < whole; ++i) filtered.emplace_back(kWholeGpuIndicator);
  }
  std::vector<std::pair<double, size_t>> scored;
  for (size_t i = 0; i < filtered.size(); ++i) {
    std::optional<double> s = GpuOrderScore(task, node, filtered[i]);
    if (!s) continue;
    scored.emplace_back(*s, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  out.reserve(scored.size());
  for (auto& [s, i] : scored) out.push_back(filtered[i]);
  return out;
}

void Session::FireAllocate(const PodInfo& task) const {
  for (const auto& h : event_handlers_) {
    if (h.allocate) h.allocate(task);
  }
}

void Session::FireDeallocate(const PodInfo& task) const {
  for (const auto& h : event_handlers_) {
    if (h.deallocate) h.deallocate(task);
  }
}

Status Session::Evict(PodInfo* task, const std::string& message, const EvictionMetadata& meta) {
  PodGroupInfo* job = cluster_->JobOf(*task);
  if (job == nullptr) {
    return NotFoundError("could not evict pod " + task->key() + " without podGroup " + task->job());
  }
  NodeInfo* node = cluster_->FindNode(task->node_name);
  if (node == nullptr) return NotFoundError("node " + task->node_name + " of " + task->key());
  KAI_RETURN_IF_ERROR(sink_->Evict(EvictDecision{task->key(), job->uid(), message, meta, task}));
  task->status = PodStatus::kReleasing;
  BumpJobState(job);
  node->UpdateTask(task);
  FireDeallocate(*task);
  return Status::OK();
}

Status Session::BindTask(PodInfo* task) {
  task->status = PodStatus::kBinding;
  BumpJobState(cluster_->JobOf(*task));
  return Status::OK();
}

void Session::AddDeferredBind(PodInfo* task, std::function<void()> undo) {
  if (PodGroupInfo* job = cluster_->JobOf(*task)) {
    start_before_deferred_.try_emplace(job->uid(), job->last_start_timestamp);
  }
  deferred_binds_.push_back(DeferredBind{task, std::move(undo)});
}

int Session::JoinBinds() {
  std::vector<std::string> refused = sink_->JoinBinds();
  std::set<std::string> keys(refused.begin(), refused.end());
  int undone = 0;
  for (auto it = deferred_binds_.rbegin(); it != deferred_binds_.rend(); ++it) {
    if (keys.count(it->task->key()) == 0) continue;
    it->undo();
    ++undone;
    // A refused bind fails its statement's commit: the allocate action then does not record the
    // job's start (a partly written gang has not started either).
    if (PodGroupInfo* job = cluster_->JobOf(*it->task)) {
      auto before = start_before_deferred_.find(job->uid());
      if (before != start_before_deferred_.end()) job->last_start_timestamp = before->second;
    }
  }
  deferred_binds_.clear();
  start_before_deferred_.clear();
  return undone;
}

std::vector<std::string> PluginRegistry::Names() const {
  std::vector<std::string> out;
  for (const auto& [n, b] : builders_) out.push_back(n);
  return out;
}

}  // namespace kai::scheduler
