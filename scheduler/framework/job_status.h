// What the scheduler reports for a job at session close (KAI status_updater
// RecordJobStatusEvent, reference §21.2): the PodGroup events and scheduling condition, and the
// message of every pending pod. The live mode turns the report into events and patches; simulate
// prints it.
#pragma once

#include <string>
#include <vector>

#include "scheduler/api/podgroup_info.h"

namespace kai::scheduler {

struct JobStatusReport {
  // Event StaleJob: "Job is stale. <n> pods are active, minMember is <m>[, subGroup ...]".
  std::string stale_message;
  // The job has Pending or Gated tasks (nothing else below is filled otherwise).
  bool has_pending = false;
  // Event NotReady (gang incomplete): "Job is not ready for scheduling. Waiting for ...". When
  // set, KAI records nothing else for the job.
  std::string not_ready_message;
  // Event Unschedulable on the PodGroup, and the message of the UnschedulableOnNodePool
  // condition: JobFitErrorsToMessage of the job fit errors (or "Unable to schedule podgroup"),
  // prefixed "Node-Pool '<pool>': " when schedulingBackoff is 1.
  std::string podgroup_message;
  // Whether the condition is written: only when the job has no active-allocated task.
  bool set_condition = false;
  // The condition's reasons[] (one per job fit error).
  std::vector<JobFitError> reasons;
  // Per Pending pod (and pod of an unknown subgroup): event Unschedulable and, unless
  // markUnschedulable is false, condition PodScheduled=False/Unschedulable with this message.
  struct PodMessage {
    const PodInfo* task = nullptr;
    std::string message;
    bool update_condition = true;
  };
  std::vector<PodMessage> pod_messages;

  // The one-line explanation of a pending job: the NotReady message, else the PodGroup message;
  // empty when the job has nothing pending.
  std::string Explanation() const;
};

// `node_pool` is the value of the node-pool label on the PodGroup ("default" when none).
JobStatusReport BuildJobStatusReport(const PodGroupInfo& job, const std::string& node_pool);

// The PodGroup's node pool: the value of `node_pool_label_key`, or "default".
std::string NodePoolOf(const PodGroupInfo& job, const std::string& node_pool_label_key);

}  // namespace kai::scheduler
