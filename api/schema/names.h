// Kubernetes name and label validation (k8s.io/apimachinery/pkg/util/validation) with the exact
// error texts, as used by CRD validation and embedded-resource metadata checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kai::api::schema {

// Each returns the list of problems (empty when valid), e.g.
// "a DNS-1035 label must consist of lower case alphanumeric characters or '-', ...".
std::vector<std::string> IsDns1123Label(std::string_view value);
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
std::vector<std::string> IsDns1035Label(std::string_view value);
std::vector<std::string> IsQualifiedName(std::string_view value);
std::vector<std::string> IsValidLabelValue(std::string_view value);

// apimachinery path.ValidatePathSegmentName (names may not be "." / ".." or contain '/' or '%').
std::vector<std::string> ValidatePathSegmentName(std::string_view name, bool prefix);

// Validates a string against a CRD `format` (go-openapi strfmt registry as the API server has
// it). `format` is the keyword as written ("date-time"); unknown formats always pass.
bool ValidateStringFormat(std::string_view format, std::string_view value);

}  // namespace kai::api::schema
