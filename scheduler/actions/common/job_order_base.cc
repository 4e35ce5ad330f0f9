// PendingJobsBase and JobsOrderByQueues::InitializeFromBase (job_order.h): a victim simulation's
// order of every pending job, ordering again only what the simulation's jobs touch.
//
// InitializeWithJobs pushes the jobs in uid order; a queue node's place in its parent's heap is
// decided when the node is made (its first job), against its siblings' best jobs at that moment.
// So the order depends on each subtree's best job as the jobs come in, and a subtree that holds
// no relevant job and no victim's queue sees the same jobs, the same queue numbers and the same
// order of arrival in every simulation of one search: its timeline of best jobs and its heaps are
// taken from the base, and only the heaps of the touched queues' ancestors are built again.
#include <glog/logging.h>

#include <algorithm>
#include <utility>

#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/job_order_node.h"

namespace kai::scheduler {

namespace {

size_t IndexOf(const QueueInfo& q) { return static_cast<size_t>(q.session_index()); }

bool UidLess(const PodGroupInfo* l, const PodGroupInfo* r) { return l->uid() < r->uid(); }

}  // namespace

PendingJobsBase::PendingJobsBase(const Session* ssn, PodGroupId excluded)
    : ssn_(ssn), excluded_(std::move(excluded)) {}

PendingJobsBase::~PendingJobsBase() = default;

void PendingJobsBase::Build(const std::vector<PodGroupInfo*>& pending) {
  pending_.clear();
  pending_.reserve(pending.size());
  for (PodGroupInfo* job : pending) {
    if (job->uid() != excluded_) pending_.push_back(job);
  }
  CHECK(std::is_sorted(pending_.begin(), pending_.end(), UidLess))
      << "pending jobs not in uid order";
  const size_t queues = ssn_->cluster().queues.size();
  timeline_.assign(queues, {});
  children_.assign(queues, {});
  roots_.clear();
  replays_.clear();
  replays_.resize(queues);
  order_ = std::make_unique<JobsOrderByQueues>(ssn_, JobsOrderOptions{});
  JobsOrderByQueues& o = *order_;
  for (size_t i = 0; i < pending_.size(); ++i) {
    PodGroupInfo* job = pending_[i];
    const QueueInfo* q = o.AdmittedQueue(*job);
    if (q == nullptr) continue;
    o.PushJob(job, q, 0);
    const auto time = static_cast<uint32_t>(2 * i + 2);
    for (JobsOrderByQueues::Node* n = o.NodeOf(q); n != nullptr; n = n->parent) {
      PodGroupInfo* best = JobsOrderByQueues::BestLeaf(n)->jobs->Peek();
      auto& t = timeline_[IndexOf(*n->queue)];
      if (t.empty() || t.back().second != best) t.emplace_back(time, best);
    }
  }
  usable_ = true;
  for (const JobsOrderByQueues::Node* n : o.nodes_) {
    if (n == nullptr) continue;
    if (n->parent != nullptr) {
      children_[IndexOf(*n->parent->queue)].push_back(n->queue);
    } else if (n->queue->parent().empty()) {
      roots_.push_back(n->queue);
    } else {
      usable_ = false;  // under a missing queue: never popped, and not worth modelling
    }
  }
}

size_t PendingJobsBase::PositionOf(const PodGroupId& uid) const {
  return std::lower_bound(
             pending_.begin(), pending_.end(), uid,
             [](const PodGroupInfo* job, const PodGroupId& u) { return job->uid() < u; }) -
         pending_.begin();
}

bool PendingJobsBase::IsPending(const PodGroupId& uid) const {
  const size_t i = PositionOf(uid);
  return i < pending_.size() && pending_[i]->uid() == uid;
}

uint32_t PendingJobsBase::TimeOf(const PodGroupInfo& relevant) const {
  return static_cast<uint32_t>(2 * PositionOf(relevant.uid()) + 1);
}

JobsOrderByQueues::Replay* PendingJobsBase::ReplayOf(const QueueInfo& q) {
  std::unique_ptr<Replay>& r = replays_[IndexOf(q)];
  if (r != nullptr) return r.get();
  const JobsOrderByQueues::Node* from = order_->nodes_[IndexOf(q)];
  CHECK(from != nullptr) << "queue " << q.uid() << " has no jobs in the base";
  r = std::make_unique<Replay>();
  r->order = std::make_unique<JobsOrderByQueues>(ssn_, JobsOrderOptions{});
  r->order->first_block_ = 8;  // the subtree's nodes only, not one per cluster queue
  JobsOrderByQueues& o = *r->order;
  r->root = from->leaf ? o.CreateLeaf(&q) : o.CreateInner(&q);
  r->from = from;
  r->root->base_source = from;
  r->root->build_best = JobsOrderByQueues::BestLeaf(from)->jobs->Peek();
  r->total = static_cast<uint32_t>(JobsOrderByQueues::JobsUnder(*from));
  r->shown.push_back(r->root->build_best);
  return r.get();
}

PodGroupInfo* PendingJobsBase::ReplayPop(Replay* replay, uint32_t k) {
  CHECK_LT(k, replay->total) << "a replayed subtree popped when empty";
  while (replay->popped.size() <= k) {
    replay->popped.push_back(replay->order->PopWithin(replay->root));
    replay->shown.push_back(replay->root->empty() ? nullptr
                                                  : JobsOrderByQueues::ShownBest(replay->root));
  }
  return replay->popped[k];
}

bool JobsOrderByQueues::InitializeFromBase(PendingJobsBase& base,
                                           const std::vector<PodGroupInfo*>& relevant) {
  if (!base.built() || !base.usable_ || base.ssn_ != ssn_ || !ssn_->job_order_ranked() ||
      !(options_ == JobsOrderOptions{}) || !empty()) {
    return false;
  }
  // A relevant job that is also one of the base's pending jobs may have changed (a victim with
  // Pending pods): its leaf would not come out as in the base.
  for (const PodGroupInfo* job : relevant) {
    if (job->uid() != base.excluded_ && base.IsPending(job->uid())) return false;
  }
  const ClusterInfo& c = ssn_->cluster();
  // The touched queues: the relevant jobs' own (whose numbers the victims' evictions changed)
  // and their ancestors.
  std::vector<uint8_t> touched(c.queues.size(), 0);
  std::vector<const QueueInfo*> touched_list;
  std::vector<std::pair<PodGroupInfo*, const QueueInfo*>> admitted;
  for (PodGroupInfo* job : relevant) {
    for (const QueueInfo* q = c.QueueOf(*job); q != nullptr; q = c.ParentOf(*q)) {
      if (touched[IndexOf(*q)] != 0) break;
      touched[IndexOf(*q)] = 1;
      touched_list.push_back(q);
    }
    if (const QueueInfo* q = AdmittedQueue(*job)) admitted.emplace_back(job, q);
  }
  std::sort(admitted.begin(), admitted.end(),
            [](const auto& l, const auto& r) { return UidLess(l.first, r.first); });

  // What InitializeWithJobs would see, in its order: the relevant jobs; every pending job of a
  // touched leaf that changed its best job in the base; each untouched subtree's best job as it
  // changed in the base, where the subtree hangs under a touched queue (or is a root).
  struct Event {
    uint32_t time;
    const QueueInfo* queue;
    PodGroupInfo* job;
    bool untouched;
  };
  std::vector<Event> events;
  events.reserve(admitted.size() + 4 * touched_list.size() + base.roots_.size());
  for (const auto& [job, q] : admitted) events.push_back({base.TimeOf(*job), q, job, false});
  auto add_timeline = [&](const QueueInfo* q, bool untouched) {
    for (const auto& [time, job] : base.timeline_[IndexOf(*q)]) {
      events.push_back({time, q, job, untouched});
    }
  };
  for (const QueueInfo* q : touched_list) {
    if (q->IsLeafQueue()) {
      add_timeline(q, false);
      continue;
    }
    for (const QueueInfo* child : base.children_[IndexOf(*q)]) {
      if (touched[IndexOf(*child)] == 0) add_timeline(child, true);
    }
  }
  for (const QueueInfo* root : base.roots_) {
    if (touched[IndexOf(*root)] == 0) add_timeline(root, true);
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& l, const Event& r) { return l.time < r.time; });

