// Internal: small RapidJSON helpers used across localkube. Include only from .cc files.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/rapidjson_util.h"
#include "kube/base/statusor.h"

namespace kai::localkube {

using Json = rapidjson::Value;
using JsonDoc = rapidjson::Document;
using JsonAlloc = rapidjson::Document::AllocatorType;

// Deepest nesting localkube accepts in a request body or stored object (the scan runs once, in
// api::ParseJson).
inline constexpr int kMaxRequestJsonDepth = 1000;

inline rapidjson::GenericStringRef<char> Ref(std::string_view s) {
  return rapidjson::StringRef(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
inline Json Str(std::string_view s, JsonAlloc& a) {
  return Json(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}
inline std::string_view View(const Json& v) {
  return v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : std::string_view();
}

// Member lookup; nullptr when absent (a JSON null is returned as a null value, not nullptr).
const Json* Member(const Json& obj, std::string_view name);
Json* Member(Json& obj, std::string_view name);
// Path lookup through objects; nullptr when any step is missing or not an object.
const Json* Path(const Json& obj, std::initializer_list<std::string_view> path);
Json* Path(Json& obj, std::initializer_list<std::string_view> path);
// Dotted path lookup ("spec.nodeName").
const Json* DottedPath(const Json& obj, std::string_view dotted);

// String at path, "" when absent or not a string.
std::string GetStr(const Json& obj, std::initializer_list<std::string_view> path);
std::optional<int64_t> GetInt(const Json& obj, std::initializer_list<std::string_view> path);
bool GetBool(const Json& obj, std::initializer_list<std::string_view> path, bool fallback);

// Returns the object member `name` of `obj`, creating it (as an empty object) when absent or
// not an object.
Json& EnsureObject(Json& obj, std::string_view name, JsonAlloc& a);
// Sets obj[name] = value (replacing).
void SetMember(Json& obj, std::string_view name, Json value, JsonAlloc& a);
void SetString(Json& obj, std::string_view name, std::string_view value, JsonAlloc& a);
void SetInt(Json& obj, std::string_view name, int64_t value, JsonAlloc& a);
bool RemoveMember(Json& obj, std::string_view name);

// The element of status.conditions (`status` is the status object) whose type is `type`,
// appended as {"type": type} when there is none (the array too).
Json& FindOrAddCondition(Json& status, std::string_view type, JsonAlloc& a);

// Deep copy into a new document.
JsonDoc Clone(const Json& v);

// Parses with full precision; the error mentions `what`.
StatusOr<JsonDoc> Parse(std::string_view text);

std::string Serialize(const Json& v);

// Formats a JSON value as a string the way kubectl's JSONPath printer would (strings unquoted,
// numbers in shortest form, objects/arrays as compact JSON).
std::string ScalarText(const Json& v);

// Appends `s` as a JSON string literal (with quotes and escapes) to `out`.
void AppendQuoted(std::string* out, std::string_view s);
// `s` as a JSON string literal.
std::string Quoted(std::string_view s);

}  // namespace kai::localkube
