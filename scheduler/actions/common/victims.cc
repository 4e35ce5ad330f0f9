#include "scheduler/actions/common/victims.h"

#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "scheduler/actions/common/allocation.h"
#include "scheduler/framework/job_state_generation.h"
#include "scheduler/plugins/proportion/messages/format.h"

namespace kai::scheduler {

std::vector<PodGroupInfo*> AllJobs(const Session& ssn) {
  std::vector<PodGroupInfo*> out;
  out.reserve(ssn.cluster().jobs.size());
  for (const auto& [id, job] : ssn.cluster().jobs) out.push_back(job.get());
  return out;
}

namespace {

// The session's jobs_pending_at_open while it still holds every job that has a Pending task
// (no job was added since it was recorded), else nullptr. Sorted by uid (the job map's order).
const std::vector<PodGroupInfo*>* PendingAtOpen(const ClusterInfo& c) {
  if (!c.jobs_pending_at_open_set || c.num_jobs_at_open != c.jobs.size()) return nullptr;
#ifndef NDEBUG
  size_t all = 0;
  for (const auto& [id, job] : c.jobs) all += job->HasPendingTasks() ? 1 : 0;
  size_t listed = 0;
  for (const PodGroupInfo* job : c.jobs_pending_at_open) listed += job->HasPendingTasks() ? 1 : 0;
  CHECK_EQ(all, listed) << "a job gained a Pending task during the session";
  CHECK(std::is_sorted(
      c.jobs_pending_at_open.begin(), c.jobs_pending_at_open.end(),
      [](const PodGroupInfo* l, const PodGroupInfo* r) { return l->uid() < r->uid(); }));
#endif
  return &c.jobs_pending_at_open;
}

}  // namespace

std::vector<PodGroupInfo*> JobsThatMayBePending(const Session& ssn) {
  const std::vector<PodGroupInfo*>* at_open = PendingAtOpen(ssn.cluster());
  return at_open != nullptr ? *at_open : AllJobs(ssn);
}

namespace {

// One alive task on an existing node (or none) decides: stop at the first (the per-task node
// lookup dominated preempt and reclaim at M when every task was checked).
bool HasAlivePodUncached(const ClusterInfo& c, const PodGroupInfo& job) {
  for (const PodInfo* t : job.tasks()) {
    if (!IsAliveStatus(t->status)) continue;
    if (!t->node_name.empty() && c.FindNode(t->node_name) == nullptr) continue;
    return true;
  }
  return false;
}

// Every job of the cluster is asked once per victim queue, i.e. once per job an action searches
// for, and few of them change in between.
bool HasAlivePod(const ClusterInfo& c, const PodGroupInfo& job) {
  return MemoizedJobFlag(
      job, &job.alive_memo, [&] { return HasAlivePodUncached(c, job); }, "alive");
}

// Every pending job is asked by every victim simulation (PendingAndRelevantJobs): reading each of
// its tasks' statuses each time was a visible share of a simulation.
bool HasPendingTasks(const PodGroupInfo& job) {
  return MemoizedJobFlag(
      job, &job.pending_memo, [&] { return job.HasPendingTasks(); }, "pending");
}

}  // namespace

std::unique_ptr<JobsOrderByQueues> GetVictimsQueue(const Session& ssn, const JobFilter& filter,
                                                   const JobFilter& pure_filter,
                                                   const std::vector<PodGroupInfo*>* candidates,
                                                   size_t max_admitted) {
  std::vector<PodGroupInfo*> preemptees;
  const ClusterInfo& c = ssn.cluster();
  // False once the queue is full.
  auto consider = [&](PodGroupInfo* job) {
    if (preemptees.size() >= max_admitted) return false;
    if (pure_filter && !pure_filter(*job)) return true;
    if (HasAlivePod(c, *job) && (!filter || filter(*job))) preemptees.push_back(job);
    return true;
  };
  if (candidates != nullptr) {
    for (PodGroupInfo* job : *candidates) {
      if (!consider(job)) break;
    }
  } else {
    for (const auto& [id, job] : c.jobs) {
      if (!consider(job.get())) break;
    }
  }
  JobsOrderOptions opts;
  opts.victim_queue = true;
  auto q = std::make_unique<JobsOrderByQueues>(&ssn, opts);
  q->InitializeWithJobs(preemptees);
  return q;
}

namespace {

proportion::ResourceQuantities ToQuantities(const std::optional<QueueQuantities>& r) {
  if (!r) return proportion::ResourceQuantities::Of(0, 0, 0);
  return proportion::ResourceQuantities::Of(r->cpu, r->memory, r->gpu);
}

// "<queue> uses <GPU: .., CPU: .. (cores), memory: .. (GB)> with a quota of <..>, fair-share of
// <..> and queue priority of <..>." (§21.3; the formatting is the proportion plugin's), from the
// queue's numbers as they were when the batch was made.
struct QueueNumbers {
  const QueueInfo* queue = nullptr;
  proportion::ResourceQuantities allocated, deserved, fair_share;
};

QueueNumbers NumbersOf(const Session& ssn, const QueueInfo& q) {
  return {&q, ToQuantities(ssn.QueueAllocated(q)), ToQuantities(ssn.QueueDeserved(q)),
          ToQuantities(ssn.QueueFairShare(q))};
}

std::string QueueDetailsMessage(const QueueNumbers& n) {
  return proportion::ReclaimQueueDetailsMessage(n.queue->name(), n.allocated, n.deserved,
                                                n.fair_share, n.queue->priority());
}

// The eviction messages of one batch (§21.3). Everything a message says is read when the batch
// is made, before its first eviction: the victims' keys, the preemptor's name and, for reclaim,
// the numbers of the two queues each message names (the victim's and the reclaimer's, or their
// parents' when those differ); the text is made only for a committed eviction.
class EvictionBatchMessages final : public DeferredEvictionMessages {
 public:
  EvictionBatchMessages(const Session& ssn, std::string_view action,
                        std::vector<const PodInfo*> tasks, const PodGroupInfo& preemptor)
      : action_(action),
        preemptor_(preemptor.namespace_() + "/" + preemptor.name()),
        tasks_(std::move(tasks)) {
    if (action_ != kActionReclaim) return;
    queues_of_task_.reserve(tasks_.size());
    for (const PodInfo* t : tasks_) {
      std::optional<std::pair<const QueueInfo*, const QueueInfo*>> pair =
          NamedQueues(ssn.cluster(), *t, preemptor);
      if (!pair) {
        queues_of_task_.emplace_back(-1, -1);
        continue;
      }
      queues_of_task_.emplace_back(Numbers(ssn, *pair->first), Numbers(ssn, *pair->second));
    }
  }

