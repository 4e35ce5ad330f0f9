#include "scheduler/plugins/proportion/resource_share/queue_attributes.h"

#include <algorithm>

namespace kai::proportion {
namespace {

template <typename F>
ResourceQuantities Build(const QueueAttributes& q, F f) {
  ResourceQuantities out;
  for (ResourceName r : kAllResources) out[r] = f(q.share(r));
  return out;
}

}  // namespace

void QueueAttributes::SetQuotaResources(ResourceName r, double deserved, double max_allowed,
                                        double over_quota_weight) {
  ResourceShare& s = share(r);
  s.deserved = deserved;
  s.max_allowed = max_allowed;
  s.over_quota_weight = over_quota_weight;
}

ResourceQuantities QueueAttributes::Deserved() const {
  return Build(*this, [](const ResourceShare& s) { return s.deserved; });
}
ResourceQuantities QueueAttributes::FairShare() const {
  return Build(*this, [](const ResourceShare& s) { return s.fair_share; });
}
ResourceQuantities QueueAttributes::MaxAllowed() const {
  return Build(*this, [](const ResourceShare& s) { return s.max_allowed; });
}
ResourceQuantities QueueAttributes::Allocated() const {
  return Build(*this, [](const ResourceShare& s) { return s.allocated; });
}
ResourceQuantities QueueAttributes::AllocatedNonPreemptible() const {
  return Build(*this, [](const ResourceShare& s) { return s.allocated_not_preemptible; });
}
ResourceQuantities QueueAttributes::Request() const {
  return Build(*this, [](const ResourceShare& s) { return s.request; });
}
ResourceQuantities QueueAttributes::Requestable() const {
  return Build(*this, [](const ResourceShare& s) { return s.RequestableShare(); });
}
ResourceQuantities QueueAttributes::Allocatable() const {
  return Build(*this, [](const ResourceShare& s) { return s.AllocatableShare(); });
}
ResourceQuantities QueueAttributes::Usage() const {
  return Build(*this, [](const ResourceShare& s) { return s.usage; });
}

bool QueueAttributes::FairShareLessThanAllocated() const {
  for (const ResourceShare& s : shares) {
    if (s.fair_share >= s.allocated) return false;
  }
  return true;
}

bool QueueAttributes::AllocatedPlusLessEqualDeserved(const ResourceQuantities& resources) const {
  for (ResourceName r : kAllResources) {
    const ResourceShare& s = share(r);
    if (CompareQuantities(s.allocated + resources[r], s.deserved) > 0) return false;
  }
  return true;
}

bool QueueAttributes::QuantitiesLessEqualAllocatable(const ResourceQuantities& quantities) const {
  for (ResourceName r : kAllResources) {
    if (CompareQuantities(quantities[r], share(r).AllocatableShare()) > 0) return false;
  }
  return true;
}

double QueueAttributes::DominantResourceShare(const ResourceQuantities& total) const {
  return DominantResourceShareOf(Allocated(), total);
}

double QueueAttributes::DominantResourceShareOf(const ResourceQuantities& allocated,
                                                const ResourceQuantities& total) const {
  double dominant = 0.0;
  for (ResourceName r : kAllResources) {
    double allocatable = share(r).AllocatableShare();
    if (allocatable == kUnlimited) allocatable = total[r];
    const double value =
        allocatable == 0 ? allocated[r] * kNoFairShareDrfMultiplier : allocated[r] / allocatable;
    dominant = std::max(dominant, value);
  }
  return dominant;
}

}  // namespace kai::proportion