  for (const Event& e : events) {
    Node* n = NodeOf(e.queue);
    if (n == nullptr) {
      n = e.queue->IsLeafQueue() ? CreateLeaf(e.queue) : CreateInner(e.queue);
      n->build_best = e.job;
      EnsureAncestors(n, e.queue);
    } else if (e.untouched || ssn_->JobOrderLess(*e.job, *n->build_best)) {
      n->build_best = e.job;
    }
  }
  FinishFromBase(base, touched, admitted);
  return true;
}

void JobsOrderByQueues::FinishFromBase(
    PendingJobsBase& base, const std::vector<uint8_t>& touched,
    const std::vector<std::pair<PodGroupInfo*, const QueueInfo*>>& relevant) {
  // The nodes made so far: the touched leaves get the base's jobs and the relevant ones; the
  // untouched subtrees' roots pop from their replays; the touched inner queues' heaps are built.
  const std::vector<Node*>& from_nodes = base.order_->nodes_;  // empty: the base has no job
  for (Node* n : nodes_) {
    if (n == nullptr || n->build_best == nullptr) continue;
    const size_t i = IndexOf(*n->queue);
    const Node* from = i < from_nodes.size() ? from_nodes[i] : nullptr;
    if (touched[i] != 0) {
      if (from != nullptr) n->jobs->assign_items(from->jobs->items());
      continue;
    }
    DCHECK(from != nullptr && BestLeaf(from)->jobs->Peek() == n->build_best)
        << "queue " << n->queue->uid() << " does not end with its base's best job";
    n->replay = base.ReplayOf(*n->queue);
    n->replayed = 0;
    n->build_best = nullptr;
    has_unentered_ = true;
  }
  replay_base_ = &base;
  for (const auto& [job, q] : relevant) NodeOf(q)->jobs->Push(job);
  for (Node* n : nodes_) {
    if (n == nullptr) continue;
    if (n->replay == nullptr && n->build_best != nullptr) {
      DCHECK(n->jobs->Peek() == n->build_best)
          << "queue " << n->queue->uid() << " does not end with the best job it was ordered by";
      n->build_best = nullptr;
    }
    n->needs_reorder = true;  // InitializeWithJobs marks every node it pushes a job under
  }
}

