#include "api/yaml_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "kube/base/strings.h"

namespace kai::api {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

bool IsPlain(const YAML::Node& n) { return n.Tag() == "?"; }

std::string Mark(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return "";
  return " at line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1);
}

enum class ScalarKind { kNull, kBool, kInt, kFloat, kString };

struct Resolved {
  ScalarKind kind = ScalarKind::kString;
  bool b = false;
  long long i = 0;
  double f = 0;
};

// The go-yaml v2 resolver's number patterns, written out (std::regex is slow and trips GCC's
// -Wmaybe-uninitialized under sanitizers).
std::string_view SkipSign(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s;
}

// [-+]?(0|[1-9][0-9_]*)
bool IsDecimalInt(std::string_view s) {
  s = SkipSign(s);
  if (s == "0") return true;
  if (s.empty() || s[0] < '1' || s[0] > '9') return false;
  for (char c : s.substr(1)) {
    if (!IsAsciiDigit(c) && c != '_') return false;
  }
  return true;
}

// [-+]?0x[0-9a-fA-F_]+ or [-+]?0b[01_]+
bool IsPrefixedInt(std::string_view s, char kind) {
  s = SkipSign(s);
  if (s.size() < 3 || s[0] != '0' || s[1] != kind) return false;
  for (char c : s.substr(2)) {
    const bool ok = kind == 'x' ? (IsAsciiDigit(c) || (c >= 'a' && c <= 'f') ||
                                   (c >= 'A' && c <= 'F') || c == '_')
                                : (c == '0' || c == '1' || c == '_');
    if (!ok) return false;
  }
  return true;
}

// [-+]?0[0-7_]+
bool IsOctalInt(std::string_view s) {
  s = SkipSign(s);
  if (s.size() < 2 || s[0] != '0') return false;
  for (char c : s.substr(1)) {
    if (!((c >= '0' && c <= '7') || c == '_')) return false;
  }
  return true;
}

// [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?
bool IsFloat(std::string_view s) {
  s = SkipSign(s);
  size_t i = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const size_t start = i;
    while (i < s.size() && IsAsciiDigit(s[i])) ++i;
    if (i == start) return false;
  } else {
    if (i >= s.size() || !IsAsciiDigit(s[i])) return false;
    ++i;
    while (i < s.size() && (IsAsciiDigit(s[i]) || s[i] == '_')) ++i;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && (IsAsciiDigit(s[i]) || s[i] == '_')) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const size_t start = i;
    while (i < s.size() && IsAsciiDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

// go-yaml v2 resolution of plain scalars (YAML 1.1 booleans included, as kubectl sees them).
Resolved ResolvePlain(const std::string& s) {
  static const std::set<std::string> kNull = {"", "~", "null", "Null", "NULL"};
  static const std::set<std::string> kTrue = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                              "True", "TRUE", "on",  "On",  "ON"};
  static const std::set<std::string> kFalse = {"n",     "N",     "no",  "No",  "NO", "false",
                                               "False", "FALSE", "off", "Off", "OFF"};
  Resolved r;
  if (kNull.count(s)) {
    r.kind = ScalarKind::kNull;
    return r;
  }
  if (kTrue.count(s) || kFalse.count(s)) {
    r.kind = ScalarKind::kBool;
    r.b = kTrue.count(s) > 0;
    return r;
  }
  const char c = s[0];
  if (!(c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'))) return r;
  std::string plain;
  for (char ch : s) {
    if (ch != '_') plain.push_back(ch);
  }
  auto parse_int = [&](const std::string& digits, int base, bool neg) {
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(digits.c_str(), &end, base);
    if (errno != 0 || *end != '\0' || v > 9223372036854775807ULL + (neg ? 1 : 0)) return false;
    r.kind = ScalarKind::kInt;
    r.i = neg ? static_cast<long long>(0 - v) : static_cast<long long>(v);
    return true;
  };
  const bool neg = plain[0] == '-';
  const std::string unsigned_part = (plain[0] == '-' || plain[0] == '+') ? plain.substr(1) : plain;
  if (IsDecimalInt(s) && parse_int(unsigned_part, 10, neg)) return r;
  if (IsPrefixedInt(s, 'x') && parse_int(unsigned_part.substr(2), 16, neg)) return r;
  if (IsPrefixedInt(s, 'b') && parse_int(unsigned_part.substr(2), 2, neg)) return r;
  if (IsOctalInt(s) && parse_int(unsigned_part.substr(1), 8, neg)) return r;
  if (IsFloat(s)) {
    r.kind = ScalarKind::kFloat;
    r.f = std::strtod(plain.c_str(), nullptr);
    return r;
  }
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF") {
    r.kind = ScalarKind::kFloat;
    r.f = HUGE_VAL;
  } else if (s == "-.inf" || s == "-.Inf" || s == "-.INF") {
    r.kind = ScalarKind::kFloat;
    r.f = -HUGE_VAL;
  } else if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    r.kind = ScalarKind::kFloat;
    r.f = NAN;
  }
  return r;
}

Status Emit(const YAML::Node& n, Writer& w, int depth);

// encoding/json prints integral float64 values below 1e21 without a fraction ("1e3" -> 1000).
void WriteGoFloat(double f, Writer& w) {
  if (f == std::floor(f) && std::fabs(f) < 1e21) {
    if (std::fabs(f) < 9.2e18) {
      w.Int64(static_cast<long long>(f));
    } else {
      char buf[64];
      const int n = std::snprintf(buf, sizeof(buf), "%.0f", f);
      w.RawValue(buf, static_cast<size_t>(n), rapidjson::kNumberType);
    }
    return;
  }
  w.Double(f);
}

// Map keys become strings, as sigs.k8s.io/yaml does for non-string keys.
StatusOr<std::string> KeyString(const YAML::Node& k) {
  if (!k.IsScalar() && !k.IsNull()) {
    return InvalidArgumentError("YAML mapping key must be a scalar" + Mark(k));
  }
  if (k.IsNull()) return std::string("null");
  const std::string& s = k.Scalar();
  if (!IsPlain(k)) return s;
  const Resolved r = ResolvePlain(s);
  switch (r.kind) {
    case ScalarKind::kNull:
      return std::string("null");
    case ScalarKind::kBool:
      return std::string(r.b ? "true" : "false");
    case ScalarKind::kInt:
      return std::to_string(r.i);
    default:
      return s;
  }
}

Status EmitMap(const YAML::Node& n, Writer& w, int depth) {
  // Collect entries first so duplicates and merge keys ("<<") are handled like go-yaml.
  std::vector<std::pair<std::string, YAML::Node>> entries;
  std::set<std::string> seen;
  std::vector<YAML::Node> merges;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (IsPlain(it->first) && it->first.IsScalar() && it->first.Scalar() == "<<") {
      merges.push_back(it->second);
      continue;
    }
    KAI_ASSIGN_OR_RETURN(std::string key, KeyString(it->first));
    if (!seen.insert(key).second) {
      return InvalidArgumentError("mapping key \"" + key + "\" already defined" + Mark(it->first));
    }
    entries.emplace_back(std::move(key), it->second);
  }
  for (const YAML::Node& m : merges) {
    std::vector<YAML::Node> sources;
    if (m.IsMap()) {
      sources.push_back(m);
    } else if (m.IsSequence()) {
      for (const auto& e : m) sources.push_back(e);
    } else {
      return InvalidArgumentError("merge key \"<<\" needs a mapping" + Mark(m));
    }
    for (const YAML::Node& src : sources) {
      if (!src.IsMap()) return InvalidArgumentError("merge key \"<<\" needs a mapping" + Mark(src));
      for (auto it = src.begin(); it != src.end(); ++it) {
        KAI_ASSIGN_OR_RETURN(std::string key, KeyString(it->first));
        if (seen.insert(key).second) entries.emplace_back(std::move(key), it->second);
      }
    }
  }
  w.StartObject();
  for (const auto& [key, value] : entries) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    KAI_RETURN_IF_ERROR(Emit(value, w, depth + 1));
  }
  w.EndObject();
  return Status::OK();
}

