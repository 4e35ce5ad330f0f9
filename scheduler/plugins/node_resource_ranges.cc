#include "scheduler/plugins/node_resource_ranges.h"

#include <glog/logging.h>

#include <algorithm>
#include <limits>

namespace kai::scheduler {

namespace {

// NaN: the node does not have the resource (left out of the range).
double ValueOf(const NodeInfo& n, int idx) {
  if (n.allocatable.Get(idx) == 0) return std::numeric_limits<double>::quiet_NaN();
  return n.NonAllocatedResource(idx);
}

void Extend(double v, NodeResourceRanges::Range* r) {
  if (v != v) return;  // NaN
  if (v < r->first) r->first = v;
  if (v > r->second) r->second = v;
}

constexpr NodeResourceRanges::Range kEmpty{std::numeric_limits<double>::max(), 0};

}  // namespace

NodeResourceRanges::Range NodeResourceRanges::Compute(int idx, const NodeSet& nodes) {
  Range r = kEmpty;
  for (const NodeInfo* n : nodes) Extend(ValueOf(*n, idx), &r);
  return r;
}

NodeResourceRanges::Range NodeResourceRanges::Of(int idx, const NodeSet& nodes) {
  const VersionTable* table = nodes.empty() ? nullptr : nodes.front()->accounting_version_table();
  if (table == nullptr || idx < 0) return Compute(idx, nodes);
  if (by_resource_.size() <= static_cast<size_t>(idx)) by_resource_.resize(idx + 1);
  PerResource& r = by_resource_[idx];
  if (r.table != table || r.value.size() != table->size()) Reset(&r, table);
  Forget(&r, idx);
  const bool same_set = r.last_set.size() == nodes.size() &&
                        std::equal(nodes.begin(), nodes.end(), r.last_set.begin());
  if (!same_set) {
    std::vector<uint32_t> slots;
    if (!SlotsOf(nodes, table, &slots)) return Compute(idx, nodes);
    for (uint32_t s : r.last_slots) r.in_last_set[s] = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
      r.in_last_set[slots[i]] = 1;
      r.node_at[slots[i]] = nodes[i];
    }
    r.last_set.assign(nodes.begin(), nodes.end());
    r.last_slots = std::move(slots);
    r.ends_valid = false;
  }
  if (!r.ends_valid) Over(&r, idx);
  DCHECK(RangeOf(r) == Compute(idx, nodes)) << "stale node range of resource " << idx;
  return RangeOf(r);
}

bool NodeResourceRanges::SlotsOf(const NodeSet& nodes, const VersionTable* table,
                                 std::vector<uint32_t>* slots) {
  slots->reserve(nodes.size());
  for (const NodeInfo* n : nodes) {
    const size_t s = n->accounting_version_slot();
    if (n->accounting_version_table() != table || s >= table->size()) return false;
    slots->push_back(static_cast<uint32_t>(s));
  }
  return true;
}

void NodeResourceRanges::Reset(PerResource* r, const VersionTable* table) const {
  r->table = table;
  r->writes_seen = table->writes();
  r->value.assign(table->size(), 0);
  r->known.assign(table->size(), 0);
  r->in_last_set.assign(table->size(), 0);
  r->node_at.assign(table->size(), nullptr);
  r->last_set.clear();
  r->last_slots.clear();
  r->ends_valid = false;
}

void NodeResourceRanges::Forget(PerResource* r, int idx) {
  if (r->writes_seen == r->table->writes()) return;
  auto log = r->table->WrittenSince(r->writes_seen);
  r->writes_seen = r->table->writes();
  if (!log) {
    // The log no longer reaches back: every value is forgotten.
    std::fill(r->known.begin(), r->known.end(), 0);
    r->ends_valid = false;
    return;
  }
  // The last set's written nodes, each once (a node is written once per change); known = 2
  // marks one taken, its old value still in `value`.
  changed_.clear();
  for (uint32_t s : *log) {
    if (r->in_last_set[s] != 0 && r->known[s] == 1) {
      r->known[s] = 2;
      changed_.push_back(s);
    } else if (r->known[s] != 2) {
      r->known[s] = 0;
    }
  }
  for (uint32_t s : changed_) {
    const double before = r->value[s];
    const double now = ValueOf(*r->node_at[s], idx);
    r->value[s] = now;
    r->known[s] = 1;
    ++node_reads_;
    if (r->ends_valid) Move(r, before, now);
  }
  // An end no node holds any more: the set is read again.
  if (r->ends_valid && r->count > 0 && (r->at_low <= 0 || r->at_high <= 0)) r->ends_valid = false;
}

void NodeResourceRanges::Move(PerResource* r, double before, double now) {
  if (now == before || (now != now && before != before)) return;  // the same, or both NaN
  if (before == before) {  // not NaN: leaves the set's values
    --r->count;
    if (before == r->low) --r->at_low;
    if (before == r->high) --r->at_high;
  }
  Join(r, now);
}

void NodeResourceRanges::Join(PerResource* r, double v) {
  if (v != v) return;  // NaN: the node does not have the resource
  if (r->count++ == 0) {
    r->low = r->high = v;
    r->at_low = r->at_high = 1;
    return;
  }
  if (v < r->low) {
    r->low = v;
    r->at_low = 1;
  } else if (v == r->low) {
    ++r->at_low;
  }
  if (v > r->high) {
    r->high = v;
    r->at_high = 1;
  } else if (v == r->high) {
    ++r->at_high;
  }
}

void NodeResourceRanges::Over(PerResource* r, int idx) {
  ++set_passes_;
  r->count = 0;
  for (size_t i = 0; i < r->last_slots.size(); ++i) {
    const uint32_t s = r->last_slots[i];
    if (r->known[s] == 0) {
      r->value[s] = ValueOf(*r->last_set[i], idx);
      r->known[s] = 1;
      ++node_reads_;
    }
    Join(r, r->value[s]);
  }
  r->ends_valid = true;
}

NodeResourceRanges::Range NodeResourceRanges::RangeOf(const PerResource& r) {
  // What Compute's pass would give: the ends extend kEmpty as every value would.
  Range out = kEmpty;
  if (r.count > 0) {
    Extend(r.low, &out);
    Extend(r.high, &out);
  }
  return out;
}

}  // namespace kai::scheduler
