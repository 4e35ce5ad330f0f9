// nodeplacement's pre-order range: the (min, max) of NodeInfo::NonAllocatedResource(idx) over the
// nodes of a set that have the resource (allocatable > 0); (DBL_MAX, 0) when none has.
//
// Why a cache: the plugin asks it for every task it scores, over thousands of nodes, and victim
// simulations ask it thousands of times while changing a few nodes each. A node's value reads
// three of its vectors; the cache keeps each node's value by its slot in the session's version
// table (NodeInfo::MirrorAccountingVersion), forgets the values of the nodes the table's log says
// were written since, and remembers the last set it was asked about, so that the same set again
// costs a comparison of pointers. Nodes that do not mirror into one table are read directly.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "scheduler/api/node_info.h"
#include "scheduler/api/version_table.h"
#include "scheduler/framework/interfaces.h"

namespace kai::scheduler {

class NodeResourceRanges {
 public:
  using Range = std::pair<double, double>;

  // The range read from every node.
  static Range Compute(int idx, const NodeSet& nodes);

  Range Of(int idx, const NodeSet& nodes);

  // Node values read (not taken from the cache) so far; for tests.
  int64_t node_reads() const { return node_reads_; }

 private:
  struct PerResource {
    const VersionTable* table = nullptr;
    uint64_t writes_seen = 0;          // the table's log is applied up to here
    std::vector<double> value;         // by slot, valid where known
    std::vector<uint8_t> known;        // by slot
    std::vector<uint8_t> in_last_set;  // by slot
    std::vector<const NodeInfo*> last_set;
    std::vector<uint32_t> last_slots;
    bool last_range_valid = false;
    Range last_range;
  };

  // Whether every node mirrors into `table`; fills `slots`.
  static bool SlotsOf(const NodeSet& nodes, const VersionTable* table,
                      std::vector<uint32_t>* slots);
  void Reset(PerResource* r, const VersionTable* table) const;
  // Applies the table's log; true when a node of the last set was written.
  static bool Forget(PerResource* r);
  Range Over(PerResource* r, int idx);

  std::vector<PerResource> by_resource_;  // by resource index
  int64_t node_reads_ = 0;
};

}  // namespace kai::scheduler
