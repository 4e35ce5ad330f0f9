// Value validation of custom resources with the API server's semantics and error texts:
// kube-openapi pkg/validation/validate (SchemaValidator and its type, schemaProps, string, format,
// number, slice, common and object validators), converted to field errors the way
// apiextensions-apiserver/pkg/apiserver/validation/validation.go does; then embedded-resource
// metadata (schema/objectmeta/validation.go) and list types (schema/listtype/validation.go).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "api/schema/go_format.h"
#include "api/schema/names.h"
#include "api/schema/structural_schema.h"
#include "api/validation.h"
#include "kube/base/strings.h"

namespace kai::api::schema {
namespace {

std::string_view Str(const JsonValue& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

// swag.IsFloat64AJSONInteger: an integral value that a JSON number can carry exactly.
bool IsJsonInteger(double f) {
  if (std::isnan(f) || std::isinf(f)) return false;
  constexpr double kMax = 9007199254740992.0;  // 2^53
  if (f < -kMax || f > kMax) return false;
  return f == std::trunc(f);
}

// Go's int64(f) for a float64 bound (truncation toward zero; saturating out of range).
int64_t GoInt64(double f) {
  if (std::isnan(f)) return std::numeric_limits<int64_t>::min();
  if (f >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (f <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

// json.Marshal of an enum value that is not a string (for NotSupported's list).
std::string JsonMarshal(const JsonValue& v);

void AppendCanonicalJson(const JsonValue& v, std::string* out, int depth) {
  if (depth > kMaxJsonDepth) return;
  if (v.IsObject()) {
    std::vector<std::pair<std::string_view, const JsonValue*>> m;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it)
      m.emplace_back(MemberKey(*it), &it->value);
    std::sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out->push_back('{');
    for (size_t i = 0; i < m.size(); ++i) {
      if (i > 0) out->push_back(',');
      out->append(GoQuote(m[i].first));
      out->push_back(':');
      AppendCanonicalJson(*m[i].second, out, depth + 1);
    }
    out->push_back('}');
  } else if (v.IsArray()) {
    out->push_back('[');
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendCanonicalJson(v[i], out, depth + 1);
    }
    out->push_back(']');
  } else if (v.IsNumber() && !v.IsInt64()) {
    double d = v.GetDouble();
    if (IsJsonInteger(d) && std::fabs(d) < 1e21) {
      out->append(std::to_string(static_cast<int64_t>(d)));
    } else {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof(buf), d);
      out->append(buf, r.ptr);
    }
  } else {
    out->append(GoValueString(v));
  }
}

std::string JsonMarshal(const JsonValue& v) {
  std::string out;
  AppendCanonicalJson(v, &out, 0);
  return out;
}

// Go's reflect Convert+DeepEqual used by kube-openapi's enum check.
bool EnumMatches(const JsonValue& data, const JsonValue& e) {
  if (e.IsNull()) return false;  // reflect.TypeOf(nil) is skipped
  if (e.IsString()) {
    if (data.IsString()) return Str(data) == Str(e);
    if (data.IsInt64()) {
      // An int64 converts to the UTF-8 encoding of that rune.
      int64_t r = data.GetInt64();
      uint32_t cp = (r < 0 || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF))
                        ? 0xFFFD
                        : static_cast<uint32_t>(r);
      std::string u;
      if (cp < 0x80) {
        u.push_back(static_cast<char>(cp));
      } else if (cp < 0x800) {
        u.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        u.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else if (cp < 0x10000) {
        u.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        u.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        u.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else {
        u.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        u.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        u.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        u.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
      return u == Str(e);
    }
    return false;
  }
  if (e.IsInt64()) {
    if (data.IsInt64()) return data.GetInt64() == e.GetInt64();
    if (data.IsNumber()) return GoInt64(data.GetDouble()) == e.GetInt64();
    return false;
  }
  if (e.IsNumber()) {
    if (data.IsNumber()) return data.GetDouble() == e.GetDouble();
    return false;
  }
  if (e.IsBool()) return data.IsBool() && data.GetBool() == e.GetBool();
  if (e.IsObject()) return data.IsObject() && JsonDeepEqual(data, e);
  if (e.IsArray()) return data.IsArray() && JsonDeepEqual(data, e);
  return false;
}

class ValueValidator {
 public:
  ValueValidator(std::string field_prefix, FieldErrorList* errs)
      : prefix_(std::move(field_prefix)), errs_(errs) {}

  // `name` is kube-openapi's Path: "" at the root, "spec.x", "spec.list[0]".
  void Validate(const Node& s, const JsonValue& v, std::string* name, int depth) {
    if (depth > kMaxJsonDepth) return;
    if (v.IsNull()) {
      TypeCheck(s, v, *name);
      Enum(s, v, *name);
      return;
    }
    TypeCheck(s, v, *name);
    SchemaProps(s, v, name, depth);
    if (v.IsString()) {
      StringChecks(s, v, *name);
      Format(s, v, *name);
    }
    if (v.IsNumber()) Number(s, v, *name);
    if (v.IsArray()) Slice(s, v, name, depth);
    Enum(s, v, *name);
    if (v.IsObject()) Object(s, v, name, depth);
  }

 private:
  // The field path of an error named `name` (kubeOpenAPIResultToFieldErrors).
  std::string Field(const std::string& name) const {
    std::string n = name;
    if (!n.empty() && n[0] == '.') n.erase(0, 1);
    if (n.empty()) return prefix_.empty() ? "<nil>" : prefix_;
    if (prefix_.empty()) return n;
    return prefix_ + "." + n;
  }

  static bool Contains(const std::vector<std::string>& types, std::string_view t) {
    for (const auto& x : types) {
      if (x == t) return true;
    }
    return false;
  }

  void TypeInvalid(const std::string& name, const std::string& type, const std::string& got) {
    errs_->push_back(
        TypeInvalidError(Field(name), GoQuote(got),
                         name + " in body must be of type " + type + ": " + GoQuote(got)));
  }

  void TypeCheck(const Node& s, const JsonValue& v, const std::string& name) {
    const std::vector<std::string>& types = s.types;
    const std::string& format = s.effective_format;
    if (types.empty() && format.empty()) return;
    if (v.IsNull()) {
      if (!types.empty() && !Contains(types, "null") && !s.nullable) {
        TypeInvalid(name, s.types_joined, "null");
      }
      return;
    }
    std::string sch_type(JsonTypeName(v));
    std::string data_format = v.IsInt64() ? "int64" : (v.IsNumber() ? "float64" : "");
    bool is_float_int =
        sch_type == "number" && IsJsonInteger(v.GetDouble()) && Contains(types, "integer");
    bool is_int_float = sch_type == "integer" && Contains(types, "number");
    bool string_or_slice = v.IsString() || v.IsArray();
    if (!string_or_slice && !format.empty() &&
        !(Contains(types, sch_type) || data_format == format || is_float_int || is_int_float)) {
      TypeInvalid(name, format, data_format);
      return;
    }
    if (!(Contains(types, "number") || Contains(types, "integer")) && !format.empty() &&
        string_or_slice) {
      return;
    }
    if (!(Contains(types, sch_type) || is_float_int || is_int_float)) {
      TypeInvalid(name, s.types_joined, sch_type);
    }
  }

  // allOf / anyOf / oneOf / not. The best failing alternative is the one with the fewest errors
  // (kube-openapi ranks by a match counter; for the int-or-string pattern both agree).
  void SchemaProps(const Node& s, const JsonValue& v, std::string* name, int depth) {
    if (s.any_of.empty() && s.one_of.empty() && s.all_of.empty() && !s.not_schema) return;
    auto run = [&](const Node& n) {
      FieldErrorList sub;
      ValueValidator vv(prefix_, &sub);
      vv.Validate(n, v, name, depth + 1);
      return sub;
    };
    std::string quoted = GoQuote(*name);
    if (!s.any_of.empty()) {
      bool ok = false;
      std::optional<FieldErrorList> best;
      for (const Node& n : s.any_of) {
        FieldErrorList r = run(n);
        if (r.empty()) {
          ok = true;
          best.reset();
          break;
        }
        if (!best || r.size() < best->size()) best = std::move(r);
      }
      if (!ok) {
        errs_->push_back(
            InvalidError("<nil>", "\"\"", quoted + " must validate at least one schema (anyOf)"));
      }
      if (best) errs_->insert(errs_->end(), best->begin(), best->end());
    }
    if (!s.one_of.empty()) {
      int valid = 0;
      std::optional<FieldErrorList> best;
      for (const Node& n : s.one_of) {
        FieldErrorList r = run(n);
        if (r.empty()) {
          ++valid;
          best.reset();
          continue;
        }
        if (valid == 0 && (!best || r.size() < best->size())) best = std::move(r);
      }
      if (valid != 1) {
        std::string more = valid == 0 ? "Found none valid"
                                      : "Found " + std::to_string(valid) + " valid alternatives";
        errs_->push_back(InvalidError(
            "<nil>", "\"\"", quoted + " must validate one and only one schema (oneOf). " + more));
        if (best) errs_->insert(errs_->end(), best->begin(), best->end());
      }
    }
    if (!s.all_of.empty()) {
      size_t valid = 0;
      for (const Node& n : s.all_of) {
        FieldErrorList r = run(n);
        if (r.empty()) ++valid;
        errs_->insert(errs_->end(), r.begin(), r.end());
      }
      if (valid != s.all_of.size()) {
        errs_->push_back(InvalidError("<nil>", "\"\"",
                                      quoted + " must validate all the schemas (allOf)" +
                                          (valid == 0 ? ". None validated" : "")));
      }
    }
    if (s.not_schema) {
      if (run(*s.not_schema).empty()) {
        errs_->push_back(
            InvalidError("<nil>", "\"\"", quoted + " must not validate the schema (not)"));
      }
    }
  }

  void StringChecks(const Node& s, const JsonValue& v, const std::string& name) {
    std::string_view str = Str(v);
    if (s.max_length || s.min_length) {
      int64_t runes = 0;
      for (unsigned char c : str) {
        if ((c & 0xC0) != 0x80) ++runes;  // approximates utf8.RuneCount for valid UTF-8
      }
      if (s.max_length && runes > *s.max_length) {
        errs_->push_back(TooLongError(Field(name), *s.max_length));
        return;
      }
      if (s.min_length && runes < *s.min_length) {
        errs_->push_back(InvalidError(
            Field(name), GoQuote(str),
            name + " in body should be at least " + std::to_string(*s.min_length) + " chars long"));
        return;
      }
    }
    if (!s.pattern.empty()) {
      if (!s.pattern_re) {
        errs_->push_back(InvalidError(Field(name), GoQuote(str),
                                      name + " in body should match '" + s.pattern +
                                          ", but pattern is invalid: " + s.pattern_error + "'"));
      } else if (!std::regex_search(str.begin(), str.end(), *s.pattern_re)) {
        errs_->push_back(InvalidError(Field(name), GoQuote(str),
                                      name + " in body should match '" + s.pattern + "'"));
      }
    }
  }

  void Format(const Node& s, const JsonValue& v, const std::string& name) {
    if (s.effective_format.empty()) return;
    std::string_view str = Str(v);
    if (!ValidateStringFormat(s.effective_format, str)) {
      errs_->push_back(TypeInvalidError(
          Field(name), GoQuote(str),
          name + " in body must be of type " + s.effective_format + ": " + GoQuote(str)));
    }
  }

  void Number(const Node& s, const JsonValue& v, const std::string& name) {
    bool is_int = v.IsInt64();
    if (!s.multiple_of && !s.minimum && !s.maximum) return;
    const std::string value = GoValueString(v);
    if (s.multiple_of) {
      double factor = *s.multiple_of;
      if (factor < 0) {
        errs_->push_back(
            InvalidError(Field(name), value,
                         "factor MultipleOf declared for " + name + " must be positive: " +
                             (is_int ? std::to_string(GoInt64(factor)) : GoFormatFloat(factor))));
      } else if (is_int && GoInt64(factor) != 0) {
        int64_t f = GoInt64(factor);
        int64_t d = v.GetInt64();
        if (d % f != 0) {
          errs_->push_back(InvalidError(
              Field(name), value, name + " in body should be a multiple of " + std::to_string(f)));
        }
      } else {
        double d = v.GetDouble();
        double mult = factor < 1 ? 1 / factor * d : d / factor;
        if (!IsJsonInteger(mult)) {
          errs_->push_back(
              InvalidError(Field(name), value,
                           name + " in body should be a multiple of " + GoFormatFloat(factor)));
        }
      }
    }
    if (s.minimum) {
      bool fail;
      std::string bound;
      if (is_int) {
        int64_t m = GoInt64(*s.minimum);
        int64_t d = v.GetInt64();
        fail = s.exclusive_minimum ? d <= m : d < m;
        bound = std::to_string(m);
      } else {
        double d = v.GetDouble();
        fail = s.exclusive_minimum ? d <= *s.minimum : d < *s.minimum;
        bound = GoFormatFloat(*s.minimum);
      }
      if (fail) {
        errs_->push_back(InvalidError(Field(name), value,
                                      name + " in body should be greater than " +
                                          (s.exclusive_minimum ? "" : "or equal to ") + bound));
      }
    }
    if (s.maximum) {
      bool fail;
      std::string bound;
      if (is_int) {
        int64_t m = GoInt64(*s.maximum);
        int64_t d = v.GetInt64();
        fail = s.exclusive_maximum ? d >= m : d > m;
        bound = std::to_string(m);
      } else {
        double d = v.GetDouble();
        fail = s.exclusive_maximum ? d >= *s.maximum : d > *s.maximum;
        bound = GoFormatFloat(*s.maximum);
      }
      if (fail) {
        errs_->push_back(InvalidError(Field(name), value,
                                      name + " in body should be less than " +
                                          (s.exclusive_maximum ? "" : "or equal to ") + bound));
      }
    }
  }

  void Slice(const Node& s, const JsonValue& v, std::string* name, int depth) {
    size_t len = name->size();
    if (s.items) {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        *name += "[" + std::to_string(i) + "]";
        Validate(*s.items, v[i], name, depth + 1);
        name->resize(len);
      }
    }
    int64_t size = v.Size();
    if (s.min_items && size < *s.min_items) {
      errs_->push_back(InvalidError(
          Field(*name), std::to_string(size),
          *name + " in body should have at least " + std::to_string(*s.min_items) + " items"));
    }
    if (s.max_items && size > *s.max_items) {
      errs_->push_back(TooManyError(Field(*name), size, *s.max_items));
    }
    if (s.unique_items) {
      for (rapidjson::SizeType i = 1; i < v.Size(); ++i) {
        bool dup = false;
        for (rapidjson::SizeType j = 0; j < i && !dup; ++j) dup = JsonDeepEqual(v[i], v[j]);
        if (dup) {
          errs_->push_back(
              InvalidError(Field(*name), "\"\"", *name + " in body shouldn't contain duplicates"));
          break;
        }
      }
    }
  }

  void Enum(const Node& s, const JsonValue& v, const std::string& name) {
    if (!s.has_enum || s.enum_values.empty()) return;
    if (!v.IsNull()) {
      for (const JsonValue* e : s.enum_values) {
        if (EnumMatches(v, *e)) return;
      }
    }
    std::vector<std::string> supported;
    for (const JsonValue* e : s.enum_values) {
      supported.push_back(e->IsString() ? std::string(Str(*e)) : JsonMarshal(*e));
    }
    errs_->push_back(NotSupportedError(Field(name), GoValueString(v), supported));
  }

  void Object(const Node& s, const JsonValue& v, std::string* name, int depth) {
    int64_t n = v.MemberCount();
    if (s.min_properties && n < *s.min_properties) {
      errs_->push_back(InvalidError(Field(*name), std::to_string(n),
                                    *name + " in body should have at least " +
                                        std::to_string(*s.min_properties) + " properties"));
      return;
    }
    if (s.max_properties && n > *s.max_properties) {
      errs_->push_back(TooManyError(Field(*name), n, *s.max_properties));
      return;
    }
    size_t len = name->size();
    if (s.has_additional_properties && !s.additional_properties_allows) {
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        if (s.FindProperty(MemberKey(*it)) == nullptr) {
          errs_->push_back(InvalidError(
              Field(*name), GoQuote(MemberKey(*it)),
              *name + "." + std::string(MemberKey(*it)) + " in body is a forbidden property"));
        }
      }
    } else if (s.additional_properties) {
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        if (s.FindProperty(MemberKey(*it)) != nullptr) continue;
        *name += ".";
        name->append(MemberKey(*it));
        Validate(*s.additional_properties, it->value, name, depth + 1);
        name->resize(len);
      }
    }
    for (const Property& prop : s.properties) {
      auto it = v.FindMember(rapidjson::StringRef(
          prop.name.data(), static_cast<rapidjson::SizeType>(prop.name.size())));
      if (it == v.MemberEnd()) continue;
      if (!name->empty()) *name += ".";
      *name += prop.name;
      Validate(*prop.node, it->value, name, depth + 1);
      name->resize(len);
    }
    for (const std::string& r : s.required) {
      if (!v.HasMember(
              rapidjson::StringRef(r.data(), static_cast<rapidjson::SizeType>(r.size())))) {
        errs_->push_back(RequiredError(Field(*name + "." + r)));
      }
    }
  }

  std::string prefix_;
  FieldErrorList* errs_;
};

// ---- Embedded resources (objectmeta.Validate) ----

void ValidateEmbeddedMeta(const JsonValue& meta, const std::string& path, FieldErrorList* errs) {
  if (!meta.IsObject()) return;
  std::string name, ns;
  bool has_name = false;
  auto str = [&](const char* k) -> std::string {
    auto it = meta.FindMember(k);
    if (it == meta.MemberEnd() || !it->value.IsString()) return "";
    return std::string(Str(it->value));
  };
  name = str("name");
  has_name = !name.empty();
  ns = str("namespace");
  std::string generate_name = str("generateName");
  if (!has_name) name = "fakename";  // as the API server does for embedded objects
  if (!generate_name.empty()) {
    for (const std::string& e : ValidatePathSegmentName(generate_name, true)) {
      errs->push_back(InvalidError(path + ".generateName", GoQuote(generate_name), e));
    }
  }
  for (const std::string& e : ValidatePathSegmentName(name, false)) {
    errs->push_back(InvalidError(path + ".name", GoQuote(name), e));
  }
  if (!ns.empty()) {
    for (const std::string& e : IsDns1123Label(ns)) {
      errs->push_back(InvalidError(path + ".namespace", GoQuote(ns), e));
    }
  }
  auto labels = meta.FindMember("labels");
  if (labels != meta.MemberEnd() && labels->value.IsObject()) {
    for (auto it = labels->value.MemberBegin(); it != labels->value.MemberEnd(); ++it) {
      for (const std::string& e : IsQualifiedName(MemberKey(*it))) {
        errs->push_back(InvalidError(path + ".labels", GoQuote(MemberKey(*it)), e));
      }
      if (it->value.IsString()) {
        for (const std::string& e : IsValidLabelValue(Str(it->value))) {
          errs->push_back(InvalidError(path + ".labels", GoQuote(Str(it->value)), e));
        }
      }
    }
  }
  auto annotations = meta.FindMember("annotations");
  if (annotations != meta.MemberEnd() && annotations->value.IsObject()) {
    size_t total = 0;
    for (auto it = annotations->value.MemberBegin(); it != annotations->value.MemberEnd(); ++it) {
      for (const std::string& e : IsQualifiedName(AsciiToLower(MemberKey(*it)))) {
        errs->push_back(InvalidError(path + ".annotations", GoQuote(MemberKey(*it)), e));
      }
      total += it->name.GetStringLength();
      if (it->value.IsString()) total += it->value.GetStringLength();
    }
    if (total > 256 * 1024) {
      errs->push_back(TooLongError(path + ".annotations", 256 * 1024));
    }
  }
}

void ValidateEmbedded(const Node* s, const JsonValue& x, const std::string& path,
                      FieldErrorList* errs, int depth) {
  if (s == nullptr || depth > kMaxJsonDepth) return;
  if (x.IsObject()) {
    if (s->embedded_resource) {
      if (!x.HasMember("apiVersion")) errs->push_back(RequiredError(path + ".apiVersion"));
      if (!x.HasMember("kind")) errs->push_back(RequiredError(path + ".kind"));
      for (auto it = x.MemberBegin(); it != x.MemberEnd(); ++it) {
        std::string_view k = MemberKey(*it);
        const JsonValue& v = it->value;
        if (k == "apiVersion") {
          if (!v.IsString()) {
            errs->push_back(
                InvalidError(path + ".apiVersion", GoValueString(v), "must be a string"));
          } else if (v.GetStringLength() == 0) {
            errs->push_back(RequiredError(path + ".apiVersion"));
          } else {
            std::string_view gv = Str(v);
            size_t slash = gv.find('/');
            if (slash != std::string_view::npos &&
                gv.find('/', slash + 1) != std::string_view::npos) {
              errs->push_back(InvalidError(path + ".apiVersion", GoQuote(gv),
                                           "unexpected GroupVersion string: " + std::string(gv)));
            }
          }
        } else if (k == "kind") {
          if (!v.IsString()) {
            errs->push_back(InvalidError(path + ".kind", GoValueString(v), "must be a string"));
          } else if (v.GetStringLength() == 0) {
            errs->push_back(RequiredError(path + ".kind"));
          } else {
            auto problems = IsDns1035Label(AsciiToLower(Str(v)));
            if (!problems.empty()) {
              std::string joined;
              for (size_t i = 0; i < problems.size(); ++i) {
                if (i > 0) joined += ",";
                joined += problems[i];
              }
              errs->push_back(
                  InvalidError(path + ".kind", GoQuote(Str(v)),
                               "may have mixed case, but should otherwise match: " + joined));
            }
          }
        } else if (k == "metadata") {
          ValidateEmbeddedMeta(v, path + ".metadata", errs);
        }
      }
    }
    for (auto it = x.MemberBegin(); it != x.MemberEnd(); ++it) {
      std::string_view k = MemberKey(*it);
      if (const Node* p = s->FindProperty(k)) {
        ValidateEmbedded(p, it->value, path.empty() ? std::string(k) : path + "." + std::string(k),
                         errs, depth + 1);
      } else if (s->additional_properties) {
        ValidateEmbedded(s->additional_properties.get(), it->value,
                         path + "[" + std::string(k) + "]", errs, depth + 1);
      }
    }
  } else if (x.IsArray()) {
    for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
      ValidateEmbedded(s->items.get(), x[i], path + "[" + std::to_string(i) + "]", errs, depth + 1);
    }
  }
}

// ---- x-kubernetes-list-type set/map (listtype.ValidateListSetsAndMaps) ----

// A Go map key for set uniqueness: scalars compare with their dynamic type, compounds by their
// JSON encoding.
std::string SetKey(const JsonValue& v) {
  if (v.IsObject() || v.IsArray()) return "c" + JsonMarshal(v);
  if (v.IsNull()) return "n";
  if (v.IsString()) return "s" + std::string(Str(v));
  if (v.IsBool()) return v.GetBool() ? "bt" : "bf";
  if (v.IsInt64()) return "i" + std::to_string(v.GetInt64());
  return "f" + JsonMarshal(v);
}

std::vector<size_t> NonUnique(const std::vector<std::string>& keys) {
  std::map<std::string, int> seen;
  std::vector<size_t> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    int& times = seen[keys[i]];
    ++times;
    if (times == 2) out.push_back(i);
  }
  return out;
}

