// Reclaim strategies: a victim chunk may be taken from a reclaimee queue only if one holds.
//   MaintainFairShare      - the reclaimee (before losing the chunk) holds more than its
//                            allocatable share in at least one resource;
//   GuaranteeDeservedQuota - the reclaimer would stay within its quota with the job, and the
//                            reclaimee holds more than its quota in at least one resource.
// Both queues are the "leveled" pair: the ancestors of reclaimer and reclaimee that are
// siblings under their lowest common ancestor.
#pragma once

#include "scheduler/plugins/proportion/resource_share/queue_attributes.h"

namespace kai::proportion {

bool FitsMaintainFairShare(const QueueAttributes& reclaimee,
                           const ResourceQuantities& reclaimee_remaining);
bool FitsGuaranteeDeservedQuota(const ResourceQuantities& reclaimer_required,
                                const QueueAttributes& reclaimer, const QueueAttributes& reclaimee,
                                const ResourceQuantities& reclaimee_remaining);
// Either strategy.
bool FitsReclaimStrategy(const ResourceQuantities& reclaimer_required,
                         const QueueAttributes& reclaimer, const QueueAttributes& reclaimee,
                         const ResourceQuantities& reclaimee_remaining);

}  // namespace kai::proportion
