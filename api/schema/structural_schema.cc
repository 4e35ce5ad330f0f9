// Compiling a JSONSchemaProps object into Nodes, and the Go-style rendering of JSON values.
#include "api/schema/structural_schema.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "api/schema/go_format.h"

namespace kai::api::schema {
namespace {

constexpr int kMaxSchemaDepth = 256;
constexpr int kMaxValueDepth = 512;

// Formats supported by CRD schemas at Kubernetes 1.0 compatibility (apiextensions
// validation/formats.go), normalized without dashes as go-openapi does.
bool IsSupportedStringFormat(std::string_view format) {
  static const std::set<std::string, std::less<>>* const kFormats =
      new std::set<std::string, std::less<>>{
          "bsonobjectid", "uri",        "email",    "hostname", "ipv4",     "ipv6", "cidr",
          "mac",          "uuid",       "uuid3",    "uuid4",    "uuid5",    "isbn", "isbn10",
          "isbn13",       "creditcard", "ssn",      "hexcolor", "rgbcolor", "byte", "password",
          "date",         "duration",   "datetime", "quantity"};
  std::string normalized;
  for (char c : format) {
    if (c != '-') normalized.push_back(c);
  }
  return kFormats->count(normalized) > 0;
}

std::string EffectiveFormat(const std::string& type, const std::string& format) {
  if (format.empty()) return "";
  if (type.empty() || type == "string") return IsSupportedStringFormat(format) ? format : "";
  if (type == "integer") return format == "int32" || format == "int64" ? format : "";
  if (type == "number") return format == "float" || format == "double" ? format : "";
  return "";
}

class Compiler {
 public:
  Status Compile(const JsonValue& v, const std::string& path, int depth, Node* out) {
    if (depth > kMaxSchemaDepth) {
      return Bad(path, "schema is nested more than " + std::to_string(kMaxSchemaDepth) + " levels");
    }
    if (!v.IsObject()) {
      return Decode(path, v, "JSONSchemaProps", "object");
    }
    out->raw = &v;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      std::string_view key(it->name.GetString(), it->name.GetStringLength());
      const JsonValue& val = it->value;
      std::string kpath = path.empty() ? std::string(key) : path + "." + std::string(key);
      if (val.IsNull() && key != "default" && key != "example") continue;  // Go: zero value
      if (key == "type") {
        KAI_RETURN_IF_ERROR(String(val, kpath, &out->type));
      } else if (key == "format") {
        KAI_RETURN_IF_ERROR(String(val, kpath, &out->format));
      } else if (key == "title") {
        KAI_RETURN_IF_ERROR(String(val, kpath, &out->title));
      } else if (key == "description") {
        KAI_RETURN_IF_ERROR(String(val, kpath, &out->description));
      } else if (key == "id") {
        std::string s;
        KAI_RETURN_IF_ERROR(String(val, kpath, &s));
        out->has_id = !s.empty();
      } else if (key == "$schema") {
        std::string s;
        KAI_RETURN_IF_ERROR(String(val, kpath, &s));
        out->has_schema_keyword = !s.empty();
      } else if (key == "$ref") {
        std::string s;
        KAI_RETURN_IF_ERROR(String(val, kpath, &s));
        out->has_ref = true;
      } else if (key == "pattern") {
        KAI_RETURN_IF_ERROR(String(val, kpath, &out->pattern));
      } else if (key == "nullable") {
        KAI_RETURN_IF_ERROR(Bool(val, kpath, &out->nullable));
      } else if (key == "exclusiveMaximum") {
        KAI_RETURN_IF_ERROR(Bool(val, kpath, &out->exclusive_maximum));
      } else if (key == "exclusiveMinimum") {
        KAI_RETURN_IF_ERROR(Bool(val, kpath, &out->exclusive_minimum));
      } else if (key == "uniqueItems") {
        KAI_RETURN_IF_ERROR(Bool(val, kpath, &out->unique_items));
      } else if (key == "x-kubernetes-embedded-resource") {
        KAI_RETURN_IF_ERROR(Bool(val, kpath, &out->embedded_resource));
      } else if (key == "x-kubernetes-int-or-string") {
        KAI_RETURN_IF_ERROR(Bool(val, kpath, &out->int_or_string));
      } else if (key == "x-kubernetes-preserve-unknown-fields") {
        bool b = false;
        KAI_RETURN_IF_ERROR(Bool(val, kpath, &b));
        out->preserve_unknown_fields_raw = b;
        out->preserve_unknown_fields = b;
      } else if (key == "maximum") {
        KAI_RETURN_IF_ERROR(Number(val, kpath, &out->maximum));
      } else if (key == "minimum") {
        KAI_RETURN_IF_ERROR(Number(val, kpath, &out->minimum));
      } else if (key == "multipleOf") {
        KAI_RETURN_IF_ERROR(Number(val, kpath, &out->multiple_of));
      } else if (key == "maxLength") {
        KAI_RETURN_IF_ERROR(Int(val, kpath, &out->max_length));
      } else if (key == "minLength") {
        KAI_RETURN_IF_ERROR(Int(val, kpath, &out->min_length));
      } else if (key == "maxItems") {
        KAI_RETURN_IF_ERROR(Int(val, kpath, &out->max_items));
      } else if (key == "minItems") {
        KAI_RETURN_IF_ERROR(Int(val, kpath, &out->min_items));
      } else if (key == "maxProperties") {
        KAI_RETURN_IF_ERROR(Int(val, kpath, &out->max_properties));
      } else if (key == "minProperties") {
        KAI_RETURN_IF_ERROR(Int(val, kpath, &out->min_properties));
      } else if (key == "default") {
        out->default_value = &val;
      } else if (key == "example") {
        out->has_example = true;
      } else if (key == "externalDocs") {
        if (!val.IsObject()) return Decode(kpath, val, "ExternalDocumentation", "object");
        out->has_external_docs = true;
      } else if (key == "enum") {
        if (!val.IsArray()) return Decode(kpath, val, "[]JSON", "array");
        out->has_enum = true;
        for (const JsonValue& e : val.GetArray()) out->enum_values.push_back(&e);
      } else if (key == "required") {
        KAI_RETURN_IF_ERROR(Strings(val, kpath, &out->required));
      } else if (key == "x-kubernetes-list-map-keys") {
        KAI_RETURN_IF_ERROR(Strings(val, kpath, &out->list_map_keys));
      } else if (key == "x-kubernetes-list-type") {
        std::string s;
        KAI_RETURN_IF_ERROR(String(val, kpath, &s));
        out->list_type = s;
      } else if (key == "x-kubernetes-map-type") {
        std::string s;
        KAI_RETURN_IF_ERROR(String(val, kpath, &s));
        out->map_type = s;
      } else if (key == "x-kubernetes-validations") {
        if (!val.IsArray()) return Decode(kpath, val, "ValidationRules", "array");
        out->x_validations = val.Size();
      } else if (key == "items") {
        if (val.IsArray()) {
          out->items_is_array = true;
        } else {
          out->items = std::make_unique<Node>();
          KAI_RETURN_IF_ERROR(Compile(val, kpath, depth + 1, out->items.get()));
        }
      } else if (key == "not") {
        out->not_schema = std::make_unique<Node>();
        KAI_RETURN_IF_ERROR(Compile(val, kpath, depth + 1, out->not_schema.get()));
      } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
        if (!val.IsArray()) return Decode(kpath, val, "[]JSONSchemaProps", "array");
        std::vector<Node>* list = key == "allOf"   ? &out->all_of
                                  : key == "anyOf" ? &out->any_of
                                                   : &out->one_of;
        list->resize(val.Size());
        for (rapidjson::SizeType i = 0; i < val.Size(); ++i) {
          KAI_RETURN_IF_ERROR(
              Compile(val[i], kpath + "[" + std::to_string(i) + "]", depth + 1, &(*list)[i]));
        }
      } else if (key == "properties") {
        if (!val.IsObject()) return Decode(kpath, val, "map[string]JSONSchemaProps", "object");
        for (auto p = val.MemberBegin(); p != val.MemberEnd(); ++p) {
          Property prop;
          prop.name.assign(p->name.GetString(), p->name.GetStringLength());
          prop.node = std::make_unique<Node>();
          KAI_RETURN_IF_ERROR(
              Compile(p->value, kpath + "[" + prop.name + "]", depth + 1, prop.node.get()));
          out->properties.push_back(std::move(prop));
        }
        std::stable_sort(out->properties.begin(), out->properties.end(),
                         [](const Property& a, const Property& b) { return a.name < b.name; });
        // A duplicated JSON key: Go's decoder keeps the last one.
        for (size_t i = 0; i + 1 < out->properties.size();) {
          if (out->properties[i].name == out->properties[i + 1].name) {
            out->properties.erase(out->properties.begin() + static_cast<long>(i));
          } else {
            ++i;
          }
        }
      } else if (key == "additionalProperties") {
        out->has_additional_properties = true;
        if (val.IsBool()) {
          out->additional_properties_allows = val.GetBool();
        } else if (val.IsObject()) {
          out->additional_properties = std::make_unique<Node>();
          KAI_RETURN_IF_ERROR(Compile(val, kpath, depth + 1, out->additional_properties.get()));
        } else {
          return Decode(kpath, val, "JSONSchemaPropsOrBool", "object or boolean");
        }
      } else if (key == "additionalItems") {
        if (!val.IsBool() && !val.IsObject()) {
          return Decode(kpath, val, "JSONSchemaPropsOrBool", "object or boolean");
        }
        out->has_additional_items = true;
      } else if (key == "patternProperties") {
        if (!val.IsObject()) return Decode(kpath, val, "map[string]JSONSchemaProps", "object");
        out->has_pattern_properties = val.MemberCount() > 0;
      } else if (key == "dependencies") {
        if (!val.IsObject()) return Decode(kpath, val, "JSONSchemaDependencies", "object");
        out->has_dependencies = val.MemberCount() > 0;
      } else if (key == "definitions") {
        if (!val.IsObject()) return Decode(kpath, val, "JSONSchemaDefinitions", "object");
        out->has_definitions = val.MemberCount() > 0;
      }
      // Unknown keywords are ignored, as by the API server's decoder.
    }
    out->effective_format = EffectiveFormat(out->type, out->format);
    if (out->int_or_string) {
      out->types = {"integer", "string"};
    } else if (!out->type.empty()) {
      out->types = {out->type};
    }
    for (size_t i = 0; i < out->types.size(); ++i) {
      if (i > 0) out->types_joined += ",";
      out->types_joined += out->types[i];
    }
    if (!out->pattern.empty()) CompilePattern(out);
    return Status::OK();
  }

