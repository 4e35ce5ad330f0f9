// The scalar codecs and error helpers of the codec engine (api/codec_impl.h).
#include <charconv>
#include <cmath>
#include <string>

#include "api/codec_internal.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"

namespace kai::api {
namespace codec {
namespace {

bool IsPlainKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool StatusError(const Status& s, DecodeError* err) {
  err->Set(std::string(s.message()));
  return false;
}

// Short rendering of a scalar for messages ("1.5", "\"abc\"").
std::string Snippet(const Value& v) {
  std::string s = ToJsonString(v);
  if (s.size() > 64) s = s.substr(0, 61) + "...";
  return s;
}

}  // namespace

void DecodeError::PushKey(std::string_view key) {
  if (IsPlainKey(key)) {
    rev_path_.push_back(std::string(key));
  } else {
    rev_path_.push_back("[" + std::string(key) + "]");
  }
}

std::string DecodeError::Path() const {
  std::string path;
  for (auto it = rev_path_.rbegin(); it != rev_path_.rend(); ++it) {
    if (!path.empty() && (*it)[0] != '[') path += '.';
    path += *it;
  }
  return path;
}

std::string DecodeError::ToString() const {
  std::string path = Path();
  return path.empty() ? message_ : path + ": " + message_;
}

std::string_view JsonTypeName(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "unknown";
}

bool TypeError(const Value& v, std::string_view expected, DecodeError* err) {
  std::string msg = "expected " + std::string(expected) + ", got " + std::string(JsonTypeName(v));
  if (v.IsNumber() || v.IsString() || v.IsBool()) msg += " " + Snippet(v);
  err->Set(std::move(msg));
  return false;
}

bool DecodeAny(const Value& v, std::string* out, DecodeError* err) {
  if (!v.IsString()) return TypeError(v, "string", err);
  out->assign(v.GetString(), v.GetStringLength());
  return true;
}

bool DecodeAny(const Value& v, bool* out, DecodeError* err) {
  if (!v.IsBool()) return TypeError(v, "boolean", err);
  *out = v.GetBool();
  return true;
}

bool DecodeAny(const Value& v, int32_t* out, DecodeError* err) {
  if (!v.IsInt()) return TypeError(v, "int32", err);
  *out = v.GetInt();
  return true;
}

bool DecodeAny(const Value& v, int64_t* out, DecodeError* err) {
  if (!v.IsInt64()) return TypeError(v, "int64", err);
  *out = v.GetInt64();
  return true;
}

bool DecodeAny(const Value& v, double* out, DecodeError* err) {
  if (!v.IsNumber()) return TypeError(v, "number", err);
  *out = v.GetDouble();
  return true;
}

bool DecodeAny(const Value& v, Quantity* out, DecodeError* err) {
  std::string text;
  if (v.IsString()) {
    // Go's Quantity.UnmarshalJSON trims surrounding whitespace.
    text = std::string(StripWhitespace(std::string_view(v.GetString(), v.GetStringLength())));
  } else if (v.IsInt64()) {
    text = std::to_string(v.GetInt64());
  } else if (v.IsUint64()) {
    text = std::to_string(v.GetUint64());
  } else if (v.IsNumber()) {
    // The number's text is gone after parsing; its shortest round-trip form parses to the same
    // value (docs/api.md).
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), v.GetDouble());
    text.assign(buf, res.ptr);
  } else {
    return TypeError(v, "quantity (string or number)", err);
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) return StatusError(q.status(), err);
  *out = *std::move(q);
  return true;
}

bool DecodeAny(const Value& v, WallTime* out, DecodeError* err) {
  if (!v.IsString()) return TypeError(v, "RFC 3339 time string", err);
  auto t = ParseRfc3339(std::string_view(v.GetString(), v.GetStringLength()));
  if (!t.ok()) return StatusError(t.status(), err);
  *out = *t;
  return true;
}

