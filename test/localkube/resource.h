// The resources localkube serves: built-in kinds and those added by CustomResourceDefinitions.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kai::localkube {

struct GroupResource {
  std::string group;
  std::string resource;
  // clang-tidy 14 mistakes the defaulted comparison's synthesized 0 for a null pointer.
  auto operator<=>(const GroupResource&) const = default;  // NOLINT(modernize-use-nullptr)
  // "pods", "deployments.apps".
  std::string ToString() const { return group.empty() ? resource : resource + "." + group; }
};

struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;
  // clang-tidy 14 mistakes the defaulted comparison's synthesized 0 for a null pointer.
  auto operator<=>(const GroupVersionResource&) const = default;  // NOLINT(modernize-use-nullptr)
  GroupResource gr() const { return {group, resource}; }
  std::string ToString() const {
    return (group.empty() ? "" : group + "/") + version + "/" + resource;
  }
};

// Resources several parts of localkube (storage, garbage collector, CRD handling) refer to.
inline const GroupResource kNamespaces{"", "namespaces"};
inline const GroupResource kCrds{"apiextensions.k8s.io", "customresourcedefinitions"};
inline const GroupVersionResource kCrdGvr{"apiextensions.k8s.io", "v1",
                                          "customresourcedefinitions"};

struct PrinterColumn {
  std::string name;
  std::string type;  // integer, number, string, boolean, date
  std::string format;
  std::string description;
  std::string json_path;  // ".spec.replicas"
  int priority = 0;
};

struct TypeHooks;  // internal (types.h): defaulting, validation, conversion, schema

struct ResourceInfo {
  std::string group;
  std::string version;
  std::string resource;  // plural
  std::string kind;
  std::string singular;
  std::string list_kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> verbs;
  // Subresources: "status", "scale", "binding", "eviction", "finalize", "approval"...
  std::vector<std::string> subresources;
  // metadata.generation is maintained (bumped on changes outside metadata and status).
  bool track_generation = false;
  // Scale subresource JSON paths (dotted, without the leading '.').
  std::string scale_spec_replicas_path = "spec.replicas";
  std::string scale_status_replicas_path = "status.replicas";
  std::string scale_label_selector_path;
  // Field-selector keys beyond metadata.name / metadata.namespace, as dotted paths.
  std::vector<std::string> selectable_fields;
  // CRD additionalPrinterColumns (built-ins have hard-coded tables).
  std::vector<PrinterColumn> printer_columns;
  // Where objects live: the storage group-resource and version (another version of the same
  // group-resource, or an alias such as events.k8s.io/v1 events stored as core/v1 events).
  GroupResource storage;
  std::string storage_version;
  // Served from a CRD (name "<plural>.<group>"); empty for built-ins.
  std::string crd_name;
  // Default propagation policy for DELETE when the client sets none.
  std::string default_propagation = "Background";
  std::shared_ptr<const TypeHooks> hooks;

  bool HasSubresource(std::string_view s) const {
    for (const auto& x : subresources) {
      if (x == s) return true;
    }
    return false;
  }
  bool has_status() const { return HasSubresource("status"); }
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  GroupVersionResource gvr() const { return {group, version, resource}; }
  GroupResource gr() const { return {group, resource}; }
};

using ResourcePtr = std::shared_ptr<const ResourceInfo>;

// Thread-safe set of served resources. Discovery documents are derived from it.
class ResourceRegistry {
 public:
  // Adds or replaces (same group/version/resource).
  void Add(ResourcePtr r);
  // Removes every version served for the CRD `crd_name`.
  void RemoveCrd(const std::string& crd_name);

  ResourcePtr Find(std::string_view group, std::string_view version,
                   std::string_view resource) const;
  ResourcePtr Find(const GroupVersionResource& gvr) const {
    return Find(gvr.group, gvr.version, gvr.resource);
  }
  ResourcePtr FindByKind(std::string_view group, std::string_view version,
                         std::string_view kind) const;
  // The resource in its storage version (used by GC to resolve owner references).
  ResourcePtr FindStorage(const GroupResource& gr) const;
  // Every resource, groups in registration order (core first), then versions, then plural.
  std::vector<ResourcePtr> All() const;
  // Group names in discovery order, each with its versions (preferred first).
  std::vector<std::pair<std::string, std::vector<std::string>>> Groups() const;
  // Changes whenever a resource is added or removed.
  uint64_t generation() const;

 private:
  mutable std::shared_mutex mu_;
  std::vector<std::string> group_order_;
  std::map<GroupVersionResource, ResourcePtr> by_gvr_;
  std::map<std::string, std::vector<std::string>> group_versions_;  // preferred first
  uint64_t generation_ = 0;
};

}  // namespace kai::localkube
