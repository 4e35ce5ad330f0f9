#include "test/localkube/json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdio>

namespace kai::localkube {

const Json* Member(const Json& obj, std::string_view name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(Json(Ref(name)));
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

Json* Member(Json& obj, std::string_view name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(Json(Ref(name)));
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

const Json* Path(const Json& obj, std::initializer_list<std::string_view> path) {
  const Json* cur = &obj;
  for (std::string_view p : path) {
    cur = Member(*cur, p);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

Json* Path(Json& obj, std::initializer_list<std::string_view> path) {
  Json* cur = &obj;
  for (std::string_view p : path) {
    cur = Member(*cur, p);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

const Json* DottedPath(const Json& obj, std::string_view dotted) {
  const Json* cur = &obj;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string_view::npos) dot = dotted.size();
    cur = Member(*cur, dotted.substr(start, dot - start));
    if (cur == nullptr) return nullptr;
    start = dot + 1;
  }
  return cur;
}

std::string GetStr(const Json& obj, std::initializer_list<std::string_view> path) {
  const Json* v = Path(obj, path);
  if (v == nullptr || !v->IsString()) return "";
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<int64_t> GetInt(const Json& obj, std::initializer_list<std::string_view> path) {
  const Json* v = Path(obj, path);
  if (v == nullptr) return std::nullopt;
  if (v->IsInt64()) return v->GetInt64();
  if (v->IsUint64()) return static_cast<int64_t>(v->GetUint64());
  if (v->IsDouble()) {
    const double d = v->GetDouble();
    if (std::floor(d) == d && std::fabs(d) < 9.2e18) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

bool GetBool(const Json& obj, std::initializer_list<std::string_view> path, bool fallback) {
  const Json* v = Path(obj, path);
  if (v == nullptr || !v->IsBool()) return fallback;
  return v->GetBool();
}

Json& EnsureObject(Json& obj, std::string_view name, JsonAlloc& a) {
  Json* m = Member(obj, name);
  if (m == nullptr) {
    obj.AddMember(Str(name, a), Json(rapidjson::kObjectType), a);
    m = Member(obj, name);
  } else if (!m->IsObject()) {
    m->SetObject();
  }
  return *m;
}

void SetMember(Json& obj, std::string_view name, Json value, JsonAlloc& a) {
  Json* m = Member(obj, name);
  if (m != nullptr) {
    *m = value;  // move
  } else {
    obj.AddMember(Str(name, a), value, a);
  }
}

void SetString(Json& obj, std::string_view name, std::string_view value, JsonAlloc& a) {
  SetMember(obj, name, Str(value, a), a);
}

void SetInt(Json& obj, std::string_view name, int64_t value, JsonAlloc& a) {
  SetMember(obj, name, Json(static_cast<int64_t>(value)), a);
}

bool RemoveMember(Json& obj, std::string_view name) {
  if (!obj.IsObject()) return false;
  auto it = obj.FindMember(Json(Ref(name)));
  if (it == obj.MemberEnd()) return false;
  obj.EraseMember(it);  // keeps member order
  return true;
}

Json& FindOrAddCondition(Json& status, std::string_view type, JsonAlloc& a) {
  Json* conds = Member(status, "conditions");
  if (conds == nullptr || !conds->IsArray()) {
    SetMember(status, "conditions", Json(rapidjson::kArrayType), a);
    conds = Member(status, "conditions");
  }
  Json* found = nullptr;
  for (Json& c : conds->GetArray()) {
    if (GetStr(c, {"type"}) == type) found = &c;  // the last one, as the API's helpers
  }
  if (found != nullptr) return *found;
  Json c(rapidjson::kObjectType);
  c.AddMember("type", Str(type, a), a);
  conds->PushBack(c, a);
  return (*conds)[conds->Size() - 1];
}

JsonDoc Clone(const Json& v) {
  JsonDoc d;
  d.CopyFrom(v, d.GetAllocator());
  return d;
}

StatusOr<JsonDoc> Parse(std::string_view text) {
  JsonDoc d;
  KAI_RETURN_IF_ERROR(api::ParseJson(text, &d, kMaxRequestJsonDepth));
  return d;
}

std::string Serialize(const Json& v) { return api::ToJsonString(v); }

std::string ScalarText(const Json& v) {
  if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
  if (v.IsNull()) return "<nil>";
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsDouble()) {
    const double d = v.GetDouble();
    if (std::floor(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%g", d);
    return buf;
  }
  return Serialize(v);
}

void AppendQuoted(std::string* out, std::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  out->append(buf.GetString(), buf.GetSize());
}

std::string Quoted(std::string_view s) {
  std::string out;
  AppendQuoted(&out, s);
  return out;
}

}  // namespace kai::localkube
