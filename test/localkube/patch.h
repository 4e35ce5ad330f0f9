// Internal: patch application (RFC 7386 merge patch, RFC 6902 JSON patch, Kubernetes strategic
// merge patch) and server-side apply. Include only from .cc files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/base/status.h"
#include "test/localkube/json.h"

namespace kai::localkube {

// RFC 7386. `target` is replaced by the result.
Status ApplyMergePatch(Json& target, const Json& patch, JsonAlloc& a);
// RFC 6902 (add, remove, replace, move, copy, test).
Status ApplyJsonPatch(Json& target, const Json& patch, JsonAlloc& a);
// Strategic merge patch for the built-in type `smp_type` (see smp_schema.cc).
Status ApplyStrategicMergePatch(Json& target, const Json& patch, std::string_view smp_type,
                                JsonAlloc& a);

// Schema lookup used by strategic merge and server-side apply: how a list field merges.
struct ListStrategy {
  bool merge = false;        // patchStrategy "merge"
  bool retain_keys = false;  // patchStrategy "retainKeys"
  std::string merge_key;     // patchMergeKey ("" for a primitive list)
  bool map_list = false;     // list-type=map for SSA (keys below)
  std::vector<std::string> keys;
};
// Returns the type of a field of `type` ("" when unknown / not a struct).
std::string SmpFieldType(std::string_view type, std::string_view field);
// Strategy of list field `field` in struct type `type`.
ListStrategy SmpListStrategy(std::string_view type, std::string_view field);
// The element type of list/map field `field` in `type`.
std::string SmpElemType(std::string_view type, std::string_view field);

}  // namespace kai::localkube
