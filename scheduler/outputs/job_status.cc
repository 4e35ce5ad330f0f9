#include "scheduler/outputs/job_status.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "api/pod_condition.h"
#include "api/well_known.h"
#include "kube/base/saturating_cast.h"
#include "kube/base/time.h"
#include "scheduler/framework/job_status.h"
#include "scheduler/outputs/bind_request_builder.h"
#include "scheduler/outputs/json_patch.h"

namespace kai::scheduler {

namespace {

// setPodGroupStaleTimeStamp / setPodGroupLastStartTimeStamp.
bool SetTimestampAnnotation(std::map<std::string, std::string>* annotations, std::string_view key,
                            const std::optional<WallTime>& ts) {
  std::string k(key);
  auto it = annotations->find(k);
  if (!ts) {
    if (it == annotations->end()) return false;
    annotations->erase(it);
    return true;
  }
  std::string value = FormatRfc3339(*ts);
  if (it != annotations->end() && it->second == value) return false;
  (*annotations)[k] = value;
  return true;
}

api::ResourceList ToResourceList(const std::map<std::string, double>& m) {
  auto get = [&](const char* k) {
    auto it = m.find(k);
    return it == m.end() ? 0.0 : it->second;
  };
  api::ResourceList rl;
  rl["cpu"] = api::Quantity::FromMilli(SaturatingCast<int64_t>(get("cpu")));
  rl["memory"] = api::Quantity::FromInt(SaturatingCast<int64_t>(get("memory")),
                                        api::Quantity::Format::kBinarySI);
  rl["nvidia.com/gpu"] = api::Quantity::FromInt(SaturatingCast<int64_t>(get("gpu")));
  return rl;
}

int ParseTransitionId(const std::string& s) {
  if (s.empty()) return -1;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (*end != '\0') return -1;
  return static_cast<int>(v);
}

bool EqualConditions(const api::SchedulingCondition& a, const api::SchedulingCondition& b) {
  return a.type == b.type && a.node_pool == b.node_pool && a.reason == b.reason &&
         a.message == b.message && a.status == b.status;
}

// Pods of an unknown subgroup (always), then, when the gang is complete, every pending pod: event
// Unschedulable and condition PodScheduled=False.
void AddPodMessages(const JobStatusReport& report, WallTime now, JobStatusWrites* w) {
  for (const auto& pm : report.pod_messages) {
    w->events.push_back(
        EventRecord{PodTarget(pm.task->pod()), "Warning", "Unschedulable", pm.message, {}});
    if (!pm.update_condition) continue;
    api::PodCondition c;
    c.type = "PodScheduled";
    c.status = "False";
    c.reason = "Unschedulable";
    c.message = pm.message;
    if (auto patch = api::PodConditionPatch(pm.task->pod(), c, now)) {
      w->pod_status_patches.push_back(
          PodStatusPatch{pm.task->namespace_(), pm.task->name(), pm.task->uid(), *patch});
    }
  }
}

}  // namespace

EventTarget PodGroupTarget(const api::PodGroup& pg) {
  return EventTarget{
      "PodGroup",      "scheduling.run.ai/v2alpha2", pg.metadata.namespace_, pg.metadata.name,
      pg.metadata.uid, pg.metadata.resource_version};
}

EventTarget PodTarget(const api::Pod& pod) {
  return EventTarget{"Pod",
                     "v1",
                     pod.metadata.namespace_,
                     pod.metadata.name,
                     pod.metadata.uid,
                     pod.metadata.resource_version};
}

std::string JobFitErrorsToDetailedMessage(const std::vector<JobFitError>& errors) {
  std::string reason = errors.size() == 1 ? errors[0].reason : std::string(kDefaultPodGroupError);
  std::vector<std::string> parts;
  parts.reserve(errors.size());
  for (const auto& e : errors) parts.push_back("\n" + e.message + ".");
  std::sort(parts.begin(), parts.end());
  std::string out = "\n" + reason + ".";
  for (const auto& p : parts) out += p;
  return out;
}

api::UnschedulableExplanation ToUnschedulableExplanation(const JobFitError& e) {
  api::UnschedulableExplanation x;
  x.reason = e.reason;
  x.message = e.message;
  if (e.details) {
    api::QuotaDetails q;
    q.name = e.details->name;
    q.queue_requested_resources = ToResourceList(e.details->requested);
    q.queue_deserved_resources = ToResourceList(e.details->deserved);
    q.queue_allocated_resources = ToResourceList(e.details->allocated);
    q.queue_allocated_non_preemptible_resources =
        ToResourceList(e.details->allocated_non_preemptible);
    q.queue_resource_limits = ToResourceList(e.details->limits);
    q.pod_group_requested_resources = ToResourceList(e.details->podgroup_requested);
    q.pod_group_requested_non_preemptible_resources =
        ToResourceList(e.details->podgroup_requested_non_preemptible);
    x.details = api::UnschedulableExplanationDetails{std::move(q)};
  }
  return x;
}

bool SetSchedulingCondition(api::PodGroup* pg, api::SchedulingCondition c, WallTime now) {
  auto& conds = pg->status.scheduling_conditions;
  int current = -1;
  for (size_t i = 0; i < conds.size(); ++i) {
    if (conds[i].node_pool == c.node_pool) {
      current = static_cast<int>(i);
      break;
    }
  }
  // The newest condition is the one with the highest transition ID (first one on ties).
  const api::SchedulingCondition* last = nullptr;
  for (const auto& cond : conds) {
    if (last == nullptr ||
        ParseTransitionId(cond.transition_id) > ParseTransitionId(last->transition_id)) {
      last = &cond;
    }
  }
  int last_id = 0;
  if (last != nullptr) last_id = std::max(0, ParseTransitionId(last->transition_id));
  c.transition_id = std::to_string(last_id + 1);
  bool update = last == nullptr || !EqualConditions(*last, c) ||
                current != static_cast<int>(conds.size()) - 1;
  if (!update) return false;
  std::vector<api::SchedulingCondition> squashed;
  for (auto& cond : conds) {
    if (cond.node_pool != c.node_pool) squashed.push_back(std::move(cond));
  }
  c.last_transition_time = now;
  squashed.push_back(std::move(c));
  conds = std::move(squashed);
  return true;
}

JobStatusWrites ComputeJobStatusWrites(const PodGroupInfo& job, const JobStatusOptions& o,
                                       WallTime now) {
  JobStatusWrites w;
  const api::PodGroup& original = job.podgroup();
  api::PodGroup updated = original;

  bool annotations_changed = SetTimestampAnnotation(
      &updated.metadata.annotations, api::kStalePodGroupTimestampAnnotation, job.stale_timestamp);
  annotations_changed |= SetTimestampAnnotation(
      &updated.metadata.annotations, api::kLastStartTimestampAnnotation, job.last_start_timestamp);
  const std::string node_pool = NodePoolOf(job, o.node_pool_label_key);
  JobStatusReport report = BuildJobStatusReport(job, node_pool);
  // A job of one made up for a pod without a PodGroup has no object to write to or to attach
  // events to: only its pod is told.
  if (job.implicit) {
    AddPodMessages(report, now, &w);
    return w;
  }
  if (!report.stale_message.empty()) {
    w.events.push_back(
        EventRecord{PodGroupTarget(original), "Normal", "StaleJob", report.stale_message, {}});
  }
  AddPodMessages(report, now, &w);
  bool status_changed = false;
  if (report.has_pending && !report.not_ready_message.empty()) {
    w.events.push_back(
        EventRecord{PodGroupTarget(original), "Normal", "NotReady", report.not_ready_message, {}});
  } else if (report.has_pending) {
    std::string msg = report.podgroup_message;
    if (o.detailed_fit_errors) {
      msg = JobFitErrorsToDetailedMessage(job.job_fit_errors);
      if (original.spec.scheduling_backoff.value_or(-1) == 1) {
        msg = "Node-Pool '" + node_pool + "': " + msg;
      }
    }
    w.events.push_back(EventRecord{
        PodGroupTarget(original), "Normal", std::string(kPodGroupReasonUnschedulable), msg, {}});
    if (report.set_condition) {
      api::SchedulingCondition c;
      c.type = std::string(kUnschedulableOnNodePool);
      c.node_pool = node_pool;
      c.reason = std::string(kPodGroupReasonUnschedulable);
      c.message = msg;
      c.status = "True";
      for (const auto& e : report.reasons) c.reasons.push_back(ToUnschedulableExplanation(e));
      status_changed = SetSchedulingCondition(&updated, std::move(c), now);
    }
  }

  if (annotations_changed) {
    api::PodGroup after = original;
    after.metadata.annotations = updated.metadata.annotations;
    auto patch = CreateJsonPatch(api::EncodeJson(original), api::EncodeJson(after));
    if (patch.ok() && *patch != "[]") w.podgroup_patch = *patch;
  }
  if (status_changed) {
    api::PodGroup after = original;
    after.status = updated.status;
    auto patch = CreateJsonPatch(api::EncodeJson(original), api::EncodeJson(after));
    if (patch.ok() && *patch != "[]") w.podgroup_status_patch = *patch;
  }
  if (!w.podgroup_patch.empty() || !w.podgroup_status_patch.empty()) {
    w.desired = std::make_shared<const api::PodGroup>(std::move(updated));
  }
  return w;
}

}  // namespace kai::scheduler