  std::string Message(size_t i) const override {
    const std::string& victim = tasks_[i]->key();
    if (action_ == kActionPreempt) {
      return "Pod " + victim + " was preempted by higher priority workload " + preemptor_;
    }
    if (action_ == kActionConsolidation) {
      return "Pod " + victim +
             " was preempted and rescheduled due to bin packing (resource consolidation) procedure";
    }
    if (action_ != kActionReclaim) return "";
    std::string msg = "Pod " + victim + " was preempted by workload " + preemptor_ + ".";
    const auto [l, r] = queues_of_task_[i];
    if (l < 0) return msg;
    msg += '\n';
    msg += QueueDetailsMessage(numbers_[l]);
    msg += '\n';
    msg += QueueDetailsMessage(numbers_[r]);
    return msg;
  }

 private:
  // The reclaimee's and the reclaimer's queues, or their parents when those differ; nullopt when
  // one is missing.
  static std::optional<std::pair<const QueueInfo*, const QueueInfo*>> NamedQueues(
      const ClusterInfo& c, const PodInfo& victim, const PodGroupInfo& preemptor) {
    const PodGroupInfo* victim_job = c.JobOf(victim);
    const QueueInfo* reclaimer_q = c.QueueOf(preemptor);
    const QueueInfo* reclaimee_q = victim_job ? c.QueueOf(*victim_job) : nullptr;
    if (reclaimer_q == nullptr || reclaimee_q == nullptr) return std::nullopt;
    if (reclaimee_q->parent() == reclaimer_q->parent()) return {{reclaimee_q, reclaimer_q}};
    const QueueInfo* lp = c.ParentOf(*reclaimee_q);
    const QueueInfo* rp = c.ParentOf(*reclaimer_q);
    if (lp == nullptr || rp == nullptr) return std::nullopt;
    return {{lp, rp}};
  }