void JobsOrderByQueues::Enter(Node* node) {
  const Node* from = node->base_source;
  node->base_source = nullptr;
  node->build_best = nullptr;
  if (from->leaf) {
    node->jobs->assign_items(from->jobs->items());
    return;
  }
  std::vector<Node*> children;
  children.reserve(from->children->items().size());
  for (const Node* f : from->children->items()) {
    Node* child = f->leaf ? CreateLeaf(f->queue) : CreateInner(f->queue);
    child->parent = node;
    child->base_source = f;
    child->build_best = BestLeaf(f)->jobs->Peek();
    child->needs_reorder = true;
    children.push_back(child);
  }
  node->children->set_items(std::move(children));
}

void JobsOrderByQueues::LeaveReplay(Node* node) {
  const uint32_t popped = node->replayed;
  const bool needs_reorder = node->needs_reorder;  // its parent's heap reads it
  node->base_source = node->replay->from;
  node->build_best = node->replay->shown[0];
  node->replay = nullptr;
  node->replayed = 0;
  for (uint32_t i = 0; i < popped; ++i) PopWithin(node);
  node->needs_reorder = needs_reorder;
}

PodGroupInfo* JobsOrderByQueues::PopWithin(Node* subtree) {
  // TraverseToLeaf below `subtree`, then HandlePop up to it.
  Node* node = subtree;
  while (true) {
    if (node->base_source != nullptr) Enter(node);
    if (node->leaf) break;
    node = NextNode(&*node->children);
    CHECK(node != nullptr) << "popped within an empty subtree";
  }
  PodGroupInfo* job = node->jobs->Pop();
  while (node != subtree && node->size() == 0) {
    node->parent->children->Pop();
    NodeOf(node->queue) = nullptr;
    node = node->parent;
  }
  for (Node* n = node;; n = n->parent) {
    n->needs_reorder = true;
    if (n == subtree) break;
  }
  return job;
}

