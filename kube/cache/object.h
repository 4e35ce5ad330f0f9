// Object: one cached Kubernetes object, immutable and shared (std::shared_ptr<const Object>)
// between the store, the indexes and every handler notification.
//
// How objects are held (the 100,000-pod cache must fit in well under 2 GiB):
//   * the identity every cache needs (key, resourceVersion, uid) as small strings;
//   * optionally the object's JSON text exactly as the server sent it, shared immutably (no
//     re-serialisation; with a typed decoder it is the same buffer as the typed object's
//     RawDocument, so it is held once);
//   * optionally a typed view (api::Pod, api::PodGroup ...) built once by the informer's
//     Decoder, so handlers never parse JSON;
//   * or, with LazyTypedDecoder<T>, a typed view decoded from the JSON on the first As<T>() and
//     kept (thread-safe, once): a cache that needs only a few of its objects typed (kai-binder's
//     pods: the one a BindRequest names) skips the decode of every other watch event. Such a
//     decoder also reads a few scalar fields (`fields`, e.g. spec.nodeName) and the labels in
//     its metadata pass, so handlers, indexes and selectors run on them without the decode.
// A typed informer that drops the JSON (TypedDecoder<T>(/*keep_json=*/false)) holds only the
// typed view: the leanest form, for large caches that never update whole objects (updates go
// through patches). docs/kube.md lists the measured bytes per pod of each form.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "kube/base/statusor.h"

namespace kai::kube {

// A JSON path of member names, e.g. {"spec", "nodeName"}.
using FieldPath = std::vector<std::string>;
// metadata.labels as (key, value) pairs in document order.
using ObjectLabels = std::vector<std::pair<std::string, std::string>>;

// What a scanning decoder read besides the identity: the values at its FieldPaths (a string's
// unescaped content, a number's or literal's text, "" when absent or not a scalar), and the
// labels when asked for.
struct ScannedFields {
  std::vector<std::string> values;
  ObjectLabels labels;
};

class Object {
 public:
  // Decodes the typed view of a lazy object from its JSON (the buffer is shared, not copied).
  using TypedDecodeFn =
      StatusOr<std::shared_ptr<const void>> (*)(const std::shared_ptr<const std::string>& json);

  Object(std::string_view ns, std::string_view name, std::string resource_version, std::string uid,
         std::shared_ptr<const std::string> json, std::shared_ptr<const void> typed,
         const std::type_info* type);
  // A lazy object: the typed view of `type` is decoded from `json` by `decode` on first use.
  Object(std::string_view ns, std::string_view name, std::string resource_version, std::string uid,
         std::shared_ptr<const std::string> json, const std::type_info* type, TypedDecodeFn decode,
         ScannedFields fields);

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

  // The typed view, or nullptr when the decoder made none or of another type (or, for a lazy
  // object, when its JSON does not decode: logged once). A lazy object decodes here, once.
  template <class T>
  const T* As() const {
    return type_ != nullptr && *type_ == typeid(T) ? static_cast<const T*>(Typed()) : nullptr;
  }
  // For a lazy object: whether the typed view has been decoded yet (tests, stats).
  bool decoded() const;

  // The decoder's FieldPaths values, by position ("" past the end).
  std::string_view field(size_t i) const {
    return i < fields_.values.size() ? std::string_view(fields_.values[i]) : std::string_view();
  }
  // metadata.labels as read by a scanning decoder that asked for them (else empty).
  const ObjectLabels& labels() const { return fields_.labels; }
  // The value of label `key`, or nullptr (only for decoders that read the labels).
  const std::string* label(std::string_view key) const;

 private:
  std::string key_;
  size_t ns_len_;
  std::string resource_version_;
  std::string uid_;
  const void* Typed() const;

  std::shared_ptr<const std::string> json_;
  mutable std::shared_ptr<const void> typed_;  // set once under lazy_once_ when decode_ is set
  const std::type_info* type_;
  const TypedDecodeFn decode_ = nullptr;
  mutable std::once_flag lazy_once_;
  mutable std::atomic<bool> decoded_{false};
  ScannedFields fields_;
};

using ObjectPtr = std::shared_ptr<const Object>;

// "ns/name" or "name".
std::string ObjectKey(std::string_view ns, std::string_view name);

// Turns one object's JSON (a list item or a watch event's object) into a cached Object.
using Decoder = std::function<StatusOr<ObjectPtr>(std::string json)>;

// Keeps the JSON and reads only metadata (namespace, name, resourceVersion, uid) with a SAX
// pass; no typed view.
Decoder RawDecoder();

// Keeps the JSON, reads the metadata, the values at `fields` (paths must not be prefixes of one
// another) and, with `labels`, metadata.labels in one structural pass; the typed view of `type`
// is left to `decode` on first use (LazyTypedDecoder<T> in typed.h).
Decoder ScanningDecoder(std::vector<FieldPath> fields, bool labels, const std::type_info* type,
                        Object::TypedDecodeFn decode);

// Builds an Object from a decoded typed value (T has ObjectMeta metadata and RawDocument raw).
template <class T>
ObjectPtr MakeTypedObject(std::shared_ptr<const T> obj, std::shared_ptr<const std::string> json) {
  const auto& m = obj->metadata;
  return std::make_shared<const Object>(m.namespace_, m.name, m.resource_version, m.uid,
                                        std::move(json), std::shared_ptr<const void>(obj),
                                        &typeid(T));
}

}  // namespace kai::kube