  // The index of q's numbers, read once per batch (a victim gang names the same two queues).
  int Numbers(const Session& ssn, const QueueInfo& q) {
    for (size_t i = 0; i < numbers_.size(); ++i) {
      if (numbers_[i].queue == &q) return static_cast<int>(i);
    }
    numbers_.push_back(NumbersOf(ssn, q));
    return static_cast<int>(numbers_.size()) - 1;
  }

  std::string action_;
  std::string preemptor_;  // namespace/name
  std::vector<const PodInfo*> tasks_;
  std::vector<std::pair<int, int>> queues_of_task_;  // reclaim: indexes into numbers_, -1: none
  std::vector<QueueNumbers> numbers_;
};

}  // namespace

std::string EvictionMessage(const Session& ssn, std::string_view action, const PodInfo& victim,
                            const PodGroupInfo& preemptor) {
  return EvictionBatchMessages(ssn, action, {&victim}, preemptor).Message(0);
}

Status EvictAllPreemptees(Session* ssn, const std::vector<PodInfo*>& tasks,
                          const PodGroupInfo& preemptor, Statement* stmt, std::string_view action) {
  if (tasks.empty()) return Status::OK();
  auto messages = std::make_shared<const EvictionBatchMessages>(
      *ssn, action, std::vector<const PodInfo*>(tasks.begin(), tasks.end()), preemptor);
  auto meta = std::make_shared<EvictionMetadata>();
  meta->action = std::string(action);
  meta->gang_size = static_cast<int>(tasks.size());
  meta->preemptor = preemptor.uid();
  for (size_t i = 0; i < tasks.size(); ++i) {
    Status s = stmt->Evict(tasks[i], messages, i, meta);
    if (!s.ok()) return s.WithPrefix("failed to evict all preemptees");
  }
  return Status::OK();
}

namespace {

// How many pods of `shape` the nodes can hold at most: on each node with room for one (`room`,
// ResourceFitCache's per-node answer), the shape's multiples within idle + releasing in each
// dimension it asks for. Placing any pod takes its tracked request from a node's idle or releasing
// resources, so no sequence of placements (victims first or not) fits more. For a regular request
// the shape is the whole request; for a shared-GPU one (fraction or GPU memory, `shared`) it is the
// request without GPUs, whose room lives in GPU groups instead (NodeInfo::SharedGpuSlots bounds
// those), but whose CPU, memory and pods are taken as a regular pod's are.
double PodsCapacity(const NodeSet& nodes, const std::vector<uint8_t>& room,
                    const ResourceVector& shape, const PodInfo* shared, double enough) {
  double total = 0;
  for (size_t i = 0; i < nodes.size() && total < enough; ++i) {
    if (room[i] == 0) continue;
    const NodeInfo* n = nodes[i];
    double fits = std::numeric_limits<double>::infinity();
    for (int d = 0; d < shape.size(); ++d) {
      const double req = shape.Get(d);
      if (req <= 0) continue;
      fits = std::min(fits, std::floor((n->idle.Get(d) + n->releasing.Get(d)) / req));
    }
    if (shared != nullptr) {
      const double devices =
          static_cast<double>(std::max<int64_t>(1, shared->gpu_req.NumDevices()));
      fits = std::min(
          fits, std::floor(n->SharedGpuSlots(n->ResourceGpuMemory(shared->gpu_req)) / devices));
    }
    total += std::max(fits, 1.0);  // it has room for one
  }
  return total;
}

// The part of a pod's request PodsCapacity can bound (empty when there is none): all of a regular
// request, the non-GPU part of a shared-GPU one.
ResourceVector BoundedShape(const PodInfo& t) {
  if (t.IsRegularGpuRequest()) return t.res_req;
  if (!t.IsSharedGpuRequest()) return ResourceVector();
  ResourceVector shape = t.res_req;
  if (kGpuIndex < shape.size()) shape.Set(kGpuIndex, 0);
  return shape;
}

// Pods the fit check cannot tell apart (the same room on every node).
bool SameFitShape(const PodInfo& a, const PodInfo& b) {
  return a.request_type == b.request_type && a.res_req == b.res_req && a.gpu_req == b.gpu_req;
}

// True when the preemptor certainly cannot be placed on `nodes`, whatever order the simulation
// pops it and the victims' jobs in (every pod AllocateJob is given must be placed): one of its
// pods has room on none of the nodes now, or the nodes cannot hold all of its pods of one shape
// (PodsCapacity; a gang of eight 1-GPU pods where victims free 3 GPUs, of five 0.25-GPU pods
// asking 2 CPUs each where 8 CPUs are free, or of three 0.25-GPU pods where half a GPU is free).
// Re-placing victims first only takes room (a pipelined victim uses its new node's idle or
// releasing resources; the node it left keeps it as releasing). Said only when skipping the
// simulation changes nothing outside the statement it would have rolled back
// (PreemptorLeavesNoTrace; victims record no fit errors in simulations, PopAndAllocate).
bool PreemptorCannotBePlaced(Session* ssn, const NodeSet& nodes, const PodGroupInfo& preemptor) {
  const std::vector<PodInfo*> tasks = GetTasksToAllocate(*ssn, preemptor, false);
  const ClusterInfo& c = ssn->cluster();
  // Pods by fit shape in first-seen order: the first such pod, the shape, whether PodsCapacity
  // can bound it and how many pods there are of it.
  struct Shape {
    const PodInfo* first;
    ResourceVector bounded;
    bool boundable;
    double count;
  };
  std::vector<Shape> shapes;
  std::vector<int> shape_of(tasks.size(), -1);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const PodInfo* t = tasks[i];
    if (c.JobOf(*t) == nullptr) return false;
    auto it = std::find_if(shapes.begin(), shapes.end(),
                           [t](const Shape& s) { return SameFitShape(*s.first, *t); });
    if (it == shapes.end()) {
      ResourceVector bounded = BoundedShape(*t);
      const bool boundable = !bounded.IsZero() || t->IsSharedGpuRequest();
      it = shapes.insert(shapes.end(), Shape{t, std::move(bounded), boundable, 0});
    }
    if (!it->boundable) continue;
    ++it->count;
    shape_of[i] = static_cast<int>(it - shapes.begin());
  }
  std::vector<uint8_t> bounded(shapes.size(), 0);
  bool cannot = false;
  for (size_t i = 0; i < tasks.size() && !cannot; ++i) {
    const std::vector<uint8_t>* room = nullptr;
    cannot = ssn->NoNodeHasRoom(*tasks[i], c.JobOf(*tasks[i]), nodes, false, &room);
    const int s = shape_of[i];
    if (cannot || s < 0 || bounded[s] != 0 || room == nullptr) continue;
    bounded[s] = 1;
    const Shape& shape = shapes[s];
    const PodInfo* shared = shape.first->IsSharedGpuRequest() ? shape.first : nullptr;
    cannot = PodsCapacity(nodes, *room, shape.bounded, shared, shape.count) < shape.count;
  }
  return cannot && PreemptorLeavesNoTrace(*ssn, tasks);
}

// The preemptor and the victims' jobs (the preemptor replaces the session job of its uid).
std::map<PodGroupId, PodGroupInfo*> RelevantJobs(
    PodGroupInfo* preemptor, const std::map<PodGroupId, PodGroupInfo*>& victim_jobs) {
  std::map<PodGroupId, PodGroupInfo*> out = victim_jobs;
  out[preemptor->uid()] = preemptor;
  return out;
}

// Every pending job and the relevant ones (PopAndAllocate's queue), in uid order. The pending
// jobs come sorted (from the session's job map); the few others are merged in, instead of
// building a map of every pending job per simulation.
std::vector<PodGroupInfo*> PendingAndRelevantJobs(
    const ClusterInfo& c, const std::map<PodGroupId, PodGroupInfo*>& relevant) {
  std::vector<PodGroupInfo*> all_pending;
  const std::vector<PodGroupInfo*>* candidates = PendingAtOpen(c);
  if (candidates == nullptr) {
    for (const auto& [id, job] : c.jobs) {
      if (HasPendingTasks(*job)) all_pending.push_back(job.get());
    }
    candidates = &all_pending;
  }
  std::vector<PodGroupInfo*> list;
  list.reserve(candidates->size() + relevant.size());
  auto append_pending = [&list](auto from, auto to) {
    for (; from != to; ++from) {
      if (HasPendingTasks(**from)) list.push_back(*from);
    }
  };
  // The few relevant jobs are placed by binary search: comparing every pending job's uid to them
  // was most of this merge.
  auto p = candidates->begin();
  for (const auto& [id, j] : relevant) {
    auto at = std::lower_bound(
        p, candidates->end(), id,
        [](const PodGroupInfo* job, const PodGroupId& uid) { return job->uid() < uid; });
    append_pending(p, at);
    p = at;
    if (p != candidates->end() && (*p)->uid() == id) ++p;  // replaced by the relevant entry
    list.push_back(j);
  }
  append_pending(p, candidates->end());
  return list;
}

// The order in which PopAndAllocate's queue of every pending job pops the relevant ones, when
// their leaf queue alone decides it (preempt: victims share the preemptor's queue). Building and
// ordering every pending job was most of a preempt simulation; the other jobs are only skipped.
std::optional<std::vector<PodGroupInfo*>> RelevantPopOrder(
    const Session& ssn, const std::map<PodGroupId, PodGroupInfo*>& relevant) {
  std::vector<PodGroupInfo*> jobs;
  jobs.reserve(relevant.size());
  for (const auto& [id, j] : relevant) jobs.push_back(j);
  std::optional<std::vector<PodGroupInfo*>> order = PopOrderWithinOneLeafQueue(ssn, jobs);
#ifndef NDEBUG
  if (order) {
    JobsOrderByQueues queue(&ssn, JobsOrderOptions{});
    queue.InitializeWithJobs(PendingAndRelevantJobs(ssn.cluster(), relevant));
    std::vector<PodGroupInfo*> popped;
    while (PodGroupInfo* job = queue.PopNextJob()) {
      auto it = relevant.find(job->uid());
      if (it != relevant.end() && it->second == job) popped.push_back(job);
    }
    CHECK(popped == *order) << "the relevant jobs' pop order is not their leaf queue's job order";
  }
#endif
  return order;
}

// The simulation itself: the preemptor and the victims' jobs popped in fairness order among all
// pending jobs; victims re-placed where they can be, the preemptor must be placed.
bool PopAndAllocate(Session* ssn, Statement* stmt, const NodeSet& nodes, PodGroupInfo* preemptor,
                    const std::map<PodGroupId, PodGroupInfo*>& victim_jobs,
                    SimulationOrder* scratch) {
  const std::map<PodGroupId, PodGroupInfo*> relevant = RelevantJobs(preemptor, victim_jobs);
  bool preemptor_allocated = false;
  auto allocate = [&](PodGroupInfo* job) {
    if (job != preemptor) {
      // A victim's explanation tells why its own pods wait, not why a hypothetical move failed
      // (KAI keeps these; docs/scheduler-behaviour.md): a simulation then leaves nothing on it.
      ++job->fit_errors_muted;
      AllocateJob(ssn, stmt, nodes, job, /*pipeline_only=*/true);
      --job->fit_errors_muted;
      return true;
    }
    preemptor_allocated = AllocateJob(ssn, stmt, nodes, job, /*pipeline_only=*/true);
    return preemptor_allocated;
  };
  if (std::optional<std::vector<PodGroupInfo*>> order = RelevantPopOrder(*ssn, relevant)) {
    for (PodGroupInfo* job : *order) {
      if (!allocate(job)) return false;
    }
    return preemptor_allocated;
  }
  std::optional<JobsOrderByQueues> own;
  if (scratch != nullptr) {
    scratch->order.Reset(JobsOrderOptions{});
  } else {
    own.emplace(ssn, JobsOrderOptions{});
  }
  JobsOrderByQueues& queue = scratch != nullptr ? scratch->order : *own;
  std::vector<PodGroupInfo*> relevant_list;
  relevant_list.reserve(relevant.size());
  for (const auto& [id, j] : relevant) relevant_list.push_back(j);
#ifndef NDEBUG
  // The full order, popped beside the one from the base: the same jobs in the same order.
  std::optional<JobsOrderByQueues> check;
#endif
  if (scratch != nullptr && queue.InitializeFromBase(scratch->base, relevant_list)) {
#ifndef NDEBUG
    check.emplace(ssn, JobsOrderOptions{});
    check->InitializeWithJobs(PendingAndRelevantJobs(ssn->cluster(), relevant));
    std::unique_ptr<JobsOrderByQueues> entered = queue.Clone();  // the order itself stays lazy
    entered->EnterAll();
    CHECK(entered->SameStateAs(*check))
        << "the order built from the base differs for preemptor " << preemptor->uid();
#endif
  } else {
    queue.InitializeWithJobs(PendingAndRelevantJobs(ssn->cluster(), relevant));
  }
  // The queue holds each relevant job as the relevant entry itself (PendingAndRelevantJobs), so
  // a popped job is relevant exactly when its pointer is one of them.
  std::vector<const PodGroupInfo*> relevant_jobs(relevant_list.begin(), relevant_list.end());
  std::sort(relevant_jobs.begin(), relevant_jobs.end(), std::less<>());
  // Pending jobs only shape the order; once the preemptor and every victim job were popped, the
  // rest of the queue changes nothing.
  size_t relevant_left = relevant.size();
  while (!queue.empty() && relevant_left > 0) {
    PodGroupInfo* job = queue.PopNextJob();
#ifndef NDEBUG
    if (check) CHECK(job == check->PopNextJob()) << "the order from the base popped another job";
#endif
    if (job == nullptr) break;
    if (!std::binary_search(relevant_jobs.begin(), relevant_jobs.end(), job, std::less<>())) {
      continue;
    }
    --relevant_left;
    if (!allocate(job)) return false;
  }
  return preemptor_allocated;
}

}  // namespace

