// JSON codecs for the typed objects.
//
// Every struct in api/ lists its JSON fields once, in a static visitor:
//
//   template <class S, class V> static void Fields(S& s, V& v) { v("minMember", s.min_member); }
//
// S is the struct (const when encoding) and V a visitor defined in the codec .cc files, so no
// public header sees RapidJSON. Supported field types: std::string, bool, int32_t, int64_t, int,
// double, Quantity (JSON string or number), std::optional<WallTime> (RFC 3339),
// std::optional<MicroTime>, std::optional<Duration> (Go duration string), RawJson (verbatim
// sub-document), std::optional<T>, std::vector<T>, std::map<std::string, T>, and nested structs
// with their own Fields(). Zero values are omitted on output (Go's omitempty), std::optional
// distinguishes "absent" from "zero" where Kubernetes does (pointer fields in Go).
//
// Decoding errors name the object and the JSON path: `Pod default/p: spec.containers[0]
// .resources.requests.cpu: quantities must match the regular expression ...`.
//
// Encoding writes into the object's RawDocument when it has one: members whose modelled value is
// unchanged keep their original text; changed ones are replaced; fields the type does not model
// are kept as they were. apiVersion and kind come from T::kTypeInfo.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

// Declares the codec pair of a top-level type. T is a type name: it cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define KAI_API_DECLARE_CODEC(T)                           \
  ::kai::Status DecodeJson(std::string_view json, T* out); \
  std::string EncodeJson(const T& obj)
// NOLINTEND(bugprone-macro-parentheses)

namespace kai::api {

// Decodes a top-level object from JSON text; keeps the text as the object's RawDocument.
template <class T>
StatusOr<T> Decode(std::string_view json) {
  T obj;
  KAI_RETURN_IF_ERROR(DecodeJson(json, &obj));
  return obj;
}

}  // namespace kai::api
