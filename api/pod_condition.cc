#include "api/pod_condition.h"

#include "api/json_quote.h"
#include "kube/base/time.h"

namespace kai::api {

std::string PodConditionPatchBody(const PodCondition& c, std::string_view uid) {
  std::string out = "{";
  if (!uid.empty()) out += "\"metadata\":{\"uid\":" + JsonQuote(uid) + "},";
  // Field order and null probe time as Go's json.Marshal of a v1.PodCondition.
  out += "\"status\":{\"conditions\":[{\"type\":" + JsonQuote(c.type) +
         ",\"status\":" + JsonQuote(c.status) + ",\"lastProbeTime\":";
  out += c.last_probe_time ? JsonQuote(FormatRfc3339(*c.last_probe_time)) : "null";
  out += ",\"lastTransitionTime\":";
  out += c.last_transition_time ? JsonQuote(FormatRfc3339(*c.last_transition_time)) : "null";
  if (!c.reason.empty()) out += ",\"reason\":" + JsonQuote(c.reason);
  if (!c.message.empty()) out += ",\"message\":" + JsonQuote(c.message);
  out += "}]}}";
  return out;
}

std::optional<std::string> PodConditionPatch(const Pod& pod, PodCondition c, WallTime now) {
  c.last_transition_time = now;
  const PodCondition* old = nullptr;
  for (const auto& existing : pod.status.conditions) {
    if (existing.type == c.type) {
      old = &existing;
      break;
    }
  }
  if (old != nullptr) {
    if (old->status == c.status) c.last_transition_time = old->last_transition_time;
    bool equal = old->status == c.status && old->reason == c.reason && old->message == c.message &&
                 old->last_probe_time == c.last_probe_time &&
                 old->last_transition_time == c.last_transition_time;
    if (equal) return std::nullopt;
  }
  return PodConditionPatchBody(c, pod.metadata.uid);
}

}  // namespace kai::api