void PrepareSimulationOrder(const Session& ssn, const PodGroupInfo& preemptor,
                            const std::vector<PodInfo*>& victims, SimulationOrder* so) {
  if (so->base.built()) return;
  const ClusterInfo& c = ssn.cluster();
  const QueueInfo* q = c.QueueOf(preemptor);
  bool one_queue = ssn.job_order_ranked();
  for (const PodInfo* t : victims) {
    const PodGroupInfo* j = c.JobOf(*t);
    if (j != nullptr && c.QueueOf(*j) != q) one_queue = false;
  }
  if (!one_queue) so->base.Build(PendingAndRelevantJobs(c, {}));
}

bool TryToVirtuallyAllocatePreemptor(Session* ssn, Statement* stmt, const NodeSet& nodes,
                                     PodGroupInfo* preemptor, const std::vector<PodInfo*>& victims,
                                     SimulationOrder* scratch) {
  const ClusterInfo& c = ssn->cluster();
  auto victim_jobs_of = [&] {
    std::map<PodGroupId, PodGroupInfo*> victim_jobs;
    for (const PodInfo* t : victims) {
      if (PodGroupInfo* j = c.JobOf(*t)) victim_jobs[j->uid()] = j;
    }
    return victim_jobs;
  };
  // Most victim simulations of a full cluster end here (the preemptor, popped first, fits
  // nowhere, or its gang does not fit in what the victims free); ordering every pending job for
  // them was most of reclaim's time.
  if (PreemptorCannotBePlaced(ssn, nodes, *preemptor)) {
#ifndef NDEBUG
    CHECK(!PopAndAllocate(ssn, stmt, nodes, preemptor, victim_jobs_of(), scratch))
        << "preemptor " << preemptor->uid() << " was placed although it could not be";
#endif
    return false;
  }
  return PopAndAllocate(ssn, stmt, nodes, preemptor, victim_jobs_of(), scratch);
}

