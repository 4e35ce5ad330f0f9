#include "scheduler/plugins/proportion/queue_order/queue_order.h"

namespace kai::proportion {
namespace {

ResourceQuantities JobOf(const QueueOrderSide& s) {
  return s.job != nullptr ? *s.job : ResourceQuantities{};
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

// Rules 1, 2 and 4: the side with the property goes first (`first_if_set`) or last.
int PreferSide(bool l, bool r, bool first_if_set) {
  if (l == r) return kQueuesEqual;
  return l == first_if_set ? kLeftQueueFirst : kRightQueueFirst;
}

QueueOrderBase QueueOrderBaseOf(const QueueAttributes& queue, const ResourceQuantities& total) {
  return {queue.FairShareLessThanAllocated(), queue.DominantResourceShare(total)};
}

QueueOrderKey QueueOrderKeyOf(const QueueOrderSide& s, const ResourceQuantities& total,
                              const QueueOrderBase& base) {
  QueueOrderKey k;
  k.queue = s.queue;
  k.over_utilized = base.over_utilized;
  k.starved = s.queue->AllocatedPlusLessEqualDeserved(JobOf(s));
  k.zero_share_violation = ZeroShareViolation(s);
  k.share_with_job = DominantShareWithJob(s, total);
  k.share = base.share;
  return k;
}

QueueOrderKey QueueOrderKeyOf(const QueueOrderSide& s, const ResourceQuantities& total) {
  return QueueOrderKeyOf(s, total, QueueOrderBaseOf(*s.queue, total));
}

int CompareQueueKeys(const QueueOrderKey& l, const QueueOrderKey& r) {
  const QueueAttributes& lq = *l.queue;
  const QueueAttributes& rq = *r.queue;
  if (int res = PreferSide(l.over_utilized, r.over_utilized, false); res != kQueuesEqual) {
    return res;
  }
  if (int res = PreferSide(l.starved, r.starved, true); res != kQueuesEqual) return res;
  if (int res = PrioritizePrioritized(lq, rq); res != kQueuesEqual) return res;
  if (int res = PreferSide(l.zero_share_violation, r.zero_share_violation, false);
      res != kQueuesEqual) {
    return res;
  }
  if (int res = CompareShares(l.share_with_job, r.share_with_job); res != kQueuesEqual) {
    return res;
  }
  if (int res = CompareShares(l.share, r.share); res != kQueuesEqual) return res;
  if (int res = PrioritizeBasedOnAllocatableShare(lq, rq); res != kQueuesEqual) return res;
  return PrioritizeBasedOnCreationTime(lq, rq);
}

int CompareQueues(const QueueOrderSide& l, const QueueOrderSide& r,
                  const ResourceQuantities& total) {
  return CompareQueueKeys(QueueOrderKeyOf(l, total), QueueOrderKeyOf(r, total));
}

}  // namespace kai::proportion
