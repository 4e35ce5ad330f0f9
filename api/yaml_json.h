// YAML -> JSON, with Kubernetes' (sigs.k8s.io/yaml, go-yaml v2) scalar resolution, so that a
// manifest means the same here as it does to kubectl.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/base/statusor.h"

namespace kai::api {

// Converts a (possibly multi-document) YAML stream into one compact JSON text per non-empty
// document. Errors name the document index and line.
StatusOr<std::vector<std::string>> YamlToJsonDocuments(std::string_view yaml);

// Converts a single-document YAML (or JSON, which is YAML) text into compact JSON.
StatusOr<std::string> YamlToJson(std::string_view yaml);

}  // namespace kai::api
