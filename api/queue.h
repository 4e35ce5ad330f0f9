// Queue (scheduling.run.ai/v2, cluster-scoped). Units: GPU devices, CPU millicores, memory in
// megabytes (10^6 bytes); -1 = unlimited. See kai-reference §2.1.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/meta.h"
#include "api/quantity.h"
#include "api/type_info.h"

namespace kai::api {

inline constexpr int kDefaultQueuePriority = 100;

struct QueueResource {
  double quota = 0;
  double over_quota_weight = 0;
  double limit = 0;
  bool operator==(const QueueResource&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("quota", s.quota);
    v("overQuotaWeight", s.over_quota_weight);
    v("limit", s.limit);
  }
};

struct QueueResources {
  QueueResource gpu;
  QueueResource cpu;
  QueueResource memory;
  bool operator==(const QueueResources&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("gpu", s.gpu);
    v("cpu", s.cpu);
    v("memory", s.memory);
  }
};

struct QueueSpec {
  std::string display_name;
  std::string parent_queue;
  std::optional<QueueResources> resources;
  std::optional<int> priority;  // nil -> kDefaultQueuePriority (applied by the scheduler)
  std::optional<Duration> preempt_min_runtime;
  std::optional<Duration> reclaim_min_runtime;
  bool operator==(const QueueSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("displayName", s.display_name);
    v("parentQueue", s.parent_queue);
    v("resources", s.resources);
    v("priority", s.priority);
    v("preemptMinRuntime", s.preempt_min_runtime);
    v("reclaimMinRuntime", s.reclaim_min_runtime);
  }
};

struct QueueCondition {
  std::string type;
  std::string status;
  std::optional<WallTime> last_transition_time;
  std::string reason;
  std::string message;
  bool operator==(const QueueCondition&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("status", s.status);
    v("lastTransitionTime", s.last_transition_time);
    v("reason", s.reason);
    v("message", s.message);
  }
};

struct QueueStatus {
  std::vector<QueueCondition> conditions;
  std::vector<std::string> child_queues;
  ResourceList allocated;
  ResourceList allocated_non_preemptible;
  ResourceList requested;
  bool operator==(const QueueStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("conditions", s.conditions);
    v("childQueues", s.child_queues);
    v("allocated", s.allocated);
    v("allocatedNonPreemptible", s.allocated_non_preemptible);
    v("requested", s.requested);
  }
};

struct Queue {
  static constexpr TypeInfo kTypeInfo{"scheduling.run.ai", "v2", "Queue", "queues", false};
  ObjectMeta metadata;
  QueueSpec spec;
  QueueStatus status;
  RawDocument raw;
  bool operator==(const Queue&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
    v("status", s.status);
  }
};
KAI_API_DECLARE_CODEC(Queue);

}  // namespace kai::api
