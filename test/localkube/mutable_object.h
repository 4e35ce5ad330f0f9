// Internal: an object being edited by an in-process controller (Store::Mutate) or by the write
// pipeline. Include only from .cc files (it exposes RapidJSON).
#pragma once

#include <string>

#include "test/localkube/json.h"

namespace kai::localkube {

class MutableObject {
 public:
  MutableObject() { doc_.SetObject(); }
  explicit MutableObject(JsonDoc doc) : doc_(std::move(doc)) {}

  JsonDoc& doc() { return doc_; }
  const JsonDoc& doc() const { return doc_; }
  JsonAlloc& alloc() { return doc_.GetAllocator(); }
  Json& metadata() { return EnsureObject(doc_, "metadata", alloc()); }
  std::string name() const { return GetStr(doc_, {"metadata", "name"}); }
  std::string namespace_() const { return GetStr(doc_, {"metadata", "namespace"}); }

 private:
  JsonDoc doc_;
};

}  // namespace kai::localkube
