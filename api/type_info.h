// TypeInfo: where a top-level kind lives in the Kubernetes API (used to build REST paths and to
// fill apiVersion/kind when encoding).
#pragma once

#include <string>
#include <string_view>

namespace kai::api {

struct TypeInfo {
  std::string_view group;    // "" for the core group
  std::string_view version;  // "v1", "v2alpha2", ...
  std::string_view kind;     // "Pod"
  std::string_view plural;   // "pods"
  bool namespaced;

  // "v1" for core, "<group>/<version>" otherwise.
  std::string ApiVersion() const {
    return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  }
};

}  // namespace kai::api
