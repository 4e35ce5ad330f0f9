#include "scheduler/plugins/proportion/reclaimable/strategies.h"

namespace kai::proportion {

bool FitsMaintainFairShare(const QueueAttributes& reclaimee,
                           const ResourceQuantities& reclaimee_remaining) {
  return !reclaimee.QuantitiesLessEqualAllocatable(reclaimee_remaining);
}

bool FitsGuaranteeDeservedQuota(const ResourceQuantities& reclaimer_required,
                                const QueueAttributes& reclaimer, const QueueAttributes& reclaimee,
                                const ResourceQuantities& reclaimee_remaining) {
  if (!reclaimer.AllocatedPlusLessEqualDeserved(reclaimer_required)) return false;
  return !reclaimee_remaining.LessEqual(reclaimee.Deserved());
}

bool FitsReclaimStrategy(const ResourceQuantities& reclaimer_required,
                         const QueueAttributes& reclaimer, const QueueAttributes& reclaimee,
                         const ResourceQuantities& reclaimee_remaining) {
  return FitsMaintainFairShare(reclaimee, reclaimee_remaining) ||
         FitsGuaranteeDeservedQuota(reclaimer_required, reclaimer, reclaimee, reclaimee_remaining);
}

}  // namespace kai::proportion
