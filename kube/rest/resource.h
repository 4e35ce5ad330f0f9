// GroupVersionResource: what a REST request addresses (client-go schema.GroupVersionResource),
// and the REST path built from it.
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "api/type_info.h"

namespace kai::kube {

struct GroupVersionResource {
  std::string group;     // "" for the core group
  std::string version;   // "v1", "v2alpha2"
  std::string resource;  // plural, lower case: "pods", "podgroups"

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>.
  auto operator<=>(const GroupVersionResource&) const = default;

  // "v1" for core, "<group>/<version>" otherwise.
  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods.v1." / "podgroups.v2alpha2.scheduling.run.ai" (apimachinery's String()).
  std::string ToString() const { return resource + "." + version + "." + group; }
  // "pods" / "podgroups.scheduling.run.ai": how the API server names a resource in messages.
  std::string GroupResource() const { return group.empty() ? resource : resource + "." + group; }
};

// The GVR of a typed api/ kind: GvrOf<api::Pod>() == {"", "v1", "pods"}.
inline GroupVersionResource GvrOf(const api::TypeInfo& t) {
  return {std::string(t.group), std::string(t.version), std::string(t.plural)};
}
template <class T>
GroupVersionResource GvrOf() {
  return GvrOf(T::kTypeInfo);
}

// "/api/v1/namespaces/ns/pods/name/status" (core) or "/apis/g/v/..." (groups). Empty `ns`
// addresses cluster-scoped objects, or every namespace for collections; empty `name` the
// collection; empty `subresource` the object itself. Segments are percent-escaped.
std::string ResourcePath(const GroupVersionResource& gvr, std::string_view ns,
                         std::string_view name = {}, std::string_view subresource = {});

}  // namespace kai::kube