bool PreemptorLeavesNoTrace(const Session& ssn, const std::vector<PodInfo*>& tasks) {
  const ClusterInfo& c = ssn.cluster();
  for (const PodInfo* t : tasks) {
    const PodGroupInfo* real_job = c.JobOf(*t);
    if (real_job == nullptr || ssn.PrePredicate(*t, *real_job)) return false;
  }
  return true;
}

NodeSet FeasibleNodesForJob(const NodeSet& all, const PodGroupInfo& job) {
  for (const PodInfo* t : job.tasks()) {
    if (!t->IsRequireAnyKindOfGpu()) return all;
  }
  NodeSet out;
  for (NodeInfo* n : all) {
    if (n->HasIdleOrReleasingGpus()) out.push_back(n);
  }
  return out;
}

bool IsEnoughGpusAllocatableForJob(const Session& ssn, const PodGroupInfo& job,
                                   bool real_allocation) {
  double gpus = 0;
  int64_t memory = 0;
  for (const NodeInfo* n : ssn.cluster().node_list) {
    if (!n->facts().ready) continue;
    auto idle = n->SumOfIdleGpus();
    auto rel = n->SumOfReleasingGpus();
    gpus += idle.first + rel.first;
    memory += idle.second + rel.second;
  }
  auto [req_gpus, req_mem] = GetTasksToAllocateRequestedGpus(ssn, job, real_allocation);
  return gpus >= req_gpus && memory >= req_mem;
}

