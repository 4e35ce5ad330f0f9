// Internal: per-type behaviour behind a ResourceInfo (defaulting, validation, conversion,
// structural schema). Include only from .cc files.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/status.h"
#include "test/localkube/json.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

enum class NameRule {
  kDnsSubdomain,  // most kinds
  kDnsLabel,      // namespaces
  kDns1035Label,  // services
  kPathSegment,   // RBAC kinds
};

struct TypeHooks {
  NameRule name_rule = NameRule::kDnsSubdomain;
  // Resets what clients may not set on create (e.g. pod status); runs before defaulting.
  std::function<void(Json& obj, JsonAlloc& a)> prepare_create;
  // Server-side defaults; runs on create and update.
  std::function<void(Json& obj, JsonAlloc& a)> defaults;
  // Type validation beyond ObjectMeta; `old` is null on create. `subresource` is "" for the
  // main resource, "status", or "binding".
  std::function<void(const Json& obj, const Json* old, std::string_view subresource,
                     std::vector<StatusCause>* errs)>
      validate;
  // Converts `obj` in place from apiVersion `from` to apiVersion `to` (multi-version kinds).
  std::function<Status(Json& obj, JsonAlloc& a, std::string_view from, std::string_view to)>
      convert;
  // CRDs: prune, default and validate against the structural schema (per served version).
  // Unknown fields are reported through `unknown` (dotted paths) before pruning.
  std::function<void(Json& obj, JsonAlloc& a, std::vector<std::string>* unknown,
                     std::vector<StatusCause>* errs)>
      schema;
  // CRDs: the version's openAPIV3Schema (list types for server-side apply).
  std::shared_ptr<const JsonDoc> openapi_schema;
  // Strategic-merge-patch type (see smp.h); empty: SMP unsupported (415), as for CRDs.
  std::string smp_type;
  // Keeps status on create (nodes, namespaces); other kinds with a status subresource reset it.
  bool keep_status_on_create = false;
  // Built-in kinds: the metadata fields a status write takes from the stored object; the rest of
  // the request's metadata is kept, as the kinds' status strategies do (pods: ownerReferences;
  // deployments: labels). Custom resources' status writes keep all of the stored metadata.
  std::vector<std::string> status_keeps_stored_metadata;
};

// "pods", "deployments.apps": how error messages name a resource.
inline std::string ResourceWhat(const ResourceInfo& r) {
  return r.group.empty() ? r.resource : r.resource + "." + r.group;
}
// "Pod", "Deployment.apps": how Invalid errors name a kind.
inline std::string QualifiedKind(const ResourceInfo& r) {
  return r.group.empty() ? r.kind : r.kind + "." + r.group;
}

// Registers the built-in resources (builtins.cc).
void RegisterBuiltins(ResourceRegistry* registry);

// Generic ObjectMeta validation (names, labels, annotations, finalizers, owner references).
void ValidateObjectMeta(const ResourceInfo& r, const Json& obj, const Json* old,
                        std::vector<StatusCause>* errs);
// The problems apimachinery's name function for `rule` reports (empty when valid).
std::vector<std::string> ValidateName(NameRule rule, std::string_view name);

}  // namespace kai::localkube
