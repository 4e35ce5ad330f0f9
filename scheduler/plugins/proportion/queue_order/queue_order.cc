#include "scheduler/plugins/proportion/queue_order/queue_order.h"

namespace kai::proportion {
namespace {

ResourceQuantities JobOf(const QueueOrderSide& s) {
  return s.job != nullptr ? *s.job : ResourceQuantities{};
}

int PrioritizeUnderUtilized(const QueueAttributes& l, const QueueAttributes& r) {
  const bool l_over = l.FairShareLessThanAllocated();
  const bool r_over = r.FairShareLessThanAllocated();
  if (!l_over && r_over) return kLeftQueueFirst;
  if (l_over && !r_over) return kRightQueueFirst;
  return kQueuesEqual;
}

int PrioritizeUnderQuotaWithJob(const QueueOrderSide& l, const QueueOrderSide& r) {
  const bool l_starved = l.queue->AllocatedPlusLessEqualDeserved(JobOf(l));
  const bool r_starved = r.queue->AllocatedPlusLessEqualDeserved(JobOf(r));
  if (l_starved && !r_starved) return kLeftQueueFirst;
  if (r_starved && !l_starved) return kRightQueueFirst;
  return kQueuesEqual;
}

int PrioritizePrioritized(const QueueAttributes& l, const QueueAttributes& r) {
  if (l.priority > r.priority) return kLeftQueueFirst;
  if (l.priority < r.priority) return kRightQueueFirst;
  return kQueuesEqual;
}

bool ZeroShareViolation(const QueueOrderSide& s) {
  ResourceQuantities with_job = s.queue->Allocated();
  with_job.Add(JobOf(s));
  for (ResourceName r : kAllResources) {
    if (s.queue->share(r).AllocatableShare() != 0) continue;
    if (with_job[r] > 0) return true;
  }
  return false;
}

int PenalizeZeroShareWithJob(const QueueOrderSide& l, const QueueOrderSide& r) {
  const bool l_violation = ZeroShareViolation(l);
  const bool r_violation = ZeroShareViolation(r);
  if (l_violation && !r_violation) return kRightQueueFirst;
  if (!l_violation && r_violation) return kLeftQueueFirst;
  return kQueuesEqual;
}

double DominantShareWithJob(const QueueOrderSide& s, const ResourceQuantities& total) {
  // Same operation order as KAI: allocated += job, then -= each victim.
  ResourceQuantities allocated = s.queue->Allocated();
  const ResourceQuantities job = JobOf(s);
  for (ResourceName r : kAllResources) allocated[r] += job[r];
  for (const ResourceQuantities& victim : s.victims) {
    for (ResourceName r : kAllResources) allocated[r] -= victim[r];
  }
  return s.queue->DominantResourceShareOf(allocated, total);
}

int CompareShares(double l, double r) {
  if (l < r) return kLeftQueueFirst;
  if (l > r) return kRightQueueFirst;
  return kQueuesEqual;
}

int PrioritizeBasedOnAllocatableShare(const QueueAttributes& l, const QueueAttributes& r) {
  const ResourceQuantities la = l.Allocatable();
  const ResourceQuantities ra = r.Allocatable();
  if (la.LessInAtLeastOneResource(ra) && la.LessEqual(ra)) return kLeftQueueFirst;
  if (ra.LessInAtLeastOneResource(la) && ra.LessEqual(la)) return kRightQueueFirst;
  return kQueuesEqual;
}

int PrioritizeBasedOnCreationTime(const QueueAttributes& l, const QueueAttributes& r) {
  if (l.creation_time < r.creation_time) return kLeftQueueFirst;
  if (r.creation_time < l.creation_time) return kRightQueueFirst;
  if (l.uid < r.uid) return kLeftQueueFirst;
  if (r.uid < l.uid) return kRightQueueFirst;
  return kQueuesEqual;
}

}  // namespace

int CompareQueues(const QueueOrderSide& l, const QueueOrderSide& r,
                  const ResourceQuantities& total) {
  const QueueAttributes& lq = *l.queue;
  const QueueAttributes& rq = *r.queue;
  if (int res = PrioritizeUnderUtilized(lq, rq); res != kQueuesEqual) return res;
  if (int res = PrioritizeUnderQuotaWithJob(l, r); res != kQueuesEqual) return res;
  if (int res = PrioritizePrioritized(lq, rq); res != kQueuesEqual) return res;
  if (int res = PenalizeZeroShareWithJob(l, r); res != kQueuesEqual) return res;
  if (int res = CompareShares(DominantShareWithJob(l, total), DominantShareWithJob(r, total));
      res != kQueuesEqual) {
    return res;
  }
  if (int res = CompareShares(lq.DominantResourceShare(total), rq.DominantResourceShare(total));
      res != kQueuesEqual) {
    return res;
  }
  if (int res = PrioritizeBasedOnAllocatableShare(lq, rq); res != kQueuesEqual) return res;
  return PrioritizeBasedOnCreationTime(lq, rq);
}

}  // namespace kai::proportion
