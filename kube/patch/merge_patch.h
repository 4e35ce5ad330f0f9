// JSON merge patch (RFC 7386, Content-Type application/merge-patch+json).
//
// Lists are replaced wholesale; a null member deletes. KAI's operator writes Config status this
// way; controller-runtime's MergeFrom computes the same patch from a before/after pair.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::kube {

// The merge patch that turns `original` into `modified` ("{}" when equal). Both must be JSON
// objects. Members equal in both are left out; removed members become null.
StatusOr<std::string> CreateMergePatch(std::string_view original, std::string_view modified);

// Applies `patch` to `document` (RFC 7386 MergePatch). A non-object patch replaces the
// document.
StatusOr<std::string> ApplyMergePatch(std::string_view document, std::string_view patch);

}  // namespace kai::kube