void ListTypes(const Node* s, const JsonValue& x, const std::string& path, FieldErrorList* errs,
               int depth);

void ListTypesArray(const Node* s, const JsonValue& x, const std::string& path,
                    FieldErrorList* errs, int depth) {
  auto idx = [&](size_t i) { return path + "[" + std::to_string(i) + "]"; };
  if (s->list_type && *s->list_type == "set" && x.Size() > 1) {
    std::vector<std::string> keys;
    for (const auto& e : x.GetArray()) keys.push_back(SetKey(e));
    for (size_t i : NonUnique(keys)) {
      errs->push_back(
          DuplicateError(idx(i), GoValueString(x[static_cast<rapidjson::SizeType>(i)])));
    }
  } else if (s->list_type && *s->list_type == "map") {
    bool ok = true;
    for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
      if (!x[i].IsNull() && !x[i].IsObject()) {
        errs->push_back(InvalidError(idx(i), GoValueString(x[i]),
                                     "must be an object for an array of list-type map"));
        ok = false;
        break;
      }
    }
    if (ok && x.Size() > 1) {
      std::vector<std::string> keys;
      std::vector<std::string> rendered;
      for (const auto& e : x.GetArray()) {
        // The key map of an item: its present key fields, printed by Go with sorted keys.
        std::vector<std::pair<std::string, const JsonValue*>> present;
        if (e.IsObject()) {
          for (const std::string& k : s->list_map_keys) {
            auto it = e.FindMember(
                rapidjson::StringRef(k.data(), static_cast<rapidjson::SizeType>(k.size())));
            if (it != e.MemberEnd()) present.emplace_back(k, &it->value);
          }
        }
        std::sort(present.begin(), present.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        std::string key = "{";
        std::string shown = "map[string]interface {}{";
        for (size_t k = 0; k < present.size(); ++k) {
          key += GoQuote(present[k].first) + ":" + SetKey(*present[k].second) + ";";
          if (k > 0) shown += ", ";
          shown += GoQuote(present[k].first) + ":" + GoSharpV(*present[k].second);
        }
        keys.push_back(key + "}");
        rendered.push_back(shown + "}");
      }
      for (size_t i : NonUnique(keys)) errs->push_back(DuplicateError(idx(i), rendered[i]));
    }
  }
  if (s->items) {
    for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
      ListTypes(s->items.get(), x[i], idx(i), errs, depth + 1);
    }
  }
}

