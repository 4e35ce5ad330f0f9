// JobsOrderByQueues (KAI actions/utils/job_order_by_queue.go, reference §7.1): the order in
// which actions consider pending jobs (or, in victim mode, victims), as a tree mirroring the
// queue hierarchy. Leaves hold jobs ordered by the job order; inner nodes hold child queue nodes
// ordered by the queue order of their best job, re-sorted lazily.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduler/actions/common/go_heap.h"
#include "scheduler/framework/session.h"

namespace kai::scheduler {

struct JobsOrderOptions {
  bool filter_unready = false;
  bool filter_non_pending = false;
  bool filter_non_preemptible = false;
  bool filter_non_active_allocated = false;
  bool victim_queue = false;
  int max_jobs_queue_depth = -1;  // per leaf queue; -1 = unlimited

  bool operator==(const JobsOrderOptions&) const = default;
};

class PendingJobsBase;

class JobsOrderByQueues {
 public:
  JobsOrderByQueues(const Session* ssn, JobsOrderOptions options);
  ~JobsOrderByQueues();
  JobsOrderByQueues(const JobsOrderByQueues&) = delete;
  JobsOrderByQueues& operator=(const JobsOrderByQueues&) = delete;

  // Pushes every job that passes the filters, in uid order (KAI iterates a Go map here; the
  // heap makes the result independent of the insertion order except for exact ties, which we
  // make deterministic).
  void InitializeWithJobs(const std::vector<PodGroupInfo*>& jobs);
  bool empty() const;
  int size() const;
  PodGroupInfo* PopNextJob();
  void PushJob(PodGroupInfo* job);
  // Empty again, as if constructed in the same session with `options`, keeping the memory of its
  // nodes and heaps: a victim search orders every pending job once per simulation, and
  // allocating ~500 leaf heaps each time was a tenth of it.
  void Reset(JobsOrderOptions options);
  // A copy in the same state, popping in the same order: victim searches start every partial
  // job from the same victim queue, built once per job instead of once per partial job.
  std::unique_ptr<JobsOrderByQueues> Clone() const;
  // Whether InitializeWithJobs would take `job` (its own filters and its queue's).
  bool Admits(const PodGroupInfo& job) const { return PassesFilters(job); }
  // InitializeWithJobs of the base's pending jobs and `relevant` (the preemptor, which stands for
  // the base's excluded job, and the victims' jobs), with the same result, on an empty order
  // without filters or depth limit. Only the subtrees of the queues the relevant jobs belong to
  // are ordered again; the others are copied from the base. False (nothing done) when the base
  // cannot stand for the pending jobs: then InitializeWithJobs must be used.
  // Each untouched subtree pops from the base's replay of it (PendingJobsBase::ReplayOf): the base
  // must outlive the order's pops and stay unchanged (no Build) until the order is Reset.
  bool InitializeFromBase(PendingJobsBase& base, const std::vector<PodGroupInfo*>& relevant);
  // Whether both pop the same jobs in the same order whatever happens next: the same nodes,
  // the same heaps of queue nodes, the same jobs per leaf, the same marks (debug checks, tests).
  // False while either has subtrees taken from a base and not entered (EnterAll).
  bool SameStateAs(const JobsOrderByQueues& other) const;
  // Fills every subtree InitializeFromBase left to be filled on first use (debug checks, tests).
  void EnterAll();

 private:
  struct Node;
  struct Replay;
  bool PassesFilters(const PodGroupInfo& job) const;
  // The job's leaf queue when the filters admit it, else nullptr.
  const QueueInfo* AdmittedQueue(const PodGroupInfo& job) const;
  // q's session index, checked against a table of `slots` entries (one per cluster queue).
  static size_t SlotOf(const QueueInfo& q, size_t slots);
  // The node of `q`, by its session index (nullptr: none).
  Node*& NodeOf(const QueueInfo* q);
  // `q` is the job's leaf queue.
  void PushJob(PodGroupInfo* job, const QueueInfo* q, size_t leaf_capacity);
  Node* CreateLeaf(const QueueInfo* q, size_t capacity = 0);
  Node* CreateInner(const QueueInfo* q);
  GoHeap<Node*>::Less NodeHeapLess();
  // A node from node_blocks_ (nodes are never freed one by one: a popped-out queue's node stays
  // until the order goes).
  Node* NewNode();
  size_t BlockSize(size_t block) const;
  void EnsureAncestors(Node* child, const QueueInfo* child_queue);
  Node* TraverseToLeaf(GoHeap<Node*>* heap);
  Node* NextNode(GoHeap<Node*>* heap);
  void HandlePop(Node* node);
  void MarkAncestors(Node* node);
  bool NodeLess(Node* l, Node* r) const;
  // The leaf a node's best job is read from: each level's top child.
  static const Node* BestLeaf(const Node* node);
  void BestJob(Node* node, const PodGroupInfo** pending,
               std::vector<const PodGroupInfo*>* victims) const;

