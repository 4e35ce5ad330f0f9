#include "scheduler/plugins/proportion/capacity_policy/capacity_policy.h"

#include "scheduler/plugins/proportion/messages/format.h"

namespace kai::proportion {

std::string_view UnschedulableReasonString(UnschedulableReason reason) {
  switch (reason) {
    case UnschedulableReason::kNone:
      return "";
    case UnschedulableReason::kOverLimit:
      return "OverLimit";
    case UnschedulableReason::kNonPreemptibleOverQuota:
      return "NonPreemptibleOverQuota";
  }
  return "";
}

std::string JobOverMaxAllowedMessage(const std::string& queue_name, ResourceName resource,
                                     double max_allowed, double used, double requested) {
  std::string resource_name;
  std::string details;
  switch (resource) {
    case ResourceName::kGpu:
      resource_name = "GPUs";
      details = "Limit is " + HumanizeResource(max_allowed, 1) + " GPUs, currently " +
                HumanizeResource(used, 1) + " GPUs allocated and workload requested " +
                HumanizeResource(requested, 1) + " GPUs";
      break;
    case ResourceName::kCpu:
      resource_name = "CPU cores";
      details = "Limit is " + HumanizeResource(max_allowed, kMilliCpuToCores) +
                " cores, currently " + HumanizeResource(used, kMilliCpuToCores) +
                " cores allocated and workload requested " +
                HumanizeResource(requested, kMilliCpuToCores) + " cores";
      break;
    case ResourceName::kMemory:
      resource_name = "memory";
      details = "Limit is " + HumanizeResource(max_allowed, kMemoryToGb) + " GB, currently " +
                HumanizeResource(used, kMemoryToGb) + " GB allocated and workload requested " +
                HumanizeResource(requested, kMemoryToGb) + " GB";
      break;
  }
  return queue_name + " quota has reached the allowable limit of " + resource_name + ". " + details;
}

std::string NonPreemptibleOverQuotaMessage(const std::string& queue_name, ResourceName resource,
                                           double deserved, double used,
                                           const ResourceQuantities& requested) {
  std::string details;
  switch (resource) {
    case ResourceName::kGpu:
      // KAI prints the raw requested GPU count here with %v.
      details = "Workload requested " + GoFormatFloat(requested.gpu()) + " GPUs, but " +
                queue_name + " quota is " + HumanizeResource(deserved, 1) + " GPUs, while " +
                HumanizeResource(used, 1) + " GPUs are already allocated for non-preemptible pods.";
      break;
    case ResourceName::kCpu:
      details = "Workload requested " + HumanizeResource(requested.cpu(), kMilliCpuToCores) +
                " CPU cores, but " + queue_name + " quota is " +
                HumanizeResource(deserved, kMilliCpuToCores) + " cores, while " +
                HumanizeResource(used, kMilliCpuToCores) +
                " cores are already allocated for non-preemptible pods.";
      break;
    case ResourceName::kMemory:
      details = "Workload requested " + HumanizeResource(requested.memory(), kMemoryToGb) +
                " GB memory, but " + queue_name + " quota is " +
                HumanizeResource(deserved, kMemoryToGb) + " GB, while " +
                HumanizeResource(used, kMemoryToGb) +
                " GB are already allocated for non-preemptible pods.";
      break;
  }
  return "Non-preemptible workload is over quota. " + details +
         " Use a preemptible workload to go over quota.";
}

namespace {

// First resource (in CPU, Memory, GPU order) over its limit, if any.
bool IsOverLimit(const QueueAttributes& q, const ResourceQuantities& requested,
                 ResourceName* exceeding) {
  for (ResourceName r : kAllResources) {
    const ResourceShare& s = q.share(r);
    if (s.max_allowed == kUnlimited) continue;
    if (requested[r] == 0) continue;
    if (!LessOrEqualWithTolerance(s.allocated + requested[r], s.max_allowed)) {
      *exceeding = r;
      return true;
    }
  }
  return false;
}

bool IsAllocatedNonPreemptibleOverQuota(const QueueAttributes& q,
                                        const ResourceQuantities& requested,
                                        ResourceName* exceeding) {
  for (ResourceName r : kAllResources) {
    const ResourceShare& s = q.share(r);
    if (s.deserved == kUnlimited) continue;
    if (requested[r] == 0) continue;
    if (!LessOrEqualWithTolerance(s.allocated_not_preemptible + requested[r], s.deserved)) {
      *exceeding = r;
      return true;
    }
  }
  return false;
}

QuotaDetails DetailsFor(const QueueAttributes& q, const ResourceQuantities& requested,
                        const ResourceQuantities& requested_non_preemptible) {
  QuotaDetails d;
  d.queue_uid = q.uid;
  d.queue_requested = q.Request();
  d.queue_deserved = q.Deserved();
  d.queue_allocated = q.Allocated();
  d.queue_allocated_non_preemptible = q.AllocatedNonPreemptible();
  d.queue_limits = q.MaxAllowed();
  d.podgroup_requested = requested;
  d.podgroup_requested_non_preemptible = requested_non_preemptible;
  return d;
}

}  // namespace

SchedulableResult CapacityPolicy::ResultsOverLimit(QueueIndex queue, bool preemptible,
                                                   const ResourceQuantities& requested) const {
  for (QueueIndex i = queue; i != kNoQueue; i = queues_->parent(i)) {
    const QueueAttributes& q = (*queues_)[i];
    ResourceName exceeding = ResourceName::kGpu;
    if (!IsOverLimit(q, requested, &exceeding)) continue;
    SchedulableResult result;
    result.schedulable = false;
    result.reason = UnschedulableReason::kOverLimit;
    const ResourceShare& s = q.share(exceeding);
    result.message = JobOverMaxAllowedMessage(q.name, exceeding, s.max_allowed, s.allocated,
                                              requested[exceeding]);
    result.details = DetailsFor(q, requested, preemptible ? ResourceQuantities{} : requested);
    return result;
  }
  return SchedulableResult::Schedulable();
}

SchedulableResult CapacityPolicy::ResultsWithNonPreemptibleOverQuota(
    QueueIndex queue, bool preemptible, const ResourceQuantities& requested) const {
  if (preemptible) return SchedulableResult::Schedulable();
  for (QueueIndex i = queue; i != kNoQueue; i = queues_->parent(i)) {
    const QueueAttributes& q = (*queues_)[i];
    ResourceName exceeding = ResourceName::kGpu;
    if (!IsAllocatedNonPreemptibleOverQuota(q, requested, &exceeding)) continue;
    SchedulableResult result;
    result.schedulable = false;
    result.reason = UnschedulableReason::kNonPreemptibleOverQuota;
    const ResourceShare& s = q.share(exceeding);
    result.message = NonPreemptibleOverQuotaMessage(q.name, exceeding, s.deserved,
                                                    s.allocated_not_preemptible, requested);
    result.details = DetailsFor(q, requested, requested);
    return result;
  }
  return SchedulableResult::Schedulable();
}

SchedulableResult CapacityPolicy::IsJobOverQueueCapacity(
    QueueIndex queue, bool preemptible, const ResourceQuantities& requested) const {
  SchedulableResult result = ResultsOverLimit(queue, preemptible, requested);
  if (!result.schedulable) return result;
  return ResultsWithNonPreemptibleOverQuota(queue, preemptible, requested);
}

SchedulableResult CapacityPolicy::IsNonPreemptibleJobOverQuota(
    QueueIndex queue, bool preemptible, const ResourceQuantities& requested) const {
  return ResultsWithNonPreemptibleOverQuota(queue, preemptible, requested);
}

SchedulableResult CapacityPolicy::IsTaskAllocationOnNodeOverCapacity(
    QueueIndex queue, bool preemptible, const ResourceQuantities& required_init_quota) const {
  return IsJobOverQueueCapacity(queue, preemptible, required_init_quota);
}

}  // namespace kai::proportion
