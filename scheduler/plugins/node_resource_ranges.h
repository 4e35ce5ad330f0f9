// nodeplacement's pre-order range: the (min, max) of NodeInfo::NonAllocatedResource(idx) over the
// nodes of a set that have the resource (allocatable > 0); (DBL_MAX, 0) when none has.
//
// Why a cache: the plugin asks it for every task it scores, over thousands of nodes, and victim
// simulations ask it thousands of times while changing a few nodes each. A node's value reads
// three of its vectors; the cache keeps each node's value by its slot in the session's version
// table (NodeInfo::MirrorAccountingVersion), forgets the values of the nodes the table's log says
// were written since, and remembers the last set it was asked about, so that the same set again
// costs a comparison of pointers. For that set it also keeps the lowest and highest value, the
// next value inward from each, and how many nodes hold each: a simulation's writes to a few of its
// nodes adjust them (an end vacated by its last node gives way to the next value, and the
// rollback that moves the node back makes the old end the next again), and the set is read again
// only when an end is vacated while the next value is not known. Nodes that do not mirror into one
// table are read directly.
#pragma once

#include <cstdint>
#include <optional>
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

  // Node values read (not taken from the cache) so far, and passes over a whole set; for tests.
  int64_t node_reads() const { return node_reads_; }
  int64_t set_passes() const { return set_passes_; }

 private:
  // One end of the last set's values and the next distinct value inward, with how many nodes
  // hold each. `next` is exact while `next_known` (then at_next == 0: no other value); it is
  // unknown once it became the end or its last node left it.
  struct End {
    double end = 0, next = 0;
    int at_end = 0, at_next = 0;
    bool next_known = false;
  };

  struct PerResource {
    const VersionTable* table = nullptr;
    uint64_t writes_seen = 0;          // the table's log is applied up to here
    std::vector<double> value;         // by slot, valid where known
    std::vector<uint8_t> known;        // by slot (1: known; 2: in Forget, being re-read)
    std::vector<uint8_t> in_last_set;  // by slot (a set naming a node twice is not kept)
    // Non-const like NodeSet, so that comparing it with the next set is one memcmp.
    std::vector<NodeInfo*> last_set;
    std::vector<uint32_t> last_slots;
    std::vector<const NodeInfo*> node_at;  // by slot, for the last set's slots
    // The last set's values: how many there are (NaN left out) and both ends; valid while
    // `ends_valid`.
    bool ends_valid = false;
    int count = 0;
    End low, high;
  };

  // The node's slot in `table`, if it mirrors into it.
  static std::optional<uint32_t> SlotOf(const NodeInfo& n, const VersionTable* table);
  // Whether every node mirrors into `table`; fills `slots`.
  static bool SlotsOf(const NodeSet& nodes, const VersionTable* table,
                      std::vector<uint32_t>* slots);
  // The value at slot `s` (node `n`), read from the node when not known.
  double KnownValue(PerResource* r, uint32_t s, const NodeInfo& n, int idx);
  void Reset(PerResource* r, const VersionTable* table) const;
  // When `nodes` is the last set with one node added or removed in place (a victim search adds a
  // victim's node to the feasible nodes for one node try and removes it after), makes it the last
  // set and adjusts the ends; false otherwise (nothing changed).
  bool AdjustToNeighbour(PerResource* r, int idx, const NodeSet& nodes);
  // Applies the table's log: a written node of the last set is read again and its change applied
  // to the ends (when they are valid), any other written node forgotten.
  void Forget(PerResource* r, int idx);
  // One node of the last set changed from `before` to `now` (NaN: without the resource); false
  // when the ends are no longer known.
  static bool Move(PerResource* r, double before, double now);
  // A value joins the last set's values (the ends and the counts at them).
  static void Join(PerResource* r, double v);
  // A value leaves them; false when the ends are no longer known.
  static bool Leave(PerResource* r, double v);
  // The same for one end (kLow: the lowest; otherwise the highest).
  template <bool kLow>
  static void JoinEnd(End* e, double v);
  template <bool kLow>
  static bool LeaveEnd(End* e, double v);
  // Reads the last set's values (known ones from the cache) and sets its ends.
  void Over(PerResource* r, int idx);
  static Range RangeOf(const PerResource& r);

  std::vector<PerResource> by_resource_;  // by resource index
  std::vector<uint32_t> changed_;         // Forget's scratch
  int64_t node_reads_ = 0;
  int64_t set_passes_ = 0;
};

}  // namespace kai::scheduler
