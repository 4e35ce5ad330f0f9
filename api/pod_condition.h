// Pod conditions as KAI's scheduler and binder write them: Kubernetes' podutil
// UpdatePodCondition rule (write only when something changes) and the strategic-merge patch body
// {"status":{"conditions":[...]}} sent to pods/status (conditions merge by type).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/pod.h"
#include "kube/base/clock.h"

namespace kai::api {

// The patch that sets `condition` on the pod (its uid in the body), or nullopt when the pod
// already has an equal condition (same status, reason, message and probe time).
// lastTransitionTime is `now` when the status changes, else the existing one.
std::optional<std::string> PodConditionPatch(const Pod& pod, PodCondition condition, WallTime now);

// The strategic-merge patch body for one condition (no comparison). A non-empty `uid` goes into
// the body's metadata: the uid is immutable, so the server refuses (422) to apply the patch to a
// pod created since under the same name, which KAI's name-only patch would reach.
std::string PodConditionPatchBody(const PodCondition& condition, std::string_view uid = {});

}  // namespace kai::api
