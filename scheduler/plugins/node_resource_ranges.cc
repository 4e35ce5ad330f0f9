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
  const bool last_set_written = Forget(&r);
  const bool same_set = r.last_set.size() == nodes.size() &&
                        std::equal(nodes.begin(), nodes.end(), r.last_set.begin());
  if (!same_set) {
    std::vector<uint32_t> slots;
    if (!SlotsOf(nodes, table, &slots)) return Compute(idx, nodes);
    for (uint32_t s : r.last_slots) r.in_last_set[s] = 0;
    for (uint32_t s : slots) r.in_last_set[s] = 1;
    r.last_set.assign(nodes.begin(), nodes.end());
    r.last_slots = std::move(slots);
    r.last_range_valid = false;
  } else if (last_set_written) {
    r.last_range_valid = false;
  }
  if (!r.last_range_valid) {
    r.last_range = Over(&r, idx);
    r.last_range_valid = true;
  }
  DCHECK(r.last_range == Compute(idx, nodes)) << "stale node range of resource " << idx;
  return r.last_range;
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
  r->last_set.clear();
  r->last_slots.clear();
  r->last_range_valid = false;
}

bool NodeResourceRanges::Forget(PerResource* r) {
  if (r->writes_seen == r->table->writes()) return false;
  bool written = false;
  if (auto log = r->table->WrittenSince(r->writes_seen)) {
    for (uint32_t s : *log) {
      r->known[s] = 0;
      written = written || r->in_last_set[s] != 0;
    }
  } else {
    // The log no longer reaches back: every value is forgotten.
    std::fill(r->known.begin(), r->known.end(), 0);
    written = true;
  }
  r->writes_seen = r->table->writes();
  return written;
}

NodeResourceRanges::Range NodeResourceRanges::Over(PerResource* r, int idx) {
  Range out = kEmpty;
  for (size_t i = 0; i < r->last_slots.size(); ++i) {
    const uint32_t s = r->last_slots[i];
    if (r->known[s] == 0) {
      r->value[s] = ValueOf(*r->last_set[i], idx);
      r->known[s] = 1;
      ++node_reads_;
    }
    Extend(r->value[s], &out);
  }
  return out;
}

}  // namespace kai::scheduler
