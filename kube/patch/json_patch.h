// JSON patch (RFC 6902, Content-Type application/json-patch+json).
//
// KAI's scheduler patches PodGroup status with a JSON-patch diff of the old and new objects
// (gomodules.xyz/jsonpatch CreatePatch); CreateJsonPatch computes that diff.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::kube {

// Operations that turn `original` into `modified` ("[]" when equal): objects are diffed member
// by member (remove / add / recurse), arrays index by index with additions and removals at the
// tail, anything else that differs is a "replace". Applying the result to `original` yields
// `modified` exactly.
StatusOr<std::string> CreateJsonPatch(std::string_view original, std::string_view modified);

// Applies add / remove / replace / move / copy / test (RFC 6902). Errors name the operation
// index and path ("op 2 (replace /status/phase): path not found").
StatusOr<std::string> ApplyJsonPatch(std::string_view document, std::string_view patch);

// "/a~1b/c~0d" from {"a/b", "c~d"} (RFC 6901 escaping).
std::string JsonPointerEscape(std::string_view segment);

}  // namespace kai::kube
