// Capacity policy (reference §9.5): queue limits and the non-preemptible quota rule.
//
//   OverLimit               - for the job's queue or any ancestor, a requested resource (> 0)
//                             whose limit is not -1 would exceed it: Allocated + request > limit.
//   NonPreemptibleOverQuota - a non-preemptible job would push AllocatedNotPreemptible above
//                             the quota (deserved, not -1) of its queue or any ancestor.
// The results carry KAI's reason, message and quota details, ready to become a PodGroup
// unschedulable explanation.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "scheduler/plugins/proportion/resource_share/queue_table.h"

namespace kai::proportion {

enum class UnschedulableReason { kNone, kOverLimit, kNonPreemptibleOverQuota };

// "OverLimit", "NonPreemptibleOverQuota" (PodGroup v2alpha2 UnschedulableReason values).
std::string_view UnschedulableReasonString(UnschedulableReason reason);

// PodGroup v2alpha2 QuotaDetails; quantities in scheduler units (millicores, bytes, GPUs).
struct QuotaDetails {
  std::string queue_uid;
  ResourceQuantities queue_requested;
  ResourceQuantities queue_deserved;
  ResourceQuantities queue_allocated;
  ResourceQuantities queue_allocated_non_preemptible;
  ResourceQuantities queue_limits;
  ResourceQuantities podgroup_requested;
  ResourceQuantities podgroup_requested_non_preemptible;
};

struct SchedulableResult {
  bool schedulable = true;
  UnschedulableReason reason = UnschedulableReason::kNone;
  std::string message;
  std::optional<QuotaDetails> details;

  static SchedulableResult Schedulable() { return {}; }
};

class CapacityPolicy {
 public:
  // `queues` must outlive the policy; it is read at call time (live session numbers).
  explicit CapacityPolicy(const QueueTable* queues) : queues_(queues) {}

  // Allocate's check for a job's tasks to allocate: OverLimit first, then (non-preemptible
  // jobs) NonPreemptibleOverQuota. `requested` is the sum of the tasks' requests with
  // GPU-memory requests converted to GPUs.
  SchedulableResult IsJobOverQueueCapacity(QueueIndex queue, bool preemptible,
                                           const ResourceQuantities& requested) const;
  // Only the non-preemptible quota rule (the preempt action's pre-check).
  SchedulableResult IsNonPreemptibleJobOverQuota(QueueIndex queue, bool preemptible,
                                                 const ResourceQuantities& requested) const;
  // Per task and node, with the quota the node would actually grant the task (e.g. a
  // GPU-memory request as a fraction of that node's GPU).
  SchedulableResult IsTaskAllocationOnNodeOverCapacity(
      QueueIndex queue, bool preemptible, const ResourceQuantities& required_init_quota) const;

 private:
  SchedulableResult ResultsOverLimit(QueueIndex queue, bool preemptible,
                                     const ResourceQuantities& requested) const;
  SchedulableResult ResultsWithNonPreemptibleOverQuota(QueueIndex queue, bool preemptible,
                                                       const ResourceQuantities& requested) const;

  const QueueTable* queues_;
};

// "<queue> quota has reached the allowable limit of GPUs. Limit is <x> GPUs, currently <y> GPUs
// allocated and workload requested <z> GPUs" (CPU cores / memory variants).
std::string JobOverMaxAllowedMessage(const std::string& queue_name, ResourceName resource,
                                     double max_allowed, double used, double requested);
// "Non-preemptible workload is over quota. Workload requested <n> GPUs, but <queue> quota is
// <q> GPUs, while <a> GPUs are already allocated for non-preemptible pods. Use a preemptible
// workload to go over quota." (CPU cores / GB memory variants).
std::string NonPreemptibleOverQuotaMessage(const std::string& queue_name, ResourceName resource,
                                           double deserved, double used,
                                           const ResourceQuantities& requested);

}  // namespace kai::proportion