void ListTypes(const Node* s, const JsonValue& x, const std::string& path, FieldErrorList* errs,
               int depth) {
  if (s == nullptr || depth > kMaxJsonDepth) return;
  if (x.IsArray()) {
    ListTypesArray(s, x, path, errs, depth);
  } else if (x.IsObject()) {
    for (auto it = x.MemberBegin(); it != x.MemberEnd(); ++it) {
      std::string_view k = MemberKey(*it);
      if (const Node* p = s->FindProperty(k)) {
        ListTypes(p, it->value, path.empty() ? std::string(k) : path + "." + std::string(k), errs,
                  depth + 1);
      } else if (s->additional_properties) {
        ListTypes(s->additional_properties.get(), it->value, path + "[" + std::string(k) + "]",
                  errs, depth + 1);
      }
    }
  }
}

}  // namespace

void StructuralSchema::ValidateValue(const Node& node, const JsonValue& value,
                                     const std::string& name, const std::string& field_prefix,
                                     FieldErrorList* errors) {
  ValueValidator v(field_prefix, errors);
  std::string n = name;
  v.Validate(node, value, &n, 0);
}

FieldErrorList StructuralSchema::Validate(const JsonValue& obj) const {
  FieldErrorList errs;
  ValidateValue(*root_, obj, "", "", &errs);
  // Embedded resources below the root, then list types.
  if (obj.IsObject()) {
    for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
      std::string_view k = MemberKey(*it);
      if (const Node* p = root_->FindProperty(k)) {
        ValidateEmbedded(p, it->value, std::string(k), &errs, 1);
      }
    }
    ListTypes(root_.get(), obj, "", &errs, 0);
  }
  return errs;
}

}  // namespace kai::api::schema
