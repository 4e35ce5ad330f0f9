#include "scheduler/plugins/node_resource_ranges.h"

#include <glog/logging.h>

#include <algorithm>
#include <limits>
#include <optional>

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
  if (!same_set && !AdjustToNeighbour(&r, idx, nodes)) {
    std::vector<uint32_t> slots;
    if (!SlotsOf(nodes, table, &slots)) return Compute(idx, nodes);
    for (uint32_t s : r.last_slots) r.in_last_set[s] = 0;
    bool twice = false;
    for (size_t i = 0; i < slots.size(); ++i) {
      twice |= r.in_last_set[slots[i]] != 0;
      r.in_last_set[slots[i]] = 1;
      r.node_at[slots[i]] = nodes[i];
    }
    if (twice) {
      // A node named twice would count twice among the values and move once: read directly.
      for (uint32_t s : slots) r.in_last_set[s] = 0;
      r.last_set.clear();
      r.last_slots.clear();
      r.ends_valid = false;
      return Compute(idx, nodes);
    }
    r.last_set.assign(nodes.begin(), nodes.end());
    r.last_slots = std::move(slots);
    r.ends_valid = false;
  }
  if (!r.ends_valid) Over(&r, idx);
  DCHECK(RangeOf(r) == Compute(idx, nodes)) << "stale node range of resource " << idx;
  return RangeOf(r);
}

bool NodeResourceRanges::AdjustToNeighbour(PerResource* r, int idx, const NodeSet& nodes) {
  const bool added = nodes.size() == r->last_set.size() + 1;
  if (!added && nodes.size() + 1 != r->last_set.size()) return false;
  const NodeSet& big = added ? nodes : r->last_set;
  const NodeSet& small = added ? r->last_set : nodes;
  const size_t at = std::mismatch(small.begin(), small.end(), big.begin()).first - small.begin();
  if (!std::equal(small.begin() + at, small.end(), big.begin() + at + 1)) return false;
  NodeInfo* node = big[at];
  if (added) {
    const std::optional<uint32_t> s = SlotOf(*node, r->table);
    if (!s || r->in_last_set[*s] != 0) {
      return false;  // a foreign node, or one already in: the whole set is read
    }
    r->in_last_set[*s] = 1;
    r->node_at[*s] = node;
    r->last_set.insert(r->last_set.begin() + at, node);
    r->last_slots.insert(r->last_slots.begin() + at, *s);
    if (r->ends_valid) Join(r, KnownValue(r, *s, *node, idx));
    return true;
  }
  const uint32_t s = r->last_slots[at];
  r->in_last_set[s] = 0;
  r->last_set.erase(r->last_set.begin() + at);
  r->last_slots.erase(r->last_slots.begin() + at);
  if (r->ends_valid && !Leave(r, r->value[s])) r->ends_valid = false;
  return true;
}

std::optional<uint32_t> NodeResourceRanges::SlotOf(const NodeInfo& n, const VersionTable* table) {
  const size_t s = n.accounting_version_slot();
  if (n.accounting_version_table() != table || s >= table->size()) return std::nullopt;
  return static_cast<uint32_t>(s);
}

bool NodeResourceRanges::SlotsOf(const NodeSet& nodes, const VersionTable* table,
                                 std::vector<uint32_t>* slots) {
  slots->reserve(nodes.size());
  for (const NodeInfo* n : nodes) {
    const std::optional<uint32_t> s = SlotOf(*n, table);
    if (!s) return false;
    slots->push_back(*s);
  }
  return true;
}

double NodeResourceRanges::KnownValue(PerResource* r, uint32_t s, const NodeInfo& n, int idx) {
  if (r->known[s] == 0) {
    r->value[s] = ValueOf(n, idx);
    r->known[s] = 1;
    ++node_reads_;
  }
  return r->value[s];
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
    // An end no node holds any more and no known value to take its place: the set is read again.
    if (r->ends_valid && !Move(r, before, now)) r->ends_valid = false;
  }
}

bool NodeResourceRanges::Move(PerResource* r, double before, double now) {
  if (now == before || (now != now && before != before)) return true;  // the same, or both NaN
  if (!Leave(r, before)) return false;
  Join(r, now);
  return true;
}

void NodeResourceRanges::Join(PerResource* r, double v) {
  if (v != v) return;  // NaN: the node does not have the resource
  if (r->count++ == 0) {
    r->low = r->high = End{v, 0, 1, 0, true};
    return;
  }
  JoinEnd<true>(&r->low, v);
  JoinEnd<false>(&r->high, v);
}

bool NodeResourceRanges::Leave(PerResource* r, double v) {
  if (v != v) return true;  // NaN: was not among the values
  if (--r->count == 0) return true;
  const bool low = LeaveEnd<true>(&r->low, v);
  return LeaveEnd<false>(&r->high, v) && low;
}

namespace {

// Whether a lies beyond b, toward the end (lower for the low end, higher for the high one).
template <bool kLow>
bool Beyond(double a, double b) {
  return kLow ? a < b : a > b;
}

}  // namespace

template <bool kLow>
void NodeResourceRanges::JoinEnd(End* e, double v) {
  if (Beyond<kLow>(v, e->end)) {
    e->next = e->end;
    e->at_next = e->at_end;
    e->next_known = true;
    e->end = v;
    e->at_end = 1;
  } else if (v == e->end) {
    ++e->at_end;
  } else if (e->next_known) {
    if (e->at_next == 0 || Beyond<kLow>(v, e->next)) {
      e->next = v;
      e->at_next = 1;
    } else if (v == e->next) {
      ++e->at_next;
    }
  }
}

template <bool kLow>
bool NodeResourceRanges::LeaveEnd(End* e, double v) {
  if (v == e->end) {
    if (--e->at_end > 0) return true;
    if (!e->next_known || e->at_next == 0) return false;
    e->end = e->next;
    e->at_end = e->at_next;
    e->next_known = false;  // the value after it is not kept
    return true;
  }
  if (e->next_known && e->at_next > 0 && v == e->next && --e->at_next == 0) {
    e->next_known = false;
  }
  return true;
}

void NodeResourceRanges::Over(PerResource* r, int idx) {
  ++set_passes_;
  r->count = 0;
  for (size_t i = 0; i < r->last_slots.size(); ++i) {
    Join(r, KnownValue(r, r->last_slots[i], *r->last_set[i], idx));
  }
  r->ends_valid = true;
}

NodeResourceRanges::Range NodeResourceRanges::RangeOf(const PerResource& r) {
  // What Compute's pass would give: the ends extend kEmpty as every value would.
  Range out = kEmpty;
  if (r.count > 0) {
    Extend(r.low.end, &out);
    Extend(r.high.end, &out);
  }
  return out;
}

}  // namespace kai::scheduler
