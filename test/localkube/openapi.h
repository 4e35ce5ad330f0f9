// Internal: the OpenAPI documents kubectl fetches (/openapi/v2, /openapi/v3, /openapi/v3/<gv>).
#pragma once

#include <string>

#include "kube/base/statusor.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

// The document served at `path`, or NotFound.
StatusOr<std::string> OpenApiDocument(const ResourceRegistry& registry, const std::string& path);

}  // namespace kai::localkube
