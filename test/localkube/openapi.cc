#include "test/localkube/openapi.h"

#include "test/localkube/errors.h"

namespace kai::localkube {

StatusOr<std::string> OpenApiDocument(const ResourceRegistry& registry, const std::string& path) {
  (void)registry;
  Status s(StatusCode::kNotFound, "the server could not find the requested resource");
  s.SetReason("NotFound").SetHttpCode(404);
  (void)path;
  return s;
}

}  // namespace kai::localkube
