#include "api/rapidjson_util.h"

#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace kai::api {

size_t JsonDepthExceededAt(std::string_view text, int max_depth) {
  // Nesting deeper than max_depth needs more than max_depth openers: most documents have too few
  // bytes, or too few brackets (counted branch-free, strings included), to need the exact scan.
  if (max_depth >= 0 && text.size() <= static_cast<size_t>(max_depth)) return text.npos;
  size_t openers = 0;
  for (const char c : text)
    openers += static_cast<size_t>(c == '{') + static_cast<size_t>(c == '[');
  if (max_depth >= 0 && openers <= static_cast<size_t>(max_depth)) return text.npos;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

Status ParseJson(std::string_view text, rapidjson::Document* doc, int max_depth) {
  if (const size_t at = JsonDepthExceededAt(text, max_depth); at != text.npos) {
    return InvalidArgumentError("invalid JSON at offset " + std::to_string(at) +
                                ": nesting deeper than " + std::to_string(max_depth));
  }
  doc->Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag>(text.data(),
                                                                                  text.size());
  if (doc->HasParseError()) {
    return InvalidArgumentError("invalid JSON at offset " + std::to_string(doc->GetErrorOffset()) +
                                ": " + rapidjson::GetParseError_En(doc->GetParseError()));
  }
  return Status::OK();
}

StatusOr<rapidjson::Document> ParseJsonDocument(std::string_view text) {
  rapidjson::Document doc;
  KAI_RETURN_IF_ERROR(ParseJson(text, &doc));
  return doc;
}

std::string ToJsonString(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string ToPrettyJsonString(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

const rapidjson::Value* FindMember(const rapidjson::Value& obj, std::string_view name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(rapidjson::Value(
      rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

}  // namespace kai::api
