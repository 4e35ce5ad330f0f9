#include "scheduler/framework/job_status.h"

#include "kube/base/strings.h"

namespace kai::scheduler {

namespace {

std::string StaleMessage(const PodGroupInfo& job) {
  int active = 0;
  int min = 0;
  std::string subgroups;
  for (const PodSet* ps : job.root()->DescendantPodSets()) {
    int a = ps->NumActiveUsed();
    active += a;
    min += ps->min_available();
    if (!ps->IsGangSatisfied() && ps->name() != kDefaultSubGroup) {
      subgroups += ", subGroup " + ps->name() + " minMember is " +
                   std::to_string(ps->min_available()) + " and " + std::to_string(a) +
                   " pods are active";
    }
  }
  return "Job is stale. " + std::to_string(active) + " pods are active, minMember is " +
         std::to_string(min) + subgroups;
}

std::string NotReadyMessage(const PodGroupInfo& job) {
  std::string msg = "Job is not ready for scheduling.";
  for (const PodSet* ps : job.root()->DescendantPodSets()) {
    if (ps->IsReadyForScheduling()) continue;
    if (ps->name() == kDefaultSubGroup) {
      msg += " Waiting for " + std::to_string(ps->min_available()) + " pods, currently " +
             std::to_string(ps->NumAlive()) + " exist, " + std::to_string(ps->NumGated()) +
             " are gated";
    } else {
      msg += " Waiting for " + std::to_string(ps->min_available()) + " pods for SubGroup " +
             ps->name() + ", currently " + std::to_string(ps->NumAlive()) + " exist, " +
             std::to_string(ps->NumGated()) + " are gated.";
    }
  }
  return msg;
}

}  // namespace

std::string NodePoolOf(const PodGroupInfo& job, const std::string& node_pool_label_key) {
  const auto& labels = job.podgroup().metadata.labels;
  auto it = labels.find(node_pool_label_key);
  return it == labels.end() || it->second.empty() ? std::string("default") : it->second;
}

std::string JobStatusReport::Explanation() const {
  if (!has_pending) return "";
  if (!not_ready_message.empty()) return not_ready_message;
  return podgroup_message;
}

JobStatusReport BuildJobStatusReport(const PodGroupInfo& job, const std::string& node_pool) {
  JobStatusReport r;
  if (job.stale) r.stale_message = StaleMessage(job);
  const bool backoff = job.podgroup().spec.scheduling_backoff.value_or(-1) == 1;
  auto prefixed = [&](std::string msg) {
    if (backoff) return StrCat("Node-Pool '", node_pool, "': ", msg);
    return msg;
  };
  const auto find_fit_error = [&](const PodInfo& t) -> const TaskFitErrors* {
    auto it = job.task_fit_errors.find(t.uid());
    return it == job.task_fit_errors.end() ? nullptr : &it->second;
  };
  // Pods naming a subgroup the PodGroup does not have are never scheduled; they are told so.
  for (const PodInfo* t : job.invalid_subgroup_tasks()) {
    const TaskFitErrors* fe = find_fit_error(*t);
    r.pod_messages.push_back(
        {t, prefixed(fe ? fe->Message() : std::string(kDefaultPodError)), true});
  }
  r.has_pending = job.NumPending() > 0 || job.NumGated() > 0;
  if (!r.has_pending) return r;
  if (!job.IsReadyForScheduling()) {
    r.not_ready_message = NotReadyMessage(job);
    return r;
  }
  const bool update_pod_condition = job.podgroup().spec.mark_unschedulable.value_or(true);
  for (const PodInfo* t : job.tasks()) {
    if (t->status != PodStatus::kPending) continue;
    std::string msg(kDefaultPodError);
    if (const TaskFitErrors* fe = find_fit_error(*t)) {
      msg = fe->Message();
    } else if (!job.job_fit_errors.empty()) {
      msg = JobFitErrorsToMessage(job.job_fit_errors);
    }
    r.pod_messages.push_back({t, prefixed(std::move(msg)), update_pod_condition});
  }
  r.podgroup_message = job.job_fit_errors.empty() ? std::string(kDefaultPodGroupError)
                                                  : JobFitErrorsToMessage(job.job_fit_errors);
  r.podgroup_message = prefixed(r.podgroup_message);
  r.set_condition = job.NumActiveAllocated() == 0;
  r.reasons = job.job_fit_errors;
  return r;
}

}  // namespace kai::scheduler
