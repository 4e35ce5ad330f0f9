// QueueAttributes: a queue as the proportion plugin sees it in one session.
#pragma once

#include <array>
#include <string>

#include "kube/base/clock.h"
#include "scheduler/plugins/proportion/resource_share/resource_quantities.h"
#include "scheduler/plugins/proportion/resource_share/resource_share.h"

namespace kai::proportion {

// Queue.spec.priority when unset.
inline constexpr int kDefaultQueuePriority = 100;

// Dominant-resource-share penalty factor for a resource the queue may not hold at all.
inline constexpr double kNoFairShareDrfMultiplier = 1000;

struct QueueAttributes {
  // Identity (the Queue object's name); parent/child links and usage data use it.
  std::string uid;
  // Name used in messages and metrics (the display name when set).
  std::string name;
  std::string display_name;
  // uid of the parent queue; empty for a top-level queue.
  std::string parent;
  WallTime creation_time{};
  int priority = kDefaultQueuePriority;
  std::array<ResourceShare, 3> shares{};

  ResourceShare& share(ResourceName r) { return shares[Index(r)]; }
  const ResourceShare& share(ResourceName r) const { return shares[Index(r)]; }

  bool IsTopQueue() const { return parent.empty(); }

  // Sets quota, limit and over-quota weight of one resource.
  void SetQuotaResources(ResourceName r, double deserved, double max_allowed,
                         double over_quota_weight);

  ResourceQuantities Deserved() const;
  ResourceQuantities FairShare() const;
  ResourceQuantities MaxAllowed() const;
  ResourceQuantities Allocated() const;
  ResourceQuantities AllocatedNonPreemptible() const;
  ResourceQuantities Request() const;
  ResourceQuantities Requestable() const;
  ResourceQuantities Allocatable() const;
  ResourceQuantities Usage() const;

  // FairShare < Allocated strictly in every resource ("over-utilized").
  bool FairShareLessThanAllocated() const;
  // Allocated + `resources` <= Deserved in every resource (unlimited-aware, tolerant).
  bool AllocatedPlusLessEqualDeserved(const ResourceQuantities& resources) const;
  // `quantities` <= AllocatableShare in every resource.
  bool QuantitiesLessEqualAllocatable(const ResourceQuantities& quantities) const;
  // max over resources of Allocated / AllocatableShare; an unlimited allocatable share is
  // replaced by the cluster total, a zero one penalizes with Allocated * 1000.
  double DominantResourceShare(const ResourceQuantities& total) const;
  // Same, with `allocated` in place of the queue's Allocated.
  double DominantResourceShareOf(const ResourceQuantities& allocated,
                                 const ResourceQuantities& total) const;
};

}  // namespace kai::proportion