  friend class PendingJobsBase;
  // InitializeFromBase's steps.
  void FinishFromBase(PendingJobsBase& base, const std::vector<uint8_t>& touched,
                      const std::vector<std::pair<PodGroupInfo*, const QueueInfo*>>& relevant);
  // Fills a node taken from a base (base_source) with its base node's heap, its children left
  // to be filled in turn.
  void Enter(Node* node);
  // Turns a node that pops from a replay into one taken from the base, in the state its replay
  // is in (its pops repeated on it), so that a push can change it.
  void LeaveReplay(Node* node);
  // Pops the next job of `subtree` as PopNextJob pops it when the traversal reaches `subtree`,
  // without touching anything above it. `subtree` must not be empty.
  PodGroupInfo* PopWithin(Node* subtree);
  // The best job the heaps under `node` show, as the pending-mode queue order reads it.
  static const PodGroupInfo* ShownBest(const Node* node);
  // Enters every node on the way from the root to `q`'s, so that a push can link under them.
  void EnterPathTo(const QueueInfo* q);
  static int JobsUnder(const Node& node);

  const Session* ssn_;
  JobsOrderOptions options_;
  std::optional<GoHeap<Node*>> roots_;
  std::vector<std::unique_ptr<Node[]>> node_blocks_;
  size_t block_ = 0;                        // the block NewNode hands out from
  size_t block_used_ = 0;                   // nodes handed out from it
  bool has_unentered_ = false;              // some node still has a base_source or a replay
  PendingJobsBase* replay_base_ = nullptr;  // whose replays the nodes pop from
  size_t first_block_ = 0;                  // 0: a node per cluster queue (BlockSize)
  // By the queues' session index (QueueInfo::session_index), sized on first use.
  std::vector<Node*> nodes_;
  std::unordered_map<const QueueInfo*, std::vector<const PodGroupInfo*>> popped_by_queue_;
  // PassesFilters' queue checks by session index (-1: not asked yet; queues do not change during
  // a session).
  mutable std::vector<int8_t> queue_passes_;
};

// Every pending job of one victim search but the searched job itself, ordered once while no victim
// is evicted, with the best job of every queue's subtree after each job came in (uid order). A
// simulation's order (JobsOrderByQueues::InitializeFromBase) depends on the pending jobs, the
// relevant jobs and the queues' numbers; the victims' evictions change only their own queues'
// numbers (and their ancestors'), so the subtree of any other queue comes out as it did here.
class PendingJobsBase {
 public:
  PendingJobsBase(const Session* ssn, PodGroupId excluded);
  ~PendingJobsBase();
  PendingJobsBase(const PendingJobsBase&) = delete;
  PendingJobsBase& operator=(const PendingJobsBase&) = delete;

  // Orders `pending` (every job with a Pending task, uid order); the excluded job is left out.
  // The session must be as the search found it: no victim evicted, nothing allocated.
  void Build(const std::vector<PodGroupInfo*>& pending);
  bool built() const { return order_ != nullptr; }

 private:
  friend class JobsOrderByQueues;
  using Replay = JobsOrderByQueues::Replay;
  // The pops of `q`'s subtree alone from the base's state, made on first use. Its queues' numbers
  // and jobs are the base's in every simulation that leaves the subtree untouched, and its heaps
  // change only when it is popped from, so it pops the same jobs in the same order whatever is
  // popped around it: each simulation reads them here instead of repeating its heap operations.
  Replay* ReplayOf(const QueueInfo& q);
  // The k-th job the replay pops (popping it on the replay's own copy the first time).
  PodGroupInfo* ReplayPop(Replay* replay, uint32_t k);
  // When a job came in: 2i+2 for the i-th pending job; a relevant job comes in just before the
  // first pending job of a greater uid (2i+1).
  uint32_t TimeOf(const PodGroupInfo& relevant) const;
  // Where a job of `uid` is or would be among pending_ (uid order).
  size_t PositionOf(const PodGroupId& uid) const;
  bool IsPending(const PodGroupId& uid) const;

  const Session* ssn_;
  PodGroupId excluded_;
  std::vector<PodGroupInfo*> pending_;
  std::unique_ptr<JobsOrderByQueues> order_;
  // By queue session index: each change of the subtree's best job as the pending jobs came in
  // (its first entry: when the subtree's node was made), and the queues of its child nodes.
  std::vector<std::vector<std::pair<uint32_t, PodGroupInfo*>>> timeline_;
  std::vector<std::vector<const QueueInfo*>> children_;
  std::vector<const QueueInfo*> roots_;
  bool usable_ = false;  // false: a node the base made hangs under a missing queue
  std::vector<std::unique_ptr<Replay>> replays_;  // by queue session index
};

// The order in which a JobsOrderByQueues without filters or depth limit, holding `jobs` among any
// others, pops `jobs` — when their leaf queue alone decides it: all of them in one leaf queue and
// the session's job order given by ranks (Session::AddJobOrderRankFn: a rank reads only the job's
// own state). The leaf's heap then pops them in job order (a total order, ties by uid) whatever
// other queues and jobs are interleaved and whatever is done to the jobs popped before. Empty if
// the queue is not admitted (none of them would be popped); nullopt when the condition fails.
std::optional<std::vector<PodGroupInfo*>> PopOrderWithinOneLeafQueue(
    const Session& ssn, std::vector<PodGroupInfo*> jobs);

}  // namespace kai::scheduler
