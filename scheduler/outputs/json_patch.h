// JSON documents for writes: RFC 6902 patch creation (the diff KAI's status updater computes
// with gomodules.xyz/jsonpatch) and small builders for strategic-merge / merge patches.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::scheduler {

// The RFC 6902 operations that turn `from` into `to` (both JSON texts), as a JSON array text
// ("[]" when they are equal). Objects are compared member by member; arrays and scalars that
// differ are replaced whole (never index by index: the live array may have another length than
// the cached one). Removed members come first in `from` order, then changed members, then added
// members in `to` order, so the output is deterministic.
StatusOr<std::string> CreateJsonPatch(std::string_view from, std::string_view to);

// RFC 6901: "~" -> "~0", "/" -> "~1".
std::string EscapeJsonPointer(std::string_view token);

}  // namespace kai::scheduler
