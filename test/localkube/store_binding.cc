// The store's pods/binding: the registry's checks and the pod's node, condition and annotations.
#include <algorithm>

#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/mutable_object.h"
#include "test/localkube/store.h"
#include "test/localkube/store_internal.h"

namespace kai::localkube {

// ---------------------------------------------------------------------------------------------
// Binding.

StatusOr<ObjectPtr> Store::Bind(std::string_view ns, std::string_view pod,
                                const PodBinding& binding, const WriteOptions& opts) {
  const GroupVersionResource gvr{"", "v1", "pods"};
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  // ValidatePodBinding's errors reach the client as an aggregate, not a Status, so the real
  // server answers 500 with reason "" (ErrorToAPIStatus's default).
  std::vector<std::string> invalid;
  if (!binding.target_kind.empty() && binding.target_kind != "Node") {
    invalid.push_back("target.kind: Unsupported value: \"" + binding.target_kind +
                      "\": supported values: \"Node\", \"<empty>\"");
  }
  if (binding.node.empty()) invalid.push_back("target.name: Required value");
  if (invalid.size() == 1) return kube::NewApiError(500, "", invalid[0]);
  if (invalid.size() > 1) return kube::NewApiError(500, "", "[" + StrJoin(invalid, ", ") + "]");
  const std::string_view node = binding.node;
  auto fn = [&](const ObjectPtr& old, MutableObject& obj) -> Status {
    if (old == nullptr) return kube::NewNotFound("pods", pod);
    KAI_RETURN_IF_ERROR(
        CheckPreconditions("pods", pod, binding.uid, binding.resource_version, *old));
    if (old->deleting()) {
      return kube::NewConflict(
          "pods/binding", pod,
          "pod " + std::string(pod) + " is being deleted, cannot be assigned to a host");
    }
    JsonAlloc& a = obj.alloc();
    Json& spec = EnsureObject(obj.doc(), "spec", a);
    const std::string cur = GetStr(spec, {"nodeName"});
    if (!cur.empty()) {
      return kube::NewConflict(
          "pods/binding", pod,
          "pod " + std::string(pod) + " is already assigned to node \"" + cur + "\"");
    }
    if (const Json* gates = Member(spec, "schedulingGates");
        gates != nullptr && gates->IsArray() && !gates->Empty()) {
      return kube::NewConflict("pods/binding", pod,
                               "pod " + std::string(pod) + " has non-empty .spec.schedulingGates");
    }
    SetString(spec, "nodeName", node, a);
    if (!binding.annotations.empty()) {
      Json& md = EnsureObject(obj.doc(), "metadata", a);
      Json& ann = EnsureObject(md, "annotations", a);
      for (const auto& [k, v] : binding.annotations) SetString(ann, k, v, a);
    }
    // The real binding registry also records the PodScheduled condition.
    Json& found = FindOrAddCondition(EnsureObject(obj.doc(), "status", a), "PodScheduled", a);
    SetString(found, "status", "True", a);
    SetMember(found, "lastProbeTime", Json(), a);
    SetString(found, "lastTransitionTime", FormatRfc3339(clock_->Now()), a);
    RemoveMember(found, "reason");
    RemoveMember(found, "message");
    return Status::OK();
  };
  // Binding writes status too; go through the main resource but keep status edits.
  WriteOptions wo = opts;
  wo.subresource = "binding";
  ResourcePtr binding_view = std::make_shared<ResourceInfo>([&] {
    ResourceInfo copy = *r;
    copy.subresources.erase(
        std::remove(copy.subresources.begin(), copy.subresources.end(), "status"),
        copy.subresources.end());
    return copy;
  }());
  // The copy above serves only to let status changes through; storage is the same table.
  return UpdateImpl(binding_view, ns, pod, fn, wo, true, false, false);
}

}  // namespace kai::localkube
