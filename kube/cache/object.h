// Object: one cached Kubernetes object, immutable and shared (std::shared_ptr<const Object>)
// between the store, the indexes and every handler notification.
//
// How objects are held (the 100,000-pod cache must fit in well under 2 GiB):
//   * the identity every cache needs (key, resourceVersion, uid) as small strings;
//   * optionally the object's JSON text exactly as the server sent it, shared immutably (no
//     re-serialisation; with a typed decoder it is the same buffer as the typed object's
//     RawDocument, so it is held once);
//   * optionally a typed view (api::Pod, api::PodGroup ...) built once by the informer's
//     Decoder, so handlers never parse JSON.
// A typed informer that drops the JSON (TypedDecoder<T>(/*keep_json=*/false)) holds only the
// typed view: the leanest form, for large caches that never update whole objects (updates go
// through patches). docs/kube.md lists the measured bytes per pod of each form.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

#include "kube/base/statusor.h"

namespace kai::kube {

class Object {
 public:
  Object(std::string_view ns, std::string_view name, std::string resource_version, std::string uid,
         std::shared_ptr<const std::string> json, std::shared_ptr<const void> typed,
         const std::type_info* type);

  // "namespace/name", or "name" for cluster-scoped objects.
  const std::string& key() const { return key_; }
  std::string_view namespace_() const { return std::string_view(key_).substr(0, ns_len_); }
  std::string_view name() const {
    return ns_len_ == 0 ? std::string_view(key_) : std::string_view(key_).substr(ns_len_ + 1);
  }
  const std::string& resource_version() const { return resource_version_; }
  const std::string& uid() const { return uid_; }

  // The JSON as received (kind/apiVersion filled in); null when the decoder dropped it.
  const std::shared_ptr<const std::string>& json() const { return json_; }

  // The typed view, or nullptr when the decoder made none or of another type.
  template <class T>
  const T* As() const {
    return type_ != nullptr && *type_ == typeid(T) ? static_cast<const T*>(typed_.get()) : nullptr;
  }

 private:
  std::string key_;
  size_t ns_len_;
  std::string resource_version_;
  std::string uid_;
  std::shared_ptr<const std::string> json_;
  std::shared_ptr<const void> typed_;
  const std::type_info* type_;
};

using ObjectPtr = std::shared_ptr<const Object>;

// "ns/name" or "name".
std::string ObjectKey(std::string_view ns, std::string_view name);

// Turns one object's JSON (a list item or a watch event's object) into a cached Object.
using Decoder = std::function<StatusOr<ObjectPtr>(std::string json)>;

// Keeps the JSON and reads only metadata (namespace, name, resourceVersion, uid) with a SAX
// pass; no typed view.
Decoder RawDecoder();

// Builds an Object from a decoded typed value (T has ObjectMeta metadata and RawDocument raw).
template <class T>
ObjectPtr MakeTypedObject(std::shared_ptr<const T> obj, std::shared_ptr<const std::string> json) {
  const auto& m = obj->metadata;
  return std::make_shared<const Object>(m.namespace_, m.name, m.resource_version, m.uid,
                                        std::move(json), std::shared_ptr<const void>(obj),
                                        &typeid(T));
}

}  // namespace kai::kube
