// Names of new shared-GPU groups (reference §12.3: KAI draws a random UUID per new group).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace kai::scheduler {

// An RFC 4122 version-4-shaped UUID derived from `seed`, the pod, the node and the group's
// position among the pod's groups, and for which `taken` is false (further candidates are
// derived in turn). Derived instead of drawn from the session's random stream so that a placement
// rolled back leaves no trace: the name a committed placement gets depends only on what was
// committed (the seed, and the groups its node holds), not on how many simulations ran before
// it. That lets the victim solver skip simulations whose outcome is known
// (docs/scheduler-behaviour.md, "GPU sharing").
std::string DeriveGpuGroupName(uint64_t seed, std::string_view pod_uid, std::string_view node,
                               size_t position,
                               const std::function<bool(const std::string&)>& taken);

}  // namespace kai::scheduler
