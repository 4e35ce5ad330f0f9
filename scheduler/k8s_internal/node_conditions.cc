#include "scheduler/k8s_internal/node_conditions.h"

#include "scheduler/k8s_internal/taint_toleration.h"

namespace kai::k8s_internal {
namespace {

bool ToleratesUnschedulable(std::span<const api::Toleration> tolerations) {
  if (tolerations.empty()) return false;
  api::Taint taint;
  taint.key = std::string(kTaintNodeUnschedulable);
  taint.effect = std::string(kTaintEffectNoSchedule);
  return TolerationsTolerateTaint(tolerations, taint);
}

bool IsPressureCondition(const std::string& type) {
  return type == "MemoryPressure" || type == "DiskPressure" || type == "PIDPressure" ||
         type == "NetworkUnavailable";
}

// Calls `fail(reason_or_type, is_ready)` for every failing condition; stops when it returns
// false.
template <class F>
void VisitFailures(const api::Node& node, std::span<const api::Toleration> tolerations, F fail) {
  if (node.spec.unschedulable && !ToleratesUnschedulable(tolerations)) {
    if (!fail(nullptr)) return;
  }
  for (const api::NodeCondition& c : node.status.conditions) {
    if (c.type == "Ready") {
      if (c.status != "True" && !fail(&c)) return;
    } else if (IsPressureCondition(c.type)) {
      if (c.status != "False" && !fail(&c)) return;
    }
  }
}

}  // namespace

std::vector<std::string> CheckNodeConditions(const api::Node& node,
                                             std::span<const api::Toleration> tolerations) {
  std::vector<std::string> reasons;
  VisitFailures(node, tolerations, [&](const api::NodeCondition* c) {
    if (c == nullptr) {
      reasons.emplace_back("node is unschedulable");
    } else if (c->type == "Ready") {
      reasons.emplace_back("node has NotReady condition");
    } else {
      reasons.push_back("node has " + c->type + " condition");
    }
    return true;
  });
  return reasons;
}

bool NodeConditionsFit(const api::Node& node, std::span<const api::Toleration> tolerations) {
  bool fits = true;
  VisitFailures(node, tolerations, [&](const api::NodeCondition*) {
    fits = false;
    return false;
  });
  return fits;
}

FilterResult CheckPodCount(int64_t free_pod_slots, int64_t needed_slots) {
  if (needed_slots <= 0 || free_pod_slots >= needed_slots) return FilterResult::Success();
  return FilterResult::Fail(Code::kUnschedulable, kErrReasonPodNumberExceeded);
}

}  // namespace kai::k8s_internal
