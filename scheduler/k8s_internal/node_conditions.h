// Node readiness predicates KAI applies before the kube-scheduler plugins (kai-reference §8.1
// items 4 and 5): spec.unschedulable, NotReady / pressure / network-unavailable conditions, and
// the pod-slot check. Messages are KAI's (scheduler_util.CheckNodeConditionPredicate).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "api/affinity.h"
#include "api/node.h"
#include "scheduler/k8s_internal/status.h"

namespace kai::k8s_internal {

// scheduler_util.CheckNodeConditionPredicate. A cordoned node (spec.unschedulable) is rejected
// unless the tolerations tolerate node.kubernetes.io/unschedulable:NoSchedule (as upstream's
// NodeUnschedulable plugin); pass no tolerations for pod-independent checks. Conditions:
// Ready must be True; MemoryPressure, DiskPressure, PIDPressure and NetworkUnavailable must be
// False (a missing condition passes). Returns the reasons in KAI's order: "node is
// unschedulable", then one per failing condition in the node's order ("node has NotReady
// condition", "node has <Type> condition"). Empty means the node fits.
std::vector<std::string> CheckNodeConditions(const api::Node& node,
                                             std::span<const api::Toleration> tolerations = {});

// Allocation-free variant for the per-node hot path: true when CheckNodeConditions would return
// no reason.
bool NodeConditionsFit(const api::Node& node, std::span<const api::Toleration> tolerations = {});

// KAI's pod-count predicate (predicates plugin checkMaxPodsWithGpuGroupReservation): the node
// must have `needed_slots` free pod slots (idle + releasing "pods" resource). Callers pass 1
// for a regular pod, 2 for a shared-GPU pod that opens a new GPU group (it plus the
// reservation pod), 0 for a shared-GPU pod joining an existing group. Rejections are
// Unschedulable with "node(s) pod number exceeded".
FilterResult CheckPodCount(int64_t free_pod_slots, int64_t needed_slots);

}  // namespace kai::k8s_internal
