// Pod conditions as KAI's scheduler and binder write them: Kubernetes' podutil
// UpdatePodCondition rule (write only when something changes) and the strategic-merge patch body
// {"status":{"conditions":[...]}} sent to pods/status (conditions merge by type).
#pragma once

#include <optional>
#include <string>

#include "api/pod.h"
#include "kube/base/clock.h"

namespace kai::api {

// The patch that sets `condition` on the pod, or nullopt when the pod already has an equal
// condition (same status, reason, message and probe time). lastTransitionTime is `now` when the
// status changes, else the existing one.
std::optional<std::string> PodConditionPatch(const Pod& pod, PodCondition condition, WallTime now);

// The strategic-merge patch body for one condition (no comparison).
std::string PodConditionPatchBody(const PodCondition& condition);

}  // namespace kai::api
