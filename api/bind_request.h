// BindRequest (scheduling.run.ai/v1alpha2): the scheduler's decision that the binder executes.
// See kai-reference §2.3 and §14.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"

namespace kai::api {

inline constexpr std::string_view kBindRequestPhasePending = "Pending";
inline constexpr std::string_view kBindRequestPhaseSucceeded = "Succeeded";
inline constexpr std::string_view kBindRequestPhaseFailed = "Failed";

inline constexpr std::string_view kReceivedResourceTypeRegular = "Regular";
inline constexpr std::string_view kReceivedResourceTypeFraction = "Fraction";
inline constexpr std::string_view kReceivedResourceTypeMigInstance = "MigInstance";

struct ReceivedGpu {
  int count = 0;
  std::string portion;  // "%.2f" per device, e.g. "0.50"
  bool operator==(const ReceivedGpu&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("count", s.count);
    v("portion", s.portion);
  }
};

struct ResourceClaimAllocation {
  std::string name;
  RawJson allocation;  // resource.k8s.io/v1 AllocationResult
  bool operator==(const ResourceClaimAllocation&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("allocation", s.allocation);
  }
};

struct BindRequestSpec {
  std::string pod_name;
  std::string selected_node;
  std::string received_resource_type;
  std::optional<ReceivedGpu> received_gpu;
  std::vector<std::string> selected_gpu_groups;
  std::vector<ResourceClaimAllocation> resource_claim_allocations;
  std::optional<int32_t> backoff_limit;
  bool operator==(const BindRequestSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("podName", s.pod_name);
    v("selectedNode", s.selected_node);
    v("receivedResourceType", s.received_resource_type);
    v("receivedGPU", s.received_gpu);
    v("selectedGPUGroups", s.selected_gpu_groups);
    v("resourceClaimAllocations", s.resource_claim_allocations);
    v("backoffLimit", s.backoff_limit);
  }
};

struct BindRequestStatus {
  std::string phase;
  std::string reason;
  int32_t failed_attempts = 0;
  bool operator==(const BindRequestStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("phase", s.phase);
    v("reason", s.reason);
    v("failedAttempts", s.failed_attempts);
  }
};

struct BindRequest {
  static constexpr TypeInfo kTypeInfo{"scheduling.run.ai", "v1alpha2", "BindRequest",
                                      "bindrequests", true};
  ObjectMeta metadata;
  BindRequestSpec spec;
  BindRequestStatus status;
  RawDocument raw;
  bool operator==(const BindRequest&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
    v("status", s.status);
  }

  // Failed for good: phase Failed and no retries left (kai-reference §2.3).
  bool IsFailed() const {
    return status.phase == kBindRequestPhaseFailed &&
           (!spec.backoff_limit || status.failed_attempts >= *spec.backoff_limit);
  }
  // Made for an earlier pod of the same name: its Pod owner reference names another uid (the
  // pod was deleted and created again before the garbage collector removed this BindRequest).
  // Its node and GPUs were chosen for that pod, not for the one that now has the name.
  bool IsForAnotherPod(std::string_view pod_uid) const {
    if (pod_uid.empty()) return false;
    for (const OwnerReference& o : metadata.owner_references) {
      if (o.kind == "Pod" && !o.uid.empty() && o.uid != pod_uid) return true;
    }
    return false;
  }
};
KAI_API_DECLARE_CODEC(BindRequest);

}  // namespace kai::api
