// Queue order (reference §9.4): which queue's job goes next, and, inverted, whose job is the
// next victim. The first decisive rule wins:
//   1. not over-utilized (FairShare < Allocated in every resource) before over-utilized;
//   2. "starved" (Allocated + job <= Deserved in every resource) before not starved;
//   3. higher queue priority first;
//   4. a queue that would use a resource it has no allocatable share of loses;
//   5. smaller dominant resource share with the job (and without the victims) first;
//   6. smaller dominant resource share without the job first;
//   7. smaller allocatable share (<= in all, < in one) first;
//   8. older queue first; KAI stops here (equal timestamps favour the right-hand queue, which is
//      not a strict order), we break the tie by UID so that the order is total.
#pragma once

#include <span>

#include "scheduler/plugins/proportion/resource_share/queue_attributes.h"

namespace kai::proportion {

inline constexpr int kLeftQueueFirst = -1;
inline constexpr int kRightQueueFirst = 1;
inline constexpr int kQueuesEqual = 0;

// One side of a comparison. `job` is the candidate job's tasks-to-allocate resources
// (GPU-memory requests already converted to GPUs), nullptr when there is none (victim mode).
// `victims` are the allocated resources of the victim jobs already taken from this queue plus
// its next candidate (victim mode only).
struct QueueOrderSide {
  const QueueAttributes* queue = nullptr;
  const ResourceQuantities* job = nullptr;
  std::span<const ResourceQuantities> victims;
};

// What rules 1, 2 and 4-6 read of one side, computed from that side alone (and `total`); rules
// 3, 7 and 8 read the queue's own fields. A caller may keep a side's key while the queue's
// numbers and the job's resources stay as they were.
struct QueueOrderKey {
  const QueueAttributes* queue = nullptr;
  bool over_utilized = false;         // rule 1
  bool starved = false;               // rule 2
  bool zero_share_violation = false;  // rule 4
  double share_with_job = 0;          // rule 5
  double share = 0;                   // rule 6

  bool operator==(const QueueOrderKey&) const = default;
};
QueueOrderKey QueueOrderKeyOf(const QueueOrderSide& s, const ResourceQuantities& total);
// The part of a key that does not read the job or the victims (rules 1 and 6): a caller may keep
// it while the queue's numbers stay as they were, whatever its candidates.
struct QueueOrderBase {
  bool over_utilized = false;
  double share = 0;
};
QueueOrderBase QueueOrderBaseOf(const QueueAttributes& queue, const ResourceQuantities& total);
// QueueOrderKeyOf(s, total), given QueueOrderBaseOf(*s.queue, total).
QueueOrderKey QueueOrderKeyOf(const QueueOrderSide& s, const ResourceQuantities& total,
                              const QueueOrderBase& base);
int CompareQueueKeys(const QueueOrderKey& l, const QueueOrderKey& r);

// Returns kLeftQueueFirst, kRightQueueFirst, or kQueuesEqual (only for the same UID).
// `total` is the cluster total (used where an allocatable share is unlimited).
// CompareQueueKeys of the two sides' keys.
int CompareQueues(const QueueOrderSide& l, const QueueOrderSide& r,
                  const ResourceQuantities& total);

// How JobsOrderByQueues turns the result into its heap's "less": in victim mode KAI negates
// the boolean (so ties invert too), it does not negate the sign.
inline bool QueueLess(int compare_result, bool victim_mode) {
  const bool less = compare_result < 0;
  return victim_mode ? !less : less;
}

}  // namespace kai::proportion
