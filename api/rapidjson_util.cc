#include "api/rapidjson_util.h"

#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace kai::api {

Status ParseJson(std::string_view text, rapidjson::Document* doc) {
  doc->Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
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
