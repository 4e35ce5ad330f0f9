// Internal: turns a JSON document into a stored Object. Include only from .cc files.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "test/localkube/json.h"
#include "test/localkube/object.h"

namespace kai::localkube {

// An object serialized except for its resourceVersion, which is assigned at commit time
// (under the store lock) by splicing it into the JSON.
struct PendingObject {
  std::shared_ptr<Object> object;
  size_t rv_offset = 0;  // byte offset of the (empty) resourceVersion string contents
};

class ObjectBuilder {
 public:
  // Serializes `doc` in canonical member order (apiVersion, kind, metadata in ObjectMeta order,
  // then the rest as given) with an empty metadata.resourceVersion slot, and extracts metadata.
  static PendingObject Build(const Json& doc, const std::vector<std::string>& selectable_fields);
  // Fills in the resourceVersion and returns the immutable object.
  static ObjectPtr Seal(PendingObject pending, uint64_t rv);
  // Parses an already-complete object (e.g. reloaded from disk).
  static StatusOr<ObjectPtr> FromJson(std::string_view json,
                                      const std::vector<std::string>& selectable_fields);
  // Returns a copy of `obj` whose JSON is re-serialized from `doc` keeping obj's RV.
  static ObjectPtr Rebuild(const Json& doc, const std::vector<std::string>& selectable_fields,
                           uint64_t rv);
  // A copy of `obj` whose metadata.resourceVersion is `rv` (string splice, no re-parse).
  static ObjectPtr WithRv(const ObjectPtr& obj, uint64_t rv);
  // obj's JSON with the resourceVersion value emptied (for no-op comparisons).
  static std::string JsonWithoutRv(const Object& obj);
};

}  // namespace kai::localkube
