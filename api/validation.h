// Kubernetes name and label validation (k8s.io/apimachinery/pkg/util/validation) with the API
// server's exact messages. The one implementation: label selectors, CRD validation, localkube
// and the scheduler's affinity terms all call these.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kai::api {

// Each returns the problems (empty when valid), in apimachinery's order and wording, e.g.
// "a DNS-1035 label must consist of lower case alphanumeric characters or '-', ...". Callers
// join them with "; " (StrJoin) as the API server does.
std::vector<std::string> IsDns1123Label(std::string_view value);
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
std::vector<std::string> IsDns1035Label(std::string_view value);
// A label or annotation key: an optional DNS subdomain prefix and '/', then a name part.
std::vector<std::string> IsQualifiedName(std::string_view value);
std::vector<std::string> IsValidLabelValue(std::string_view value);

}  // namespace kai::api
