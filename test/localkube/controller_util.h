// Internal: helpers shared by the workload controllers (pods from templates, template hashes,
// owner references, conditions, a per-pod summary memo). Include only from .cc files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kube/base/clock.h"
#include "test/localkube/controller_context.h"
#include "test/localkube/json.h"
#include "test/localkube/object.h"
#include "test/localkube/object_cache.h"
#include "test/localkube/store.h"

namespace kai::localkube {

// Writes as kube-controller-manager's `<name>` controller does.
WriteOptions ControllerWrite(std::string_view controller, std::string_view subresource = "");

// pod-template-hash: FNV-32a of the template (canonical JSON, without the hash label) and the
// collision count, encoded with Kubernetes' SafeEncodeString alphabet ("5d4f8b7c9").
std::string TemplateHash(const Json& pod_template, int64_t collision_count);

// The ownerReference of a controller (controller and blockOwnerDeletion true).
Json ControllerRef(std::string_view api_version, std::string_view kind, const Object& owner,
                   JsonAlloc& a);

// A pod from `pod_template` (labels, annotations, finalizers, spec), generateName
// `generate_name`, owned by `owner_ref` (GetPodFromTemplate).
JsonDoc PodFromTemplate(const Json& pod_template, std::string_view generate_name,
                        const Json& owner_ref);

// Sets status condition `type`: lastTransitionTime changes only with the status;
// `update_field` ("lastUpdateTime", "lastProbeTime" or "") is set to now on every change.
// Returns true if anything changed.
bool SetStatusCondition(Json& status, std::string_view type, std::string_view value,
                        std::string_view reason, std::string_view message, const std::string& now,
                        JsonAlloc& a, std::string_view update_field);
// The condition `type` of an object's status, or null.
const Json* FindCondition(const Json& obj, std::string_view type);

// What the controllers need from a pod, parsed once per resourceVersion.
struct PodSummary {
  uint64_t rv = 0;
  std::string phase;
  bool deleting = false;
  bool assigned = false;
  bool ready = false;
  WallTime ready_since;  // Ready condition's lastTransitionTime
  WallTime created;
  int64_t restarts = 0;
  int64_t deletion_cost = 0;     // controller.kubernetes.io/pod-deletion-cost
  std::string completion_index;  // batch.kubernetes.io/job-completion-index
  bool Terminal() const { return phase == "Succeeded" || phase == "Failed"; }
  bool Active() const { return !Terminal() && !deleting; }
};

// Worker-thread memo of PodSummary by pod key.
class PodSummaries {
 public:
  const PodSummary& Get(const ObjectPtr& pod);
  // Drops entries of pods no longer cached, when the memo has grown well past the cache
  // (amortized O(1) per call).
  void MaybePrune(const ObjectCache& pods);
  size_t size() const { return memo_.size(); }

 private:
  std::unordered_map<std::string, PodSummary> memo_;
};

// Scale-down preference (controller.ActivePods ordering): true when `a` should be deleted
// before `b`: unassigned, then Pending < Unknown < Running, not ready, lower deletion cost,
// ready for less time, more restarts, newer; ties by name.
bool DeleteFirst(const ObjectPtr& a, const PodSummary& sa, const ObjectPtr& b,
                 const PodSummary& sb);

// "namespace/name" of the object's controller owner when it is of `kind`, else "".
std::string ControllerKey(const Object& obj, std::string_view kind);
// Sets an integer status field, removing it when zero and `omit_zero` (Go omitempty).
void SetCount(Json& status, std::string_view field, int64_t value, JsonAlloc& a, bool omit_zero);

// Integer or percent ("25%") of `total`, rounded up or down
// (intstr.GetScaledValueFromIntOrPercent).
int64_t ScaledValue(const Json* v, int64_t total, bool round_up, int64_t fallback);

}  // namespace kai::localkube
