#include "scheduler/outputs/json_patch.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/json_quote.h"
#include "api/rapidjson_util.h"

namespace kai::scheduler {

namespace {

using rapidjson::Value;

void AddOp(const char* op, const std::string& path, const Value* value, std::string* out) {
  if (out->size() > 1) *out += ",";
  *out += "{\"op\":\"";
  *out += op;
  *out += "\",\"path\":";
  *out += api::JsonQuote(path);
  if (value != nullptr) {
    *out += ",\"value\":";
    *out += api::ToJsonString(*value);
  }
  *out += "}";
}

void Diff(const Value& from, const Value& to, const std::string& path, std::string* out) {
  if (from.IsObject() && to.IsObject()) {
    for (auto m = from.MemberBegin(); m != from.MemberEnd(); ++m) {
      std::string_view name(m->name.GetString(), m->name.GetStringLength());
      if (!to.HasMember(m->name))
        AddOp("remove", path + "/" + EscapeJsonPointer(name), nullptr, out);
    }
    for (auto m = from.MemberBegin(); m != from.MemberEnd(); ++m) {
      auto t = to.FindMember(m->name);
      if (t == to.MemberEnd()) continue;
      std::string_view name(m->name.GetString(), m->name.GetStringLength());
      Diff(m->value, t->value, path + "/" + EscapeJsonPointer(name), out);
    }
    for (auto m = to.MemberBegin(); m != to.MemberEnd(); ++m) {
      if (from.HasMember(m->name)) continue;
      std::string_view name(m->name.GetString(), m->name.GetStringLength());
      AddOp("add", path + "/" + EscapeJsonPointer(name), &m->value, out);
    }
    return;
  }
  if (from == to) return;
  AddOp("replace", path, &to, out);
}

}  // namespace

std::string EscapeJsonPointer(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

StatusOr<std::string> CreateJsonPatch(std::string_view from, std::string_view to) {
  rapidjson::Document a, b;
  KAI_RETURN_IF_ERROR(api::ParseJson(from, &a));
  KAI_RETURN_IF_ERROR(api::ParseJson(to, &b));
  std::string out = "[";
  Diff(a, b, "", &out);
  out += "]";
  return out;
}

}  // namespace kai::scheduler
