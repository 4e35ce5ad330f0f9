// KAI's AccumulatedIdleGpus scenario filter: a victim scenario is only worth simulating if the
// GPUs of its pending tasks can be greedily matched to nodes' idle + releasing GPUs plus the GPUs
// its victims free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "scheduler/api/cluster_info.h"
#include "scheduler/api/pod_info.h"

namespace kai::scheduler {

// Every node's idle + releasing GPUs, in name order, and the `top` nodes with the most (capacity
// descending, ties in name order). A victim search computes it once: each of its partial jobs
// starts from the same session state (the previous one's statement is discarded). A filter
// needs as many top nodes as its scenario has pending tasks; ordering every node of a large
// cluster for a gang of a few pods was a sixth of preempt's time.
class NodeGpuCapacities {
 public:
  explicit NodeGpuCapacities(const ClusterInfo& cluster, size_t top = SIZE_MAX);
  size_t size() const { return capacity_.size(); }
  const std::vector<double>& capacities() const { return capacity_; }
  // min(top, size()) node indexes.
  const std::vector<size_t>& by_capacity() const { return order_; }
  // Index of the node named `name`.
  std::optional<size_t> Find(const std::string& name) const;
  bool operator==(const NodeGpuCapacities& o) const;

 private:
  std::vector<const std::string*> names_;  // the cluster's node map keys, in name order
  std::vector<double> capacity_;
  std::vector<size_t> order_;
};

class IdleGpusFilter {
 public:
  // `pending_tasks`: the scenario's, whose count bounds how many nodes can matter.
  IdleGpusFilter(std::shared_ptr<const NodeGpuCapacities> nodes, size_t pending_tasks);

  // The builder extends one scenario: both victim lists only grow, and only their new entries are
  // looked at.
  bool Filter(const std::vector<PodInfo*>& pending_tasks,
              const std::vector<PodInfo*>& recorded_victims,
              const std::vector<PodInfo*>& potential_victims);

 private:
  void AddVictims(const std::vector<PodInfo*>& tasks, size_t* done);

  std::shared_ptr<const NodeGpuCapacities> nodes_;
  std::vector<double> capacity_;  // by node index, with the victims' GPUs added
  std::vector<size_t> top_;       // the `relevant_` nodes with the most capacity
  int relevant_ = 0;
  std::vector<double> required_;
  std::unordered_set<const PodInfo*> seen_;  // membership only; one PodInfo per pod
  size_t recorded_done_ = 0;
  size_t potential_done_ = 0;
};

}  // namespace kai::scheduler