void JobsOrderByQueues::EnterPathTo(const QueueInfo* q) {
  std::vector<const QueueInfo*> path;
  for (const QueueInfo* x = q; x != nullptr; x = ssn_->cluster().ParentOf(*x)) path.push_back(x);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    Node* n = NodeOf(*it);
    if (n != nullptr && n->replay != nullptr) LeaveReplay(n);
    if (n != nullptr && n->base_source != nullptr) Enter(n);
  }
}

void JobsOrderByQueues::EnterAll() {
  for (bool entered = true; entered;) {
    entered = false;
    for (Node* n : nodes_) {
      if (n != nullptr && n->replay != nullptr) LeaveReplay(n);
      if (n != nullptr && n->base_source != nullptr) {
        Enter(n);
        entered = true;
      }
    }
  }
  has_unentered_ = false;
}

int JobsOrderByQueues::JobsUnder(const Node& node) {
  if (node.leaf) return node.jobs->size();
  int n = 0;
  for (const Node* child : node.children->items()) n += JobsUnder(*child);
  return n;
}

bool JobsOrderByQueues::SameStateAs(const JobsOrderByQueues& other) const {
  auto queues_of = [](const std::vector<Node*>& nodes) {
    std::vector<const QueueInfo*> out;
    out.reserve(nodes.size());
    for (const Node* n : nodes) out.push_back(n->queue);
    return out;
  };
  if (empty() != other.empty()) return false;
  if (!empty() && queues_of(roots_->items()) != queues_of(other.roots_->items())) return false;
  const size_t slots = std::max(nodes_.size(), other.nodes_.size());
  for (size_t i = 0; i < slots; ++i) {
    const Node* l = i < nodes_.size() ? nodes_[i] : nullptr;
    const Node* r = i < other.nodes_.size() ? other.nodes_[i] : nullptr;
    if ((l == nullptr) != (r == nullptr)) return false;
    if (l == nullptr) continue;
    if (l->base_source != nullptr || r->base_source != nullptr || l->replay != nullptr ||
        r->replay != nullptr) {
      return false;
    }
    if (l->queue != r->queue || l->leaf != r->leaf || l->needs_reorder != r->needs_reorder ||
        (l->parent == nullptr ? nullptr : l->parent->queue) !=
            (r->parent == nullptr ? nullptr : r->parent->queue) ||
        l->build_best != r->build_best) {
      return false;
    }
    if (!l->leaf) {
      if (queues_of(l->children->items()) != queues_of(r->children->items())) return false;
      continue;
    }
    // A leaf pops its jobs in its own total order whatever its heap's layout.
    std::vector<PodGroupInfo*> lj = l->jobs->items();
    std::vector<PodGroupInfo*> rj = r->jobs->items();
    std::sort(lj.begin(), lj.end());
    std::sort(rj.begin(), rj.end());
    if (lj != rj) return false;
  }
  return popped_by_queue_ == other.popped_by_queue_;
}

}  // namespace kai::scheduler