namespace {

bool RequestLessEqual(const PodInfo& a, const PodInfo& b) {
  // ResourceRequirements.LessEqual: CPU, memory, scalars and the GPU requirement.
  for (int i = 0; i < std::max(a.res_req.size(), b.res_req.size()); ++i) {
    if (i == kGpuIndex) continue;
    if (a.res_req.Get(i) > b.res_req.Get(i)) return false;
  }
  const GpuRequirement& g = a.gpu_req;
  const GpuRequirement& gg = b.gpu_req;
  if (g.NumDevices() > gg.NumDevices()) return false;
  if (!(g.Portion() < gg.Portion() || std::abs(g.Portion() - gg.Portion()) < 0.01)) return false;
  for (const auto& [name, q] : g.MigResources()) {
    auto it = gg.MigResources().find(name);
    if (it == gg.MigResources().end() || q > it->second) return false;
  }
  return true;
}

std::vector<const PodInfo*> SortedRequests(const std::vector<PodInfo*>& tasks) {
  std::vector<const PodInfo*> out(tasks.begin(), tasks.end());
  std::stable_sort(out.begin(), out.end(), [](const PodInfo* a, const PodInfo* b) {
    return RequestLessEqual(*a, *b) && !RequestLessEqual(*b, *a);
  });
  return out;
}

bool JobEasierToSchedule(const PodGroupInfo& pg1, const PodGroupInfo& pg2) {
  std::vector<PodInfo*> p1 = pg1.PendingTasks();
  std::vector<PodInfo*> p2 = pg2.PendingTasks();
  if (p1.empty() || p2.empty()) return false;
  if (p2.size() > p1.size()) return true;
  auto r1 = SortedRequests(p1);
  auto r2 = SortedRequests(p2);
  for (size_t i = 0; i < r1.size(); ++i) {
    if (i >= r2.size()) return false;
    if (RequestLessEqual(*r1[i], *r2[i])) {
      if (RequestLessEqual(*r2[i], *r1[i])) continue;
      return true;
    }
  }
  return false;
}

bool IsFootprintSmaller(const PodGroupInfo& pg1, const PodGroupInfo& pg2) {
  std::vector<PodInfo*> p1 = pg1.PendingTasks();
  std::vector<PodInfo*> p2 = pg2.PendingTasks();
  if (p1.empty() || p2.empty()) return false;
  if (p1.size() > p2.size()) return false;
  auto r1 = SortedRequests(p1);
  auto r2 = SortedRequests(p2);
  for (size_t i = 0; i < r1.size(); ++i) {
    if (!RequestLessEqual(*r1[i], *r2[i])) return false;
  }
  return true;
}

}  // namespace

bool MinimalJobRepresentatives::IsEasierToSchedule(const PodGroupInfo& job,
                                                   const PodGroupInfo** other) const {
  auto it = representatives_.find(job.SchedulingConstraintsSignature());
  if (it == representatives_.end()) return true;
  if (other) *other = it->second;
  return JobEasierToSchedule(job, *it->second);
}

void MinimalJobRepresentatives::UpdateRepresentative(const PodGroupInfo* job) {
  const std::string& key = job->SchedulingConstraintsSignature();
  auto it = representatives_.find(key);
  if (it != representatives_.end() && !IsFootprintSmaller(*job, *it->second)) return;
  representatives_[key] = job;
}

}  // namespace kai::scheduler
