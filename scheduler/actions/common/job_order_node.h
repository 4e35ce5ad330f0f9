// A node of JobsOrderByQueues' tree (job_order.cc, job_order_base.cc): a queue and, for a leaf,
// its jobs, else its child queues' nodes.
#pragma once

#include <optional>

#include "scheduler/actions/common/job_order.h"

namespace kai::scheduler {

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

  bool empty() const { return build_best == nullptr && (leaf ? jobs->empty() : children->empty()); }
  int size() const { return leaf ? jobs->size() : children->size(); }
};

}  // namespace kai::scheduler
