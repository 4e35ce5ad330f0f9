#include "scheduler/actions/common/idle_gpus_filter.h"

#include <glog/logging.h>

#include <algorithm>
#include <functional>
#include <map>

namespace kai::scheduler {

namespace {

// Whether node_list is the node map in its order, told by the session's name ranks (1..N).
bool InNameOrder(const ClusterInfo& cluster) {
  if (cluster.node_list.size() != cluster.nodes.size()) return false;
  for (size_t i = 0; i < cluster.node_list.size(); ++i) {
    if (cluster.node_list[i]->name_rank() != static_cast<int>(i) + 1) return false;
  }
  return true;
}

}  // namespace

NodeGpuCapacities::NodeGpuCapacities(const ClusterInfo& cluster, size_t top) {
  names_.reserve(cluster.nodes.size());
  capacity_.reserve(cluster.nodes.size());
  if (InNameOrder(cluster)) {
    // The same nodes as the map, cheaper to walk (once per job a victim search runs for).
    for (const NodeInfo* node : cluster.node_list) {
      names_.push_back(&node->name());
      capacity_.push_back(node->IdleAndReleasingGpus());
    }
  } else {
    for (const auto& [name, node] : cluster.nodes) {
      names_.push_back(&name);
      capacity_.push_back(node->IdleAndReleasingGpus());
    }
  }
  order_.resize(capacity_.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  // (capacity desc, name asc) is a strict total order: any sort gives the stable sort's result.
  const auto kept = static_cast<std::ptrdiff_t>(std::min(top, order_.size()));
  std::partial_sort(order_.begin(), order_.begin() + kept, order_.end(),
                    [this](size_t a, size_t b) {
                      if (capacity_[a] != capacity_[b]) return capacity_[a] > capacity_[b];
                      return a < b;
                    });
  order_.resize(static_cast<size_t>(kept));
}

std::optional<size_t> NodeGpuCapacities::Find(const std::string& name) const {
  auto it = std::lower_bound(names_.begin(), names_.end(), name,
                             [](const std::string* n, const std::string& v) { return *n < v; });
  if (it == names_.end() || **it != name) return std::nullopt;
  return static_cast<size_t>(it - names_.begin());
}

bool NodeGpuCapacities::operator==(const NodeGpuCapacities& o) const {
  if (names_.size() != o.names_.size() || capacity_ != o.capacity_ || order_ != o.order_) {
    return false;
  }
  for (size_t i = 0; i < names_.size(); ++i) {
    if (*names_[i] != *o.names_[i]) return false;
  }
  return true;
}

IdleGpusFilter::IdleGpusFilter(std::shared_ptr<const NodeGpuCapacities> nodes, size_t pending_tasks)
    : nodes_(std::move(nodes)),
      capacity_(nodes_->capacities()),
      relevant_(static_cast<int>(pending_tasks)) {
  const size_t keep = std::min(nodes_->size(), static_cast<size_t>(std::max(relevant_, 0)));
  CHECK_LE(keep, nodes_->by_capacity().size()) << "more pending tasks than top nodes kept";
  top_.assign(nodes_->by_capacity().begin(),
              nodes_->by_capacity().begin() + static_cast<std::ptrdiff_t>(keep));
}

bool IdleGpusFilter::Filter(const std::vector<PodInfo*>& pending_tasks,
                            const std::vector<PodInfo*>& recorded_victims,
                            const std::vector<PodInfo*>& potential_victims) {
  required_.clear();
  for (const PodInfo* t : pending_tasks) required_.push_back(t->res_req.gpu());
  std::sort(required_.begin(), required_.end(), std::greater<>());
  AddVictims(recorded_victims, &recorded_done_);
  AddVictims(potential_victims, &potential_done_);
  std::map<size_t, double> allocated;
  for (double req : required_) {
    if (req == 0) continue;
    bool matched = false;
    for (size_t n : top_) {
      const double cap = capacity_[n];
      if (cap < req) break;
      if (cap - allocated[n] >= req) {
        allocated[n] += req;
        matched = true;
        break;
      }
    }
    if (!matched) return false;
  }
  return true;
}

void IdleGpusFilter::AddVictims(const std::vector<PodInfo*>& tasks, size_t* done) {
  for (; *done < tasks.size(); ++*done) {
    const PodInfo* t = tasks[*done];
    if (t->node_name.empty() || !seen_.insert(t).second) continue;
    const std::optional<size_t> n = nodes_->Find(t->node_name);
    if (!n) continue;
    capacity_[*n] += t->accepted.gpu();
    if (std::find(top_.begin(), top_.end(), *n) == top_.end()) {
      if (static_cast<int>(top_.size()) < relevant_) {
        top_.push_back(*n);
      } else if (!top_.empty() && capacity_[*n] > capacity_[top_.back()]) {
        top_.back() = *n;
      } else {
        continue;
      }
    }
    std::stable_sort(top_.begin(), top_.end(),
                     [this](size_t a, size_t b) { return capacity_[a] > capacity_[b]; });
  }
}

}  // namespace kai::scheduler
