// Path-segment names and CRD string formats as the API server checks them. Name and label
// validation (IsQualifiedName, IsDns1123Label, ...) is api/validation.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kai::api::schema {

// apimachinery path.ValidatePathSegmentName (names may not be "." / ".." or contain '/' or '%').
std::vector<std::string> ValidatePathSegmentName(std::string_view name, bool prefix);

// Validates a string against a CRD `format` (go-openapi strfmt registry as the API server has
// it). `format` is the keyword as written ("date-time"); unknown formats always pass.
bool ValidateStringFormat(std::string_view format, std::string_view value);

}  // namespace kai::api::schema
