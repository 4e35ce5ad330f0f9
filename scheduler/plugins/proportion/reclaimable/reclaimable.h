// Reclaim rules (reference §9.5): the reclaim action's pre-check and scenario validator.
#pragma once

#include <span>

#include "scheduler/plugins/proportion/reclaimable/reclaimer_info.h"

namespace kai::proportion {

// Default and minimum of the proportion argument relcaimerSaturationMultiplier (also accepted as
// reclaimerUtilizationMultiplier, its documented name).
inline constexpr double kDefaultSaturationMultiplier = 1.0;

class Reclaimable {
 public:
  // Multipliers below 1 are raised to 1, as KAI does.
  explicit Reclaimable(double saturation_multiplier = kDefaultSaturationMultiplier);

  double saturation_multiplier() const { return saturation_multiplier_; }

  // Pre-check: the reclaimer's queue stays within its fair share with the job (all resources)
  // and, for a non-preemptible reclaimer, its non-preemptible allocation stays within quota.
  bool CanReclaimResources(const QueueTable& queues, const ReclaimerInfo& reclaimer) const;

  // Validates a victim scenario against `queues` (the simulation clone taken when the job's
  // solving started). `victims` lists, per victim leaf queue, the chunks evicted from it; queues
  // are processed in the given order.
  //  1. every chunk, before it is taken, must satisfy a reclaim strategy against the leveled
  //     reclaimee queue's remaining allocation, which then drops by the chunk (for the victim
  //     queue and all its ancestors);
  //  2. walking from the reclaimer's queue to the root, with the job added, the reclaimer's
  //     fair-share saturation must stay below that of every sibling that lost resources, per
  //     involved resource (times the multiplier);
  //  3. a non-preemptible reclaimer must stay within quota at every level.
  bool IsReclaimable(const QueueTable& queues, const ReclaimerInfo& reclaimer,
                     std::span<const VictimQueueChunks> victims) const;

  // The pair of ancestors of `reclaimer` and `reclaimee` that are siblings under their lowest
  // common ancestor (kNoQueue, kNoQueue when either queue is unknown).
  static std::pair<QueueIndex, QueueIndex> LeveledQueues(const QueueTable& queues,
                                                         QueueIndex reclaimer,
                                                         QueueIndex reclaimee);

  // allocated / fairShare, 0 for an unlimited fair share, +inf for a zero fair share with a
  // positive allocation.
  static double FairShareSaturationRatio(double allocated, double fair_share);

 private:
  double saturation_multiplier_;
};

}  // namespace kai::proportion
