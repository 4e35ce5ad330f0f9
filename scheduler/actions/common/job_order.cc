#include "scheduler/actions/common/job_order.h"

#include <glog/logging.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "scheduler/actions/common/job_order_node.h"
#include "scheduler/framework/job_state_generation.h"

namespace kai::scheduler {

JobsOrderByQueues::JobsOrderByQueues(const Session* ssn, JobsOrderOptions options)
    : ssn_(ssn), options_(options) {}

JobsOrderByQueues::Node* JobsOrderByQueues::NewNode() {
  if (node_blocks_.empty() || block_used_ == BlockSize(block_)) {
    if (!node_blocks_.empty()) ++block_;
    if (block_ == node_blocks_.size())
      node_blocks_.push_back(std::make_unique<Node[]>(BlockSize(block_)));
    block_used_ = 0;
  }
  Node* node = &node_blocks_[block_][block_used_++];
  // A node handed out again after Reset keeps its heaps' storage; the rest starts afresh.
  node->queue = nullptr;
  node->needs_reorder = false;
  node->parent = nullptr;
  node->build_best = nullptr;
  node->base_source = nullptr;
  node->replay = nullptr;
  node->replayed = 0;
  return node;
}

size_t JobsOrderByQueues::BlockSize(size_t block) const {
  // The first block holds a node per queue of the cluster: more are needed only when queues
  // emptied by pops are pushed to again.
  if (block != 0) return 32;
  return first_block_ != 0 ? first_block_ : std::max<size_t>(ssn_->cluster().queues.size(), 8);
}

void JobsOrderByQueues::Reset(JobsOrderOptions options) {
  options_ = options;
  roots_.reset();
  block_ = 0;
  block_used_ = 0;
  std::fill(nodes_.begin(), nodes_.end(), nullptr);
  has_unentered_ = false;
  replay_base_ = nullptr;
  popped_by_queue_.clear();  // (queue_passes_ reads only the session's queues: kept)
}

size_t JobsOrderByQueues::SlotOf(const QueueInfo& q, size_t slots) {
  const int i = q.session_index();
  CHECK(i >= 0 && static_cast<size_t>(i) < slots) << "queue " << q.uid() << " not indexed";
  return static_cast<size_t>(i);
}

JobsOrderByQueues::Node*& JobsOrderByQueues::NodeOf(const QueueInfo* q) {
  // Sized on first use: an order built only to ask Admits never holds a node.
  if (nodes_.empty()) nodes_.assign(ssn_->cluster().queues.size(), nullptr);
  return nodes_[SlotOf(*q, nodes_.size())];
}

JobsOrderByQueues::~JobsOrderByQueues() = default;

bool JobsOrderByQueues::PassesFilters(const PodGroupInfo& job) const {
  return AdmittedQueue(job) != nullptr;
}

const QueueInfo* JobsOrderByQueues::AdmittedQueue(const PodGroupInfo& job) const {
  // A session job's readiness reads task statuses and gates against minimums that only copies
  // (partial jobs, status_version 0) change: memoized for session jobs only.
  if (options_.filter_unready &&
      !(job.status_version != 0
            ? MemoizedJobFlag(
                  job, &job.ready_memo, [&job] { return job.IsReadyForScheduling(); }, "ready")
            : job.IsReadyForScheduling())) {
    return nullptr;
  }
  if (options_.filter_non_pending && !job.HasPendingTasks()) return nullptr;
  if (options_.filter_non_preemptible && !job.IsPreemptible()) return nullptr;
  // Every job of the cluster is asked once per victim queue (once per job a victim search is
  // for), and few of them change in between.
  if (options_.filter_non_active_allocated &&
      !MemoizedJobFlag(
          job, &job.active_allocated_memo, [&job] { return job.NumActiveAllocated() != 0; },
          "active-allocated")) {
    return nullptr;
  }
  const ClusterInfo& c = ssn_->cluster();
  const QueueInfo* q = c.QueueOf(job);
  if (q == nullptr) return nullptr;
  if (queue_passes_.empty()) queue_passes_.assign(c.queues.size(), -1);
  const size_t i = SlotOf(*q, queue_passes_.size());
  if (queue_passes_[i] < 0) {
    queue_passes_[i] = (q->parent().empty() || c.ParentOf(*q) != nullptr) && q->IsLeafQueue();
  }
  return queue_passes_[i] != 0 ? q : nullptr;
}

namespace {

// Starts loading what JobsOrderByQueues::AdmittedQueue reads of `job`.
void PrefetchAdmission(const PodGroupInfo& job) {
  __builtin_prefetch(&job.ready_memo);
  __builtin_prefetch(&job.active_allocated_memo);
  __builtin_prefetch(&job.cached_queue);
}

}  // namespace

void JobsOrderByQueues::InitializeWithJobs(const std::vector<PodGroupInfo*>& jobs) {
  // Each leaf's heap is sized to its jobs up front: a simulation builds an order of every pending
  // job, and growing the heaps one push at a time was a large part of its allocations. Each job's
  // queue is looked up once.
  // A victim queue reads every running job of the cluster, each on its own cache lines: the jobs
  // a few places ahead are fetched while the current one is read.
  constexpr size_t kAhead = 8;
  std::vector<std::pair<PodGroupInfo*, const QueueInfo*>> admitted;
  admitted.reserve(jobs.size());
  std::vector<uint32_t> per_queue(ssn_->cluster().queues.size(), 0);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i + kAhead < jobs.size()) PrefetchAdmission(*jobs[i + kAhead]);
    PodGroupInfo* job = jobs[i];
    const QueueInfo* q = AdmittedQueue(*job);
    if (q == nullptr) continue;
    admitted.emplace_back(job, q);
    ++per_queue[q->session_index()];
  }
  for (size_t i = 0; i < admitted.size(); ++i) {
    if (i + kAhead < admitted.size())
      __builtin_prefetch(&admitted[i + kAhead].first->job_order_key_memo);
    const auto& [job, q] = admitted[i];
    PushJob(job, q, per_queue[q->session_index()]);
  }
}

