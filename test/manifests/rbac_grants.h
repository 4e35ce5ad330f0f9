// RBAC rules of a manifest file as "group/resource:verb" strings, so tests can compare what a
// component is granted with what it is seen doing (the manifests' least-privilege checks).
#pragma once

#include <map>
#include <set>
#include <string>

#include "kube/base/statusor.h"

namespace kai::testing {

// Every Role and ClusterRole of the YAML file at `path`, keyed "Kind/name" ("ClusterRole/kai-
// scheduler"), with the grants of all its rules expanded ("scheduling.run.ai/bindrequests:get",
// "/pods/binding:create").
StatusOr<std::map<std::string, std::set<std::string>>> RoleGrants(const std::string& path);

// The API group of a resource the components use ("" for core, "scheduling.run.ai" for
// bindrequests...); the subresource is ignored ("pods/binding" -> ""). NotFound when unknown.
StatusOr<std::string> GroupOfResource(const std::string& resource);

}  // namespace kai::testing
