// Internal (kube/patch .cc files only): RapidJSON helpers for the patch algorithms.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "api/rapidjson_util.h"
#include "kube/base/statusor.h"

namespace kai::kube::patch_internal {

using Value = rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// Parses `text`; errors are prefixed with `what` ("original", "patch" ...).
inline Status Parse(std::string_view text, std::string_view what, rapidjson::Document* doc) {
  Status s = api::ParseJson(text, doc);
  if (!s.ok()) return InvalidArgumentError(std::string(what) + ": " + std::string(s.message()));
  return Status::OK();
}

inline Value Copy(const Value& v, Alloc& a) { return Value(v, a); }

inline std::string_view Str(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

inline Value::MemberIterator FindIt(Value& obj, std::string_view name) {
  Value key(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size())));
  return obj.FindMember(key);
}
inline Value::ConstMemberIterator FindIt(const Value& obj, std::string_view name) {
  Value key(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size())));
  return obj.FindMember(key);
}

// Sets obj[name] = value (replacing an existing member).
inline void Set(Value& obj, std::string_view name, Value value, Alloc& a) {
  auto it = FindIt(obj, name);
  if (it != obj.MemberEnd()) {
    it->value = std::move(value);
  } else {
    obj.AddMember(api::JsonString(name, a), std::move(value), a);
  }
}

}  // namespace kai::kube::patch_internal