 private:
  // Patterns repeat a lot (every ResourceList carries the quantity pattern) and std::regex
  // construction is slow, so compiled patterns are shared process-wide.
  static void CompilePattern(Node* n) {
    struct Compiled {
      std::shared_ptr<const std::regex> re;
      std::string error;
    };
    static std::mutex* const mu = new std::mutex();
    static auto* const cache = new std::map<std::string, Compiled, std::less<>>();
    constexpr size_t kMaxCached = 4096;
    {
      std::lock_guard<std::mutex> lock(*mu);
      auto it = cache->find(n->pattern);
      if (it != cache->end()) {
        n->pattern_re = it->second.re;
        n->pattern_error = it->second.error;
        return;
      }
    }
    std::string p = n->pattern;
    auto flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
    // RE2's case-insensitive prefix, common in Go-written CRDs, has no ECMAScript spelling.
    if (p.rfind("(?i)", 0) == 0) {
      p.erase(0, 4);
      flags |= std::regex::icase;
    }
    Compiled c;
    try {
      c.re = std::make_shared<const std::regex>(p, flags);
    } catch (const std::regex_error& e) {
      c.error = e.what();
    }
    n->pattern_re = c.re;
    n->pattern_error = c.error;
    std::lock_guard<std::mutex> lock(*mu);
    if (cache->size() < kMaxCached) cache->emplace(n->pattern, std::move(c));
  }

