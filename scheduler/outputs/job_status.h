// What the scheduler writes for each job when a session closes (KAI status_updater
// RecordJobStatusEvent, reference §21.2): PodGroup annotations (last-start and stale
// timestamps) as a JSON-patch diff, StaleJob / NotReady / Unschedulable events, PodScheduled=False
// conditions on pods that stay pending, and the PodGroup's UnschedulableOnNodePool scheduling
// condition as a JSON-patch diff on podgroups/status. The texts come from the core's
// JobStatusReport (scheduler/framework/job_status.h); this turns the report into writes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/podgroup.h"
#include "kube/base/clock.h"
#include "scheduler/api/podgroup_info.h"
#include "scheduler/outputs/scheduler_writer.h"

namespace kai::scheduler {

inline constexpr std::string_view kUnschedulableOnNodePool = "UnschedulableOnNodePool";
inline constexpr std::string_view kPodGroupReasonUnschedulable = "Unschedulable";

struct JobStatusOptions {
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  bool detailed_fit_errors = false;
};

// A strategic-merge patch on pods/status.
struct PodStatusPatch {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string patch;
};

struct JobStatusWrites {
  // In the order KAI emits them.
  std::vector<EventRecord> events;
  std::vector<PodStatusPatch> pod_status_patches;
  // RFC 6902 patch on the PodGroup (annotations); empty when nothing changed.
  std::string podgroup_patch;
  // RFC 6902 patch on podgroups/status (schedulingConditions); empty when nothing changed.
  std::string podgroup_status_patch;
  // The PodGroup as it is once both patches apply (what the next snapshot should see while the
  // writes are in flight); null when neither patch is written.
  std::shared_ptr<const api::PodGroup> desired;
};

JobStatusWrites ComputeJobStatusWrites(const PodGroupInfo& job, const JobStatusOptions& options,
                                       WallTime now);

// JobFitErrorsToDetailedMessage (--detailed-fit-errors); the compact form is
// JobFitErrorsToMessage (scheduler/api/fit_errors.h).
std::string JobFitErrorsToDetailedMessage(const std::vector<JobFitError>& errors);
// The PodGroup status form of a job fit error (queue details as resource lists).
api::UnschedulableExplanation ToUnschedulableExplanation(const JobFitError& e);

// setPodGroupSchedulingCondition: sets the transition ID from the newest condition, and, when
// the condition differs from the newest one or is not last, drops older conditions of the same
// node pool and appends it. Returns whether the PodGroup changed.
bool SetSchedulingCondition(api::PodGroup* pg, api::SchedulingCondition condition, WallTime now);

// The event target for a PodGroup / a pod.
EventTarget PodGroupTarget(const api::PodGroup& pg);
EventTarget PodTarget(const api::Pod& pod);

}  // namespace kai::scheduler