bool JobsOrderByQueues::empty() const { return !roots_.has_value() || roots_->empty(); }

int JobsOrderByQueues::size() const {
  int n = 0;
  for (const Node* node : nodes_) {
    if (node == nullptr) continue;
    if (node->replay != nullptr) {
      n += node->size();
    } else if (node->base_source != nullptr) {
      n += JobsUnder(*node->base_source);
    } else if (node->leaf) {
      n += node->jobs->size();
    }
  }
  return n;
}

JobsOrderByQueues::Node* JobsOrderByQueues::CreateLeaf(const QueueInfo* q, size_t capacity) {
  Node* node = NewNode();
  node->queue = q;
  node->leaf = true;
  GoHeap<PodGroupInfo*>::Less less;
  if (options_.victim_queue) {
    less = [this](PodGroupInfo* const& l, PodGroupInfo* const& r) {
      return ssn_->JobOrderLess(*r, *l);
    };
  } else {
    less = [this](PodGroupInfo* const& l, PodGroupInfo* const& r) {
      return ssn_->JobOrderLess(*l, *r);
    };
  }
  if (node->jobs.has_value()) {
    node->jobs->Reset(std::move(less), options_.max_jobs_queue_depth);
  } else {
    node->jobs.emplace(std::move(less), options_.max_jobs_queue_depth);
  }
  node->jobs->Reserve(capacity);
  NodeOf(q) = node;
  return node;
}

JobsOrderByQueues::Node* JobsOrderByQueues::CreateInner(const QueueInfo* q) {
  Node* node = NewNode();
  node->queue = q;
  node->leaf = false;
  if (node->children.has_value()) {
    node->children->Reset(NodeHeapLess());
  } else {
    node->children.emplace(NodeHeapLess());
  }
  NodeOf(q) = node;
  return node;
}

GoHeap<JobsOrderByQueues::Node*>::Less JobsOrderByQueues::NodeHeapLess() {
  return [this](Node* const& l, Node* const& r) { return NodeLess(l, r); };
}