  static Status Bad(const std::string& path, const std::string& msg) {
    Status s(StatusCode::kInvalidArgument, path + ": " + msg);
    s.SetReason("BadRequest").SetHttpCode(400);
    return s;
  }
  static Status Decode(const std::string& path, const JsonValue& v, const char* go_type,
                       const char* want) {
    return Bad(path, "json: cannot unmarshal " + std::string(GoJsonTypeName(v)) +
                         " into Go value of type " + go_type + " (want " + want + ")");
  }
  static Status String(const JsonValue& v, const std::string& path, std::string* out) {
    if (!v.IsString()) return Decode(path, v, "string", "string");
    out->assign(v.GetString(), v.GetStringLength());
    return Status::OK();
  }
  static Status Bool(const JsonValue& v, const std::string& path, bool* out) {
    if (!v.IsBool()) return Decode(path, v, "bool", "boolean");
    *out = v.GetBool();
    return Status::OK();
  }
  static Status Number(const JsonValue& v, const std::string& path, std::optional<double>* out) {
    if (!v.IsNumber()) return Decode(path, v, "float64", "number");
    *out = v.GetDouble();
    return Status::OK();
  }
  static Status Int(const JsonValue& v, const std::string& path, std::optional<int64_t>* out) {
    if (!v.IsInt64()) return Decode(path, v, "int64", "integer");
    *out = v.GetInt64();
    return Status::OK();
  }
  static Status Strings(const JsonValue& v, const std::string& path,
                        std::vector<std::string>* out) {
    if (!v.IsArray()) return Decode(path, v, "[]string", "array of strings");
    for (const JsonValue& e : v.GetArray()) {
      if (e.IsNull()) {
        out->emplace_back();
        continue;
      }
      if (!e.IsString()) return Decode(path, e, "string", "string");
      out->emplace_back(e.GetString(), e.GetStringLength());
    }
    return Status::OK();
  }
};

