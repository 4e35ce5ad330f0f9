// Internal: strict field checking for built-in kinds, from the protobuf schemas (the Go structs'
// fields): the real server drops fields its types do not have and reports them per
// fieldValidation. Include only from .cc files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "test/localkube/json.h"

namespace kai::localkube {

// Removes fields of `obj` (apiVersion/kind given) that the built-in type does not have and
// appends their paths ("spec.foo", "spec.containers[0].bar") to `unknown`. No-op for kinds
// without a schema.
void PruneBuiltinUnknownFields(std::string_view api_version, std::string_view kind, Json& obj,
                               std::vector<std::string>* unknown);

}  // namespace kai::localkube