std::unique_ptr<JobsOrderByQueues> JobsOrderByQueues::Clone() const {
  auto out = std::make_unique<JobsOrderByQueues>(ssn_, options_);
  // Nodes first (the heaps' comparators must point at the copy), then their links and heaps.
  std::unordered_map<const Node*, Node*> copy_of;
  copy_of.reserve(nodes_.size());
  for (const Node* node : nodes_) {
    if (node == nullptr) continue;
    Node* n = node->leaf ? out->CreateLeaf(node->queue) : out->CreateInner(node->queue);
    n->needs_reorder = node->needs_reorder;
    n->build_best = node->build_best;
    n->base_source = node->base_source;
    n->replay = node->replay;
    n->replayed = node->replayed;
    copy_of[node] = n;
  }
  auto mapped = [&copy_of](const std::vector<Node*>& nodes) {
    std::vector<Node*> v;
    v.reserve(nodes.size());
    for (Node* n : nodes) v.push_back(copy_of.at(n));
    return v;
  };
  for (const Node* node : nodes_) {
    if (node == nullptr) continue;
    Node* n = copy_of.at(node);
    n->parent = node->parent == nullptr ? nullptr : copy_of.at(node->parent);
    if (node->leaf) {
      n->jobs->set_items(node->jobs->items());
    } else {
      n->children->set_items(mapped(node->children->items()));
    }
  }
  if (roots_.has_value()) {
    out->roots_.emplace(out->NodeHeapLess());
    out->roots_->set_items(mapped(roots_->items()));
  }
  out->has_unentered_ = has_unentered_;
  out->replay_base_ = replay_base_;
  out->popped_by_queue_ = popped_by_queue_;
  out->queue_passes_ = queue_passes_;
  return out;
}

void JobsOrderByQueues::PushJob(PodGroupInfo* job) {
  const QueueInfo* q = ssn_->cluster().QueueOf(*job);
  if (q == nullptr || !q->IsLeafQueue()) return;
  if (has_unentered_) EnterPathTo(q);
  PushJob(job, q, 0);
}

void JobsOrderByQueues::PushJob(PodGroupInfo* job, const QueueInfo* q, size_t leaf_capacity) {
  Node* leaf = NodeOf(q);
  const bool needs_linking = leaf == nullptr;
  if (needs_linking) leaf = CreateLeaf(q, leaf_capacity);
  leaf->jobs->Push(job);
  if (needs_linking) EnsureAncestors(leaf, q);
  MarkAncestors(leaf);
}

void JobsOrderByQueues::EnsureAncestors(Node* child, const QueueInfo* child_queue) {
  if (child_queue->parent().empty()) {
    if (child->parent == nullptr) {
      if (!roots_.has_value()) roots_.emplace(NodeHeapLess());
      roots_->Push(child);
    }
    return;
  }
  const QueueInfo* parent_queue = ssn_->cluster().ParentOf(*child_queue);
  if (parent_queue == nullptr) return;
  Node* parent = NodeOf(parent_queue);
  const bool parent_is_new = parent == nullptr;
  if (parent_is_new) parent = CreateInner(parent_queue);
  if (child->parent == nullptr) {
    child->parent = parent;
    parent->children->Push(child);
  }
  if (parent_is_new) EnsureAncestors(parent, parent_queue);
}

JobsOrderByQueues::Node* JobsOrderByQueues::NextNode(GoHeap<Node*>* heap) {
  while (!heap->empty()) {
    Node* node = heap->Peek();
    if (node->needs_reorder) {
      heap->Fix(0);
      node->needs_reorder = false;
      continue;
    }
    if (node->empty()) return nullptr;
    return node;
  }
  return nullptr;
}

JobsOrderByQueues::Node* JobsOrderByQueues::TraverseToLeaf(GoHeap<Node*>* heap) {
  Node* node = NextNode(heap);
  while (node != nullptr) {
    if (node->replay != nullptr) break;
    if (node->base_source != nullptr) Enter(node);
    if (node->leaf) break;
    node = NextNode(&*node->children);
  }
  return node;
}