void AppendSharpV(const JsonValue& v, int depth, std::string* out) {
  if (depth > kMaxValueDepth) {
    *out += "...";
    return;
  }
  if (v.IsObject()) {
    std::vector<std::pair<std::string_view, const JsonValue*>> members;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      members.emplace_back(std::string_view(it->name.GetString(), it->name.GetStringLength()),
                           &it->value);
    }
    std::stable_sort(members.begin(), members.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    *out += "map[string]interface {}{";
    for (size_t i = 0; i < members.size(); ++i) {
      if (i > 0) *out += ", ";
      *out += GoQuote(members[i].first);
      *out += ':';
      AppendSharpV(*members[i].second, depth + 1, out);
    }
    *out += '}';
  } else if (v.IsArray()) {
    *out += "[]interface {}{";
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (i > 0) *out += ", ";
      AppendSharpV(v[i], depth + 1, out);
    }
    *out += '}';
  } else if (v.IsNull()) {
    *out += "interface {}(nil)";
  } else {
    *out += GoValueString(v);
  }
}

bool DeepEqual(const JsonValue& a, const JsonValue& b, int depth) {
  if (depth > kMaxValueDepth) return false;
  if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64();
  bool a_float = a.IsNumber() && !a.IsInt64();
  bool b_float = b.IsNumber() && !b.IsInt64();
  if (a_float && b_float) return a.GetDouble() == b.GetDouble();
  if (a.IsNumber() || b.IsNumber()) return false;  // int64 vs float64: different Go types
  if (a.GetType() != b.GetType()) {
    // rapidjson has distinct kTrueType/kFalseType.
    if (a.IsBool() && b.IsBool()) return a.GetBool() == b.GetBool();
    return false;
  }
  if (a.IsString()) {
    return a.GetStringLength() == b.GetStringLength() &&
           std::string_view(a.GetString(), a.GetStringLength()) ==
               std::string_view(b.GetString(), b.GetStringLength());
  }
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      if (!DeepEqual(a[i], b[i], depth + 1)) return false;
    }
    return true;
  }
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
      auto other = b.FindMember(it->name);
      if (other == b.MemberEnd() || !DeepEqual(it->value, other->value, depth + 1)) return false;
    }
    return true;
  }
  return true;  // null, or equal bools handled above
}

}  // namespace

std::string GoValueString(const JsonValue& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsString()) return GoQuote(std::string_view(v.GetString(), v.GetStringLength()));
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsNumber()) return GoFormatFloat(v.GetDouble());
  std::string out;
  AppendSharpV(v, 0, &out);
  return out;
}

std::string GoSharpV(const JsonValue& v) {
  std::string out;
  AppendSharpV(v, 0, &out);
  return out;
}

std::string_view JsonTypeName(const JsonValue& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "boolean";
  if (v.IsString()) return "string";
  if (v.IsInt64()) return "integer";
  if (v.IsNumber()) return "number";
  if (v.IsArray()) return "array";
  return "object";
}

std::string_view GoJsonTypeName(const JsonValue& v) {
  if (v.IsString()) return "string";
  if (v.IsBool()) return "bool";
  if (v.IsNumber()) return "number";
  if (v.IsArray()) return "array";
  if (v.IsObject()) return "object";
  return "null";
}

bool JsonDeepEqual(const JsonValue& a, const JsonValue& b) { return DeepEqual(a, b, 0); }

const Node* Node::FindProperty(std::string_view name) const {
  auto it = std::lower_bound(properties.begin(), properties.end(), name,
                             [](const Property& p, std::string_view n) { return p.name < n; });
  if (it == properties.end() || it->name != name) return nullptr;
  return it->node.get();
}

const Node* Node::SchemaForMember(std::string_view name, bool* known) const {
  if (const Node* p = FindProperty(name)) {
    *known = true;
    return p;
  }
  *known = has_additional_properties;
  return additional_properties.get();
}

StatusOr<std::shared_ptr<const StructuralSchema>> StructuralSchema::Compile(
    const JsonValue& schema) {
  std::shared_ptr<StructuralSchema> s(new StructuralSchema());
  s->doc_.CopyFrom(schema, s->doc_.GetAllocator());
  s->root_ = std::make_unique<Node>();
  Compiler c;
  KAI_RETURN_IF_ERROR(c.Compile(s->doc_, "", 0, s->root_.get()));
  return std::shared_ptr<const StructuralSchema>(std::move(s));
}

}  // namespace kai::api::schema
