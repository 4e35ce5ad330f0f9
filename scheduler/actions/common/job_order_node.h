// A node of JobsOrderByQueues' tree (job_order.cc, job_order_base.cc): a queue and, for a leaf,
// its jobs, else its child queues' nodes; and the replay of a subtree's pops that nodes of
// victim simulations read (PendingJobsBase::ReplayOf).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "scheduler/actions/common/job_order.h"

namespace kai::scheduler {

struct JobsOrderByQueues::Replay {
  const Node* from = nullptr;                // the subtree's node in the base
  std::unique_ptr<JobsOrderByQueues> order;  // holding the subtree alone
  Node* root = nullptr;                      // the subtree's node in `order`
  uint32_t total = 0;                        // jobs under the subtree
  std::vector<PodGroupInfo*> popped;         // the k-th job popped
  // After k pops: the best job the subtree's heaps show (ShownBest; nullptr once empty). Always
  // one entry more than `popped`.
  std::vector<const PodGroupInfo*> shown;
};

struct JobsOrderByQueues::Node {
  const QueueInfo* queue = nullptr;
  bool leaf = false;
  bool needs_reorder = false;
  Node* parent = nullptr;
  // In the node itself: a simulation builds hundreds of nodes and drops them all.
  std::optional<GoHeap<Node*>> children;      // inner nodes
  std::optional<GoHeap<PodGroupInfo*>> jobs;  // leaves
  // While InitializeFromBase builds, and while `base_source` is set: the subtree's best job,
  // standing for heaps not filled yet.
  const PodGroupInfo* build_best = nullptr;
  // A subtree taken from a PendingJobsBase and not entered yet: its heaps are this base node's,
  // copied when a pop or push first enters it (most simulations pop only a few queues).
  const Node* base_source = nullptr;
  // A subtree that pops from a replay (its heaps unused): `replayed` of its jobs are popped.
  Replay* replay = nullptr;
  uint32_t replayed = 0;

  bool empty() const {
    if (replay != nullptr) return replayed == replay->total;
    return build_best == nullptr && (leaf ? jobs->empty() : children->empty());
  }
  // Jobs (leaf) or child nodes (inner) left; for a replayed subtree, its jobs left.
  int size() const {
    if (replay != nullptr) return static_cast<int>(replay->total - replayed);
    return leaf ? jobs->size() : children->size();
  }
};

}  // namespace kai::scheduler
