// Internal: codec entry points over already-parsed RapidJSON values, for .cc files only (this
// header includes RapidJSON). Informers decode list items and watch events with DecodeValue
// without parsing twice; writers that build a larger document use EncodeValue.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <string_view>

#include "api/bind_request.h"
#include "api/binding.h"
#include "api/codec.h"
#include "api/codec_impl.h"
#include "api/config_map.h"
#include "api/event.h"
#include "api/kai_config.h"
#include "api/lease.h"
#include "api/node.h"
#include "api/pod.h"
#include "api/podgroup.h"
#include "api/priority_class.h"
#include "api/queue.h"
#include "api/rapidjson_util.h"
#include "api/scheduling_shard.h"
#include "api/topology.h"
#include "api/type_info.h"

namespace kai::api {

struct DecodeOptions {
  // Keep the object's JSON as its RawDocument, so that a later EncodeJson writes into it and
  // never drops fields the C++ type does not model. Only code that updates whole objects needs
  // it; large informer caches should leave it off (it keeps a copy of every object's text).
  bool keep_raw = false;
  // The exact text `value` was parsed from, when the caller has it (saves re-serialising).
  std::string_view raw_text;
};

// "Pod default/p", "Queue q1" or just "Pod" (from the value's metadata, when readable).
std::string DescribeObject(std::string_view kind, const rapidjson::Value& value);

// Rejects an apiVersion/kind that is present but not `type`'s (absent ones are accepted, as in
// list items of built-in kinds).
Status CheckTypeMeta(const rapidjson::Value& value, const TypeInfo& type);

// Decodes a top-level object. Errors name the object and the JSON path:
//   Pod default/p: spec.containers[0].resources.requests.cpu: invalid quantity "x": ...
template <class T>
Status DecodeValue(const rapidjson::Value& value, T* out, const DecodeOptions& options = {}) {
  *out = T();
  if (!value.IsObject()) {
    return InvalidArgumentError(std::string(T::kTypeInfo.kind) + ": expected a JSON object, got " +
                                std::string(codec::JsonTypeName(value)));
  }
  KAI_RETURN_IF_ERROR(CheckTypeMeta(value, T::kTypeInfo));
  codec::DecodeError err;
  if (!codec::DecodeAny(value, out, &err)) {
    return InvalidArgumentError(DescribeObject(T::kTypeInfo.kind, value) + ": " + err.ToString());
  }
  if (options.keep_raw) {
    out->raw.json = std::make_shared<const std::string>(
        options.raw_text.empty() ? ToJsonString(value) : std::string(options.raw_text));
  }
  return Status::OK();
}

// Encodes `obj` as a JSON object into `out` (allocated from `alloc`): apiVersion and kind from
// T::kTypeInfo first, then the fields, merged into obj.raw when the object has one.
template <class T>
void EncodeValue(const T& obj, rapidjson::Value* out, codec::Alloc& alloc) {
  out->SetObject();
  const std::string api_version = T::kTypeInfo.ApiVersion();
  out->AddMember("apiVersion", JsonString(api_version, alloc), alloc);
  out->AddMember("kind", JsonString(T::kTypeInfo.kind, alloc), alloc);
  rapidjson::Value body;
  rapidjson::Document orig;
  if (obj.raw.json != nullptr && ParseJson(*obj.raw.json, &orig).ok() && orig.IsObject()) {
    codec::MergeStruct(obj, orig, &body, alloc, {"apiVersion", "kind"});
  } else {
    codec::EncodeAny(obj, &body, alloc);
  }
  // By index: comparing RapidJSON's non-const member iterators is ambiguous in C++20 (clang).
  auto members = body.MemberBegin();
  for (rapidjson::SizeType i = 0, n = body.MemberCount(); i < n; ++i) {
    out->AddMember(members[i].name, members[i].value, alloc);
  }
}

template <class T>
Status DecodeJsonImpl(std::string_view json, T* out) {
  *out = T();
  rapidjson::Document doc;
  Status parsed = ParseJson(json, &doc);
  if (!parsed.ok()) return parsed.WithPrefix(T::kTypeInfo.kind);
  return DecodeValue(doc, out, DecodeOptions{.keep_raw = true, .raw_text = json});
}

template <class T>
std::string EncodeJsonImpl(const T& obj) {
  rapidjson::Document doc;
  EncodeValue(obj, &doc, doc.GetAllocator());
  return ToJsonString(doc);
}

// The codecs of every top-level type are instantiated once, in the api library. (T is a type in
// a template argument list: it cannot be parenthesised.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define KAI_API_EXTERN_CODEC(T)                                                             \
  extern template Status DecodeValue<T>(const rapidjson::Value&, T*, const DecodeOptions&); \
  extern template void EncodeValue<T>(const T&, rapidjson::Value*, codec::Alloc&)

KAI_API_EXTERN_CODEC(Pod);
KAI_API_EXTERN_CODEC(Node);
KAI_API_EXTERN_CODEC(PriorityClass);
KAI_API_EXTERN_CODEC(Lease);
KAI_API_EXTERN_CODEC(Event);
KAI_API_EXTERN_CODEC(ConfigMap);
KAI_API_EXTERN_CODEC(Binding);
KAI_API_EXTERN_CODEC(Eviction);
KAI_API_EXTERN_CODEC(Queue);
KAI_API_EXTERN_CODEC(PodGroup);
KAI_API_EXTERN_CODEC(BindRequest);
KAI_API_EXTERN_CODEC(Topology);
KAI_API_EXTERN_CODEC(SchedulingShard);
KAI_API_EXTERN_CODEC(Config);

}  // namespace kai::api

// In exactly one .cc file per type, inside namespace kai::api: instantiates the codecs and
// defines DecodeJson/EncodeJson.
#define KAI_API_DEFINE_CODEC(T)                                                          \
  template Status DecodeValue<T>(const rapidjson::Value&, T*, const DecodeOptions&);     \
  template void EncodeValue<T>(const T&, rapidjson::Value*, codec::Alloc&);              \
  Status DecodeJson(std::string_view json, T* out) { return DecodeJsonImpl(json, out); } \
  std::string EncodeJson(const T& obj) { return EncodeJsonImpl(obj); }
// NOLINTEND(bugprone-macro-parentheses)