PodGroupInfo* JobsOrderByQueues::PopNextJob() {
  if (empty()) return nullptr;
  Node* leaf = TraverseToLeaf(&*roots_);
  if (leaf == nullptr) return nullptr;
  PodGroupInfo* job = leaf->replay != nullptr
                          ? replay_base_->ReplayPop(leaf->replay, leaf->replayed++)
                          : leaf->jobs->Pop();
  if (options_.victim_queue) popped_by_queue_[leaf->queue].push_back(job);
  HandlePop(leaf);
  return job;
}

void JobsOrderByQueues::HandlePop(Node* node) {
  while (node != nullptr) {
    if (node->size() != 0) {
      MarkAncestors(node);
      return;
    }
    Node* parent = node->parent;
    if (parent != nullptr) {
      parent->children->Pop();
    } else {
      roots_->Pop();
    }
    NodeOf(node->queue) = nullptr;
    node = parent;
  }
}

void JobsOrderByQueues::MarkAncestors(Node* node) {
  for (Node* n = node; n != nullptr; n = n->parent) n->needs_reorder = true;
}

const PodGroupInfo* JobsOrderByQueues::ShownBest(const Node* node) {
  while (node->build_best == nullptr && node->replay == nullptr && !node->leaf) {
    node = node->children->Peek();
  }
  if (node->replay != nullptr) return node->replay->shown[node->replayed];
  if (node->build_best != nullptr) return node->build_best;
  return node->jobs->empty() ? nullptr : node->jobs->Peek();
}

const JobsOrderByQueues::Node* JobsOrderByQueues::BestLeaf(const Node* node) {
  while (!node->leaf) node = node->children->Peek();
  return node;
}

void JobsOrderByQueues::BestJob(Node* node, const PodGroupInfo** pending,
                                std::vector<const PodGroupInfo*>* victims) const {
  const Node* leaf = BestLeaf(node);
  *pending = nullptr;
  victims->clear();
  if (leaf->jobs->empty()) return;
  if (options_.victim_queue) {
    auto it = popped_by_queue_.find(leaf->queue);
    if (it != popped_by_queue_.end()) *victims = it->second;
    victims->push_back(leaf->jobs->Peek());
  } else {
    *pending = leaf->jobs->Peek();
  }
}

bool JobsOrderByQueues::NodeLess(Node* l, Node* r) const {
  bool reverse = options_.victim_queue;
  if (l->empty()) return !reverse;
  if (r->empty()) return reverse;
  if (!reverse) {
    // Pending mode (every simulation's order): each side's best job is its leaf's top, and no
    // victim lists are built.
    static const std::vector<const PodGroupInfo*> kNoVictims;
    return ssn_->QueueOrderLess(*l->queue, *r->queue, ShownBest(l), ShownBest(r), kNoVictims,
                                kNoVictims);
  }
  const PodGroupInfo* l_pending = nullptr;
  const PodGroupInfo* r_pending = nullptr;
  std::vector<const PodGroupInfo*> l_victims, r_victims;
  BestJob(l, &l_pending, &l_victims);
  BestJob(r, &r_pending, &r_victims);
  return !ssn_->QueueOrderLess(*l->queue, *r->queue, l_pending, r_pending, l_victims, r_victims);
}

std::optional<std::vector<PodGroupInfo*>> PopOrderWithinOneLeafQueue(
    const Session& ssn, std::vector<PodGroupInfo*> jobs) {
  if (!ssn.job_order_ranked() || jobs.empty()) return std::nullopt;
  const QueueInfo* q = ssn.cluster().QueueOf(*jobs.front());
  for (const PodGroupInfo* job : jobs) {
    if (ssn.cluster().QueueOf(*job) != q) return std::nullopt;
  }
  if (!JobsOrderByQueues(&ssn, JobsOrderOptions{}).Admits(*jobs.front())) return {{}};
  std::sort(jobs.begin(), jobs.end(), [&ssn](const PodGroupInfo* l, const PodGroupInfo* r) {
    return ssn.JobOrderLess(*l, *r);
  });
  return jobs;
}

}  // namespace kai::scheduler
