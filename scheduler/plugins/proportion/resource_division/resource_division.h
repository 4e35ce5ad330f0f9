// Resource division: computes every queue's fair share of each resource (reference §9.2).
//
// For a set of sibling queues and an amount T of one resource:
//   1. deserved: each queue gets min(quota, requestable) (quota -1 = T);
//   2. over-quota: queues are grouped by priority, highest first; inside a group the remainder
//      is split in rounds proportionally to max(0, w + k(w - u)) (w = normalized over-quota
//      weight, u = normalized historical usage, k = kValue), in whole units (floor) unless the
//      queue's remaining request is smaller than its share;
//   3. leftovers: the fractional remainders of step 2 are handed out one unit at a time to the
//      queues with the largest remainder (ties: older queue, then UID).
// The hierarchy is divided top-down: top-level queues share the cluster total, the children
// of a queue share the parent's fair share.
#pragma once

#include <span>

#include "scheduler/plugins/proportion/resource_share/queue_table.h"

namespace kai::proportion {

struct DivisionOptions {
  // Weight of historical usage in over-quota division (proportion argument kValue). KAI clamps
  // values <= 0 to 0, which switches usage off; see ClampKValue.
  double k_value = 1.0;
  // KAI (at the reference commit) first runs the over-quota rounds of every priority group and
  // only then hands out rounding leftovers, highest priority first, so a lower-priority group
  // can receive whole units while a higher-priority queue still has a fractional remainder.
  // Upstream later changed this to settle each group's leftovers before the next group runs.
  // false = reference behaviour (the default); true = the later upstream behaviour.
  bool leftovers_per_priority_group = false;
};

// KAI's kValue argument handling: values <= 0 become 0.
double ClampKValue(double k_value);

// Divides `total` of resource `r` among `siblings` (phases 1-3), adding to their fair_share.
// Returns the amount left undivided. Siblings are processed in the given order, which callers
// keep fixed (QueueTable order) so that float rounding is reproducible.
double SetResourceShare(QueueTable& queues, std::span<const QueueIndex> siblings, ResourceName r,
                        double total, const DivisionOptions& options);

// Phase 2 and 3 only, for `remaining` after the deserved phase. Exposed for tests.
double DivideOverQuotaResource(QueueTable& queues, std::span<const QueueIndex> siblings,
                               ResourceName r, double remaining, const DivisionOptions& options);

// All three resources for one sibling set.
void SetResourcesShare(QueueTable& queues, std::span<const QueueIndex> siblings,
                       const ResourceQuantities& total, const DivisionOptions& options);

// Resets every fair share to 0, then divides `total` over the whole hierarchy.
void SetFairShare(QueueTable& queues, const ResourceQuantities& total,
                  const DivisionOptions& options);

}  // namespace kai::proportion