bool DecodeAny(const Value& v, MicroTime* out, DecodeError* err) {
  return DecodeAny(v, &out->value, err);
}

bool DecodeAny(const Value& v, Duration* out, DecodeError* err) {
  if (!v.IsString()) return TypeError(v, "duration string", err);
  auto d = ParseGoDuration(std::string_view(v.GetString(), v.GetStringLength()));
  if (!d.ok()) return StatusError(d.status(), err);
  *out = *d;
  return true;
}

bool DecodeAny(const Value& v, RawJson* out, DecodeError* err) {
  out->json = ToJsonString(v);
  return true;
}

void EncodeAny(const std::string& s, Value* out, Alloc& a) { *out = JsonString(s, a); }
void EncodeAny(bool b, Value* out, Alloc&) { out->SetBool(b); }
void EncodeAny(int32_t i, Value* out, Alloc&) { out->SetInt(i); }
void EncodeAny(int64_t i, Value* out, Alloc&) { out->SetInt64(i); }

void EncodeAny(double d, Value* out, Alloc&) {
  if (!std::isfinite(d)) {
    out->SetNull();  // JSON has no NaN/Inf (Go's encoder fails the whole object instead)
  } else if (d == std::trunc(d) && std::fabs(d) < 9007199254740992.0) {
    out->SetInt64(static_cast<int64_t>(d));  // Go writes 1, not 1.0
  } else {
    out->SetDouble(d);
  }
}

void EncodeAny(const Quantity& q, Value* out, Alloc& a) { *out = JsonString(q.ToString(), a); }
void EncodeAny(const WallTime& t, Value* out, Alloc& a) { *out = JsonString(FormatRfc3339(t), a); }
void EncodeAny(const MicroTime& t, Value* out, Alloc& a) {
  *out = JsonString(FormatRfc3339Micro(t.value), a);
}
void EncodeAny(const Duration& d, Value* out, Alloc& a) {
  *out = JsonString(FormatGoDuration(d), a);
}

void EncodeAny(const RawJson& r, Value* out, Alloc& a) {
  rapidjson::Document doc(&a);
  if (r.json.empty() || !ParseJson(r.json, &doc).ok()) {
    out->SetNull();
    return;
  }
  // `doc` allocates from `a` (it does not own it), so its tree outlives it.
  static_cast<Value&>(doc).Swap(*out);
}

}  // namespace codec

std::string DescribeObject(std::string_view kind, const rapidjson::Value& value) {
  std::string out(kind);
  const rapidjson::Value* meta = FindMember(value, "metadata");
  if (meta == nullptr || !meta->IsObject()) return out;
  const rapidjson::Value* name = FindMember(*meta, "name");
  if (name == nullptr || !name->IsString()) return out;
  out += ' ';
  const rapidjson::Value* ns = FindMember(*meta, "namespace");
  if (ns != nullptr && ns->IsString() && ns->GetStringLength() > 0) {
    out.append(ns->GetString(), ns->GetStringLength()).append("/");
  }
  out.append(name->GetString(), name->GetStringLength());
  return out;
}

Status CheckTypeMeta(const rapidjson::Value& value, const TypeInfo& type) {
  const auto check = [&](std::string_view field, std::string_view want) -> Status {
    const rapidjson::Value* v = FindMember(value, field);
    if (v == nullptr) return Status::OK();
    if (!v->IsString() || std::string_view(v->GetString(), v->GetStringLength()) != want) {
      return InvalidArgumentError(
          DescribeObject(type.kind, value) + ": " + std::string(field) + ": expected \"" +
          std::string(want) + "\", got " +
          (v->IsString() ? "\"" + std::string(v->GetString(), v->GetStringLength()) + "\""
                         : std::string(codec::JsonTypeName(*v))));
    }
    return Status::OK();
  };
  KAI_RETURN_IF_ERROR(check("apiVersion", type.ApiVersion()));
  return check("kind", type.kind);
}

}  // namespace kai::api
