// PodGroup (scheduling.run.ai/v2alpha2): the gang definition. See kai-reference §2.2 and §11.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/meta.h"
#include "api/quantity.h"
#include "api/type_info.h"

namespace kai::api {

inline constexpr std::string_view kPreemptible = "preemptible";
inline constexpr std::string_view kNonPreemptible = "non-preemptible";

struct TopologyConstraint {
  std::string topology;
  std::string required_topology_level;
  std::string preferred_topology_level;
  bool operator==(const TopologyConstraint&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("topology", s.topology);
    v("requiredTopologyLevel", s.required_topology_level);
    v("preferredTopologyLevel", s.preferred_topology_level);
  }
};

struct SubGroup {
  std::string name;
  std::optional<int32_t> min_member;
  std::optional<std::string> parent;
  std::optional<TopologyConstraint> topology_constraint;
  bool operator==(const SubGroup&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("minMember", s.min_member);
    v("parent", s.parent);
    v("topologyConstraint", s.topology_constraint);
  }
};

struct PodGroupSpec {
  std::optional<int32_t> min_member;
  std::string queue;
  std::string priority_class_name;
  std::string preemptibility;  // "", preemptible, non-preemptible
  std::optional<int32_t> parallelism;
  std::optional<int32_t> completions;
  std::optional<int32_t> backoff_limit;
  std::optional<bool> mark_unschedulable;     // nil -> true
  std::optional<int32_t> scheduling_backoff;  // nil -> -1
  std::optional<TopologyConstraint> topology_constraint;
  std::vector<SubGroup> sub_groups;
  bool operator==(const PodGroupSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("minMember", s.min_member);
    v("queue", s.queue);
    v("priorityClassName", s.priority_class_name);
    v("preemptibility", s.preemptibility);
    v("parallelism", s.parallelism);
    v("completions", s.completions);
    v("backoffLimit", s.backoff_limit);
    v("markUnschedulable", s.mark_unschedulable);
    v("schedulingBackoff", s.scheduling_backoff);
    v("topologyConstraint", s.topology_constraint);
    v("subGroups", s.sub_groups);
  }
};

struct PodGroupCondition {
  std::string type;
  std::string status;
  std::string transition_id;
  std::optional<WallTime> last_transition_time;
  std::string reason;
  std::string message;
  bool operator==(const PodGroupCondition&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("status", s.status);
    v("transitionID", s.transition_id);
    v("lastTransitionTime", s.last_transition_time);
    v("reason", s.reason);
    v("message", s.message);
  }
};

struct QuotaDetails {
  std::string name;
  ResourceList queue_requested_resources;
  ResourceList queue_deserved_resources;
  ResourceList queue_allocated_resources;
  ResourceList queue_allocated_non_preemptible_resources;
  ResourceList queue_resource_limits;
  ResourceList pod_group_requested_resources;
  ResourceList pod_group_requested_non_preemptible_resources;
  bool operator==(const QuotaDetails&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("queueRequestedResources", s.queue_requested_resources);
    v("queueDeservedResources", s.queue_deserved_resources);
    v("queueAllocatedResources", s.queue_allocated_resources);
    v("queueAllocatedNonPreemptibleResources", s.queue_allocated_non_preemptible_resources);
    v("queueResourceLimits", s.queue_resource_limits);
    v("podGroupRequestedResources", s.pod_group_requested_resources);
    v("podGroupRequestedNonPreemptibleResources", s.pod_group_requested_non_preemptible_resources);
  }
};

struct UnschedulableExplanationDetails {
  std::optional<QuotaDetails> queue_details;
  bool operator==(const UnschedulableExplanationDetails&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("queueDetails", s.queue_details);
  }
};

// reason: NonPreemptibleOverQuota, OverLimit, QueueDoesNotExist, PodSchedulingErrors, OverCapacity.
struct UnschedulableExplanation {
  std::string reason;
  std::string message;
  std::optional<UnschedulableExplanationDetails> details;
  bool operator==(const UnschedulableExplanation&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("reason", s.reason);
    v("message", s.message);
    v("details", s.details);
  }
};

struct SchedulingCondition {
  std::string type;  // UnschedulableOnNodePool
  std::string node_pool;
  std::string reason;   // Unschedulable
  std::string message;  // deprecated joined text
  std::vector<UnschedulableExplanation> reasons;
  std::optional<WallTime> last_transition_time;
  std::string status;
  std::string transition_id;
  bool operator==(const SchedulingCondition&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("nodePool", s.node_pool);
    v("reason", s.reason);
    v("message", s.message);
    v("reasons", s.reasons);
    v("lastTransitionTime", s.last_transition_time);
    v("status", s.status);
    v("transitionID", s.transition_id);
  }
};

struct PodGroupResourcesStatus {
  ResourceList allocated;
  ResourceList allocated_non_preemptible;
  ResourceList requested;
  bool operator==(const PodGroupResourcesStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("allocated", s.allocated);
    v("allocatedNonPreemptible", s.allocated_non_preemptible);
    v("requested", s.requested);
  }
};

struct PodGroupStatus {
  std::string phase;
  std::vector<PodGroupCondition> conditions;
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  int32_t pending = 0;
  std::vector<SchedulingCondition> scheduling_conditions;
  PodGroupResourcesStatus resources_status;
  bool operator==(const PodGroupStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("phase", s.phase);
    v("conditions", s.conditions);
    v("running", s.running);
    v("succeeded", s.succeeded);
    v("failed", s.failed);
    v("pending", s.pending);
    v("schedulingConditions", s.scheduling_conditions);
    v("resourcesStatus", s.resources_status);
  }
};

struct PodGroup {
  static constexpr TypeInfo kTypeInfo{"scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups",
                                      true};
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
  RawDocument raw;
  bool operator==(const PodGroup&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
    v("status", s.status);
  }
};
KAI_API_DECLARE_CODEC(PodGroup);

}  // namespace kai::api