Status Emit(const YAML::Node& n, Writer& w, int depth) {
  if (depth > 200) return InvalidArgumentError("YAML nesting deeper than 200 levels" + Mark(n));
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      w.Null();
      return Status::OK();
    case YAML::NodeType::Sequence:
      w.StartArray();
      for (const auto& e : n) KAI_RETURN_IF_ERROR(Emit(e, w, depth + 1));
      w.EndArray();
      return Status::OK();
    case YAML::NodeType::Map:
      return EmitMap(n, w, depth);
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& s = n.Scalar();
  const std::string& tag = n.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str") {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return Status::OK();
  }
  const Resolved r = ResolvePlain(s);
  switch (r.kind) {
    case ScalarKind::kNull:
      w.Null();
      break;
    case ScalarKind::kBool:
      w.Bool(r.b);
      break;
    case ScalarKind::kInt:
      w.Int64(r.i);
      break;
    case ScalarKind::kFloat:
      if (!std::isfinite(r.f)) {
        return InvalidArgumentError("value \"" + s + "\" cannot be represented in JSON" + Mark(n));
      }
      WriteGoFloat(r.f, w);
      break;
    case ScalarKind::kString:
      w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
      break;
  }
  return Status::OK();
}

StatusOr<std::string> NodeToJson(const YAML::Node& n) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  KAI_RETURN_IF_ERROR(Emit(n, w, 0));
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

StatusOr<std::vector<std::string>> YamlToJsonDocuments(std::string_view yaml) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(yaml));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for it is "bad file".
    return InvalidArgumentError("invalid YAML: nested more deeply than the reader allows (" +
                                std::to_string(e.depth()) + " levels) at line " +
                                std::to_string(e.mark.line + 1) + ", column " +
                                std::to_string(e.mark.column + 1));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string("invalid YAML: ") + e.what());
  } catch (const std::exception& e) {
    return InvalidArgumentError(std::string("invalid YAML: ") + e.what());
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].IsNull() || !docs[i].IsDefined()) continue;
    StatusOr<std::string> json;
    try {
      json = NodeToJson(docs[i]);
    } catch (const YAML::Exception& e) {
      return InvalidArgumentError("YAML document " + std::to_string(i + 1) + ": " + e.what());
    }
    if (!json.ok()) {
      return json.status().WithPrefix("YAML document " + std::to_string(i + 1));
    }
    out.push_back(std::move(*json));
  }
  return out;
}

StatusOr<std::string> YamlToJson(std::string_view yaml) {
  KAI_ASSIGN_OR_RETURN(std::vector<std::string> docs, YamlToJsonDocuments(yaml));
  if (docs.size() != 1) {
    return InvalidArgumentError("expected exactly one YAML document, found " +
                                std::to_string(docs.size()));
  }
  return std::move(docs[0]);
}

}  // namespace kai::api
