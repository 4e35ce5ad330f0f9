// Internal: RapidJSON helpers shared by codecs. Include only from .cc files; public headers
// never expose RapidJSON (it is heavy and slows every translation unit that sees it).
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::api {

// Maximum nesting of arrays/objects accepted (Go's encoding/json limit).
inline constexpr int kMaxJsonDepth = 10000;

// Offset of the first '[' or '{' that nests deeper than `max_depth` in JSON `text`, or npos. A
// scan before parsing: parsing is iterative, but copying and writing values recurse.
size_t JsonDepthExceededAt(std::string_view text, int max_depth);

// Full-precision, iterative parse (RapidJSON's default can be one ULP off and recurses). Errors
// carry the byte offset; nesting deeper than `max_depth` is rejected (one scan before parsing).
Status ParseJson(std::string_view text, rapidjson::Document* doc, int max_depth = kMaxJsonDepth);
StatusOr<rapidjson::Document> ParseJsonDocument(std::string_view text);

std::string ToJsonString(const rapidjson::Value& v);
std::string ToPrettyJsonString(const rapidjson::Value& v);

// Member lookup that returns nullptr when absent or null.
const rapidjson::Value* FindMember(const rapidjson::Value& obj, std::string_view name);

inline rapidjson::Value JsonString(std::string_view s, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

}  // namespace kai::api
