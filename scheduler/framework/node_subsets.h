// NodeSubsets: the node sets a (sub)group may be placed on, in the order to try them (what
// Session::SubsetNodes returns).
//
// Why not a vector of sets: most groups have no topology constraint, and their one set is the
// caller's candidate set, all of the cluster's nodes; copying it for every pod set cost 14% of
// an L allocate. The unsplit case refers to the caller's set, which must outlive the result.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "scheduler/framework/interfaces.h"

namespace kai::scheduler {

class NodeSubsets {
 public:
  // The candidate set itself, unsplit (not copied).
  static NodeSubsets Whole(const NodeSet& nodes) { return NodeSubsets(&nodes, {}); }
  // The subsets the plugins chose (possibly none: nowhere to go).
  static NodeSubsets Split(std::vector<NodeSet> sets) {
    return NodeSubsets(nullptr, std::move(sets));
  }

  const NodeSet* begin() const { return whole_ != nullptr ? whole_ : split_.data(); }
  const NodeSet* end() const {
    return whole_ != nullptr ? whole_ + 1 : split_.data() + split_.size();
  }
  size_t size() const { return static_cast<size_t>(end() - begin()); }
  bool whole() const { return whole_ != nullptr; }

 private:
  NodeSubsets(const NodeSet* whole, std::vector<NodeSet> split)
      : whole_(whole), split_(std::move(split)) {}

  const NodeSet* whole_;
  std::vector<NodeSet> split_;
};

}  // namespace kai::scheduler
