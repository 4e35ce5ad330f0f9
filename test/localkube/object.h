// An immutable stored object: its JSON (with metadata.resourceVersion) plus the metadata the
// store indexes, extracted once when the object is written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "test/localkube/selector.h"

namespace kai::localkube {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

class Object {
 public:
  // Compact JSON of the object in its storage version.
  const std::string& json() const { return json_; }
  const std::string& namespace_() const { return namespace_name_; }
  const std::string& name() const { return name_; }
  const std::string& uid() const { return uid_; }
  uint64_t resource_version() const { return rv_; }
  int64_t generation() const { return generation_; }
  const Labels& labels() const { return labels_; }
  const std::vector<std::string>& finalizers() const { return finalizers_; }
  const std::vector<OwnerReference>& owner_references() const { return owners_; }
  bool deleting() const { return deleting_; }
  // Value of a selectable field ("spec.nodeName"); "" when unset.
  std::string_view Field(std::string_view path) const;
  // "namespace/name" or "name".
  std::string Key() const {
    return namespace_name_.empty() ? name_ : namespace_name_ + "/" + name_;
  }
  bool HasFinalizer(std::string_view f) const {
    for (const auto& x : finalizers_) {
      if (x == f) return true;
    }
    return false;
  }
  // Approximate heap footprint (benchmarks, memory accounting).
  size_t ByteSize() const;

 private:
  friend class ObjectBuilder;
  std::string json_;
  std::string namespace_name_;
  std::string name_;
  std::string uid_;
  uint64_t rv_ = 0;
  int64_t generation_ = 0;
  bool deleting_ = false;
  Labels labels_;
  std::vector<std::string> finalizers_;
  std::vector<OwnerReference> owners_;
  std::vector<std::pair<std::string, std::string>> fields_;  // selectable fields
};

using ObjectPtr = std::shared_ptr<const Object>;

}  // namespace kai::localkube
