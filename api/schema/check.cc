// CRD-time checks of an openAPIV3Schema: structural rules (apiextensions schema/validation.go,
// complete.go), supported keywords and Kubernetes extensions (apis/apiextensions/validation
// validation.go), and default values (schema/defaulting/validation.go).
#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "api/schema/go_format.h"
#include "api/schema/structural_schema.h"

namespace kai::api::schema {
namespace {

enum class Level { kRoot, kItem, kField };

bool IsIntOrStringAnyOf(const std::vector<Node>& any_of) {
  if (any_of.size() != 2) return false;
  auto only_type = [](const Node& n, const char* type) {
    // The clause must be exactly `{type: <type>}` (reflect.DeepEqual in the API server).
    return n.raw != nullptr && n.raw->IsObject() && n.raw->MemberCount() == 1 && n.type == type;
  };
  return only_type(any_of[0], "integer") && only_type(any_of[1], "string");
}

class StructuralChecker {
 public:
  explicit StructuralChecker(FieldErrorList* errs) : errs_(errs) {}

  void Invariants(const Node& s, Level lvl, const FieldPath& p) {
    if (s.type == "array" && s.items == nullptr) {
      errs_->push_back(RequiredError(p.Child("items").str(), "must be specified"));
    }
    if (s.items) Invariants(*s.items, Level::kItem, p.Child("items"));
    for (const Property& prop : s.properties) {
      Invariants(*prop.node, Level::kField, p.Child("properties").Key(prop.name));
    }
    if (s.has_additional_properties) {
      if (lvl == Level::kRoot) {
        errs_->push_back(
            ForbiddenError(p.Child("additionalProperties").str(), "must not be used at the root"));
      }
      if (s.additional_properties) {
        Invariants(*s.additional_properties, Level::kField, p.Child("additionalProperties"));
      }
    }
    // Extensions.
    if (s.int_or_string && s.preserve_unknown_fields) {
      errs_->push_back(InvalidError(p.Child("x-kubernetes-preserve-unknown-fields").str(), "true",
                                    "must be false if x-kubernetes-int-or-string is true"));
    }
    if (s.int_or_string && s.embedded_resource) {
      errs_->push_back(InvalidError(p.Child("x-kubernetes-embedded-resource").str(), "true",
                                    "must be false if x-kubernetes-int-or-string is true"));
    }
    // Value validation (anyOf/allOf/oneOf/not and the pattern).
    bool skip_any_of = IsIntOrStringAnyOf(s.any_of);
    bool skip_first_all_of_any_of = !s.all_of.empty() && IsIntOrStringAnyOf(s.all_of[0].any_of);
    ValueValidation(s, skip_any_of, skip_first_all_of_any_of, lvl, p);

    bool check_metadata = lvl == Level::kRoot || s.embedded_resource;
    if (s.embedded_resource && s.type != "object") {
      if (s.type.empty()) {
        errs_->push_back(RequiredError(p.Child("type").str(),
                                       "must be object if x-kubernetes-embedded-resource is true"));
      } else {
        errs_->push_back(InvalidError(p.Child("type").str(), GoQuote(s.type),
                                      "must be object if x-kubernetes-embedded-resource is true"));
      }
    } else if (s.type.empty() && !s.int_or_string && !s.preserve_unknown_fields) {
      const char* msg = lvl == Level::kRoot   ? "must not be empty at the root"
                        : lvl == Level::kItem ? "must not be empty for specified array items"
                                              : "must not be empty for specified object fields";
      errs_->push_back(RequiredError(p.Child("type").str(), msg));
    }
    if (s.embedded_resource && s.has_additional_properties) {
      errs_->push_back(ForbiddenError(p.Child("additionalProperties").str(),
                                      "must not be used if x-kubernetes-embedded-resource is set"));
    }
    if (lvl == Level::kRoot && !s.type.empty() && s.type != "object") {
      errs_->push_back(
          InvalidError(p.Child("type").str(), GoQuote(s.type), "must be object at the root"));
    }
    if (check_metadata) {
      for (const char* meta : {"kind", "apiVersion"}) {
        const Node* n = s.FindProperty(meta);
        if (n != nullptr && n->type != "string") {
          errs_->push_back(InvalidError(p.Child("properties").Key(meta).Child("type").str(),
                                        GoQuote(n->type), "must be string"));
        }
      }
    }
    if (const Node* meta = s.FindProperty("metadata")) {
      MetadataInvariants(*meta, check_metadata, lvl, p.Child("properties").Key("metadata"));
    }
    if (s.embedded_resource && !s.preserve_unknown_fields && s.properties.empty()) {
      errs_->push_back(RequiredError(p.Child("properties").str(),
                                     "must not be empty if x-kubernetes-embedded-resource is true "
                                     "without x-kubernetes-preserve-unknown-fields"));
    }
  }

  void Completeness(const Node& s, const FieldPath& p) {
    if (s.items) Completeness(*s.items, p.Child("items"));
    for (const Property& prop : s.properties) {
      Completeness(*prop.node, p.Child("properties").Key(prop.name));
    }
    if (s.additional_properties) {
      Completeness(*s.additional_properties, p.Child("additionalProperties"));
    }
    ValueValidationCompleteness(s, &s, p, p);
  }

 private:
  void MetadataInvariants(const Node& m, bool check_metadata, Level lvl, const FieldPath& p) {
    if (check_metadata && m.type != "object") {
      errs_->push_back(InvalidError(p.Child("type").str(), GoQuote(m.type), "must be object"));
    }
    if (lvl != Level::kRoot) return;
    // Only `type`, and properties name/generateName, may be specified for metadata at the root.
    bool ok = true;
    for (auto it = m.raw->MemberBegin(); it != m.raw->MemberEnd(); ++it) {
      std::string_view key(it->name.GetString(), it->name.GetStringLength());
      if (it->value.IsNull()) continue;
      if (key == "type" || key == "default") continue;          // cleared by the API server
      if (key == "externalDocs" || key == "example") continue;  // not kept in structural
      if (key == "properties") {
        bool only_names = true;
        for (const Property& prop : m.properties) {
          if (prop.name != "name" && prop.name != "generateName") only_names = false;
        }
        if (only_names && !m.properties.empty()) continue;
        if (m.properties.empty()) continue;
      }
      if ((key == "exclusiveMaximum" || key == "exclusiveMinimum" || key == "uniqueItems" ||
           key == "nullable" || key == "x-kubernetes-embedded-resource" ||
           key == "x-kubernetes-int-or-string") &&
          it->value.IsFalse()) {
        continue;
      }
      if ((key == "title" || key == "description" || key == "format" || key == "pattern") &&
          it->value.IsString() && it->value.GetStringLength() == 0) {
        continue;
      }
      ok = false;
    }
    if (!ok) {
      errs_->push_back(ForbiddenError(p.str(),
                                      "must not specify anything other than name and generateName, "
                                      "but metadata is implicitly specified"));
    }
  }

  void ValueValidation(const Node& v, bool skip_any_of, bool skip_first_all_of_any_of, Level lvl,
                       const FieldPath& p) {
    if (!skip_any_of) {
      for (size_t i = 0; i < v.any_of.size(); ++i) {
        Nested(v.any_of[i], false, lvl, p.Child("anyOf").Index(i));
      }
    }
    for (size_t i = 0; i < v.all_of.size(); ++i) {
      Nested(v.all_of[i], skip_first_all_of_any_of && i == 0, lvl, p.Child("allOf").Index(i));
    }
    for (size_t i = 0; i < v.one_of.size(); ++i) {
      Nested(v.one_of[i], false, lvl, p.Child("oneOf").Index(i));
    }
    if (v.not_schema) Nested(*v.not_schema, false, lvl, p.Child("not"));
    if (!v.pattern.empty() && !v.pattern_re) {
      errs_->push_back(
          InvalidError(p.Child("pattern").str(), GoQuote(v.pattern),
                       "must be a valid regular expression, but isn't: " + v.pattern_error));
    }
  }

  void Nested(const Node& v, bool skip_any_of, Level lvl, const FieldPath& p) {
    ValueValidation(v, skip_any_of, false, lvl, p);
    if (v.items) Nested(*v.items, false, lvl, p.Child("items"));
    for (const Property& prop : v.properties) {
      Nested(*prop.node, false, Level::kField, p.Child("properties").Key(prop.name));
    }
    if (!v.type.empty()) {
      errs_->push_back(ForbiddenError(p.Child("type").str(), "must be empty to be structural"));
    }
    if (v.has_additional_properties) {
      errs_->push_back(ForbiddenError(p.Child("additionalProperties").str(),
                                      "must be undefined to be structural"));
    }
    if (v.default_value != nullptr && !v.default_value->IsNull()) {
      errs_->push_back(
          ForbiddenError(p.Child("default").str(), "must be undefined to be structural"));
    }
    if (!v.title.empty()) {
      errs_->push_back(ForbiddenError(p.Child("title").str(), "must be empty to be structural"));
    }
    if (!v.description.empty()) {
      errs_->push_back(
          ForbiddenError(p.Child("description").str(), "must be empty to be structural"));
    }
    if (v.nullable) {
      errs_->push_back(ForbiddenError(p.Child("nullable").str(), "must be false to be structural"));
    }
    if (v.preserve_unknown_fields) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-preserve-unknown-fields").str(),
                                      "must be false to be structural"));
    }
    if (v.embedded_resource) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-embedded-resource").str(),
                                      "must be false to be structural"));
    }
    if (v.int_or_string) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-int-or-string").str(),
                                      "must be false to be structural"));
    }
    if (!v.list_map_keys.empty()) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-list-map-keys").str(),
                                      "must be empty to be structural"));
    }
    if (v.list_type) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-list-type").str(),
                                      "must be undefined to be structural"));
    }
    if (v.map_type) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-map-type").str(),
                                      "must be undefined to be structural"));
    }
    if (v.x_validations > 0) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-validations").str(),
                                      "must be empty to be structural"));
    }
    if (v.FindProperty("metadata") != nullptr) {
      errs_->push_back(ForbiddenError(p.Child("properties").Key("metadata").str(),
                                      "must not be specified in a nested context"));
    }
  }

  void ValueValidationCompleteness(const Node& v, const Node* s, const FieldPath& sp,
                                   const FieldPath& vp) {
    for (size_t i = 0; i < v.all_of.size(); ++i) {
      NestedCompleteness(v.all_of[i], s, sp, vp.Child("allOf").Index(i));
    }
    for (size_t i = 0; i < v.any_of.size(); ++i) {
      NestedCompleteness(v.any_of[i], s, sp, vp.Child("anyOf").Index(i));
    }
    for (size_t i = 0; i < v.one_of.size(); ++i) {
      NestedCompleteness(v.one_of[i], s, sp, vp.Child("oneOf").Index(i));
    }
    if (v.not_schema) NestedCompleteness(*v.not_schema, s, sp, vp.Child("not"));
  }

  void NestedCompleteness(const Node& v, const Node* s, const FieldPath& sp, const FieldPath& vp) {
    if (s == nullptr) {
      errs_->push_back(RequiredError(sp.str(), "because it is defined in " + vp.str()));
      return;
    }
    ValueValidationCompleteness(v, s, sp, vp);
    if (v.items) NestedCompleteness(*v.items, s->items.get(), sp.Child("items"), vp.Child("items"));
    for (const Property& prop : v.properties) {
      const Node* sf = s->FindProperty(prop.name);
      if (sf == nullptr) {
        errs_->push_back(RequiredError(
            sp.Child("properties").Key(prop.name).str(),
            "because it is defined in " + vp.Child("properties").Key(prop.name).str()));
      } else {
        NestedCompleteness(*prop.node, sf, sp.Child("properties").Key(prop.name),
                           vp.Child("properties").Key(prop.name));
      }
    }
  }

  FieldErrorList* errs_;
};

// apiextensions validation.go: ValidateCustomResourceDefinitionOpenAPISchema and
// specStandardValidatorV3.
class OpenApiChecker {
 public:
  explicit OpenApiChecker(FieldErrorList* errs) : errs_(errs) {}

  struct Ctx {
    bool allow_defaults = true;
    std::string disallow_defaults_reason;
    bool inside_resource_meta = false;
  };

  void Check(const Node& s, const FieldPath& p, const Ctx& ctx, bool is_root) {
    Standard(s, p, ctx);
    if (s.unique_items) {
      errs_->push_back(ForbiddenError(
          p.Child("uniqueItems").str(),
          "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
    }
    if (s.has_additional_properties) {
      if (!s.properties.empty() && (!s.additional_properties_allows || s.additional_properties)) {
        errs_->push_back(
            ForbiddenError(p.Child("additionalProperties").str(),
                           "additionalProperties and properties are mutual exclusive"));
      }
      if (s.additional_properties) {
        Ctx sub = ctx;
        if (ctx.inside_resource_meta) {
          sub.allow_defaults = false;
          sub.disallow_defaults_reason = "inside additionalProperties applying to object metadata";
        }
        Check(*s.additional_properties, p.Child("additionalProperties"), sub, false);
      }
    }
    for (const Property& prop : s.properties) {
      Ctx sub = ctx;
      if ((is_root || s.embedded_resource) &&
          (prop.name == "metadata" || prop.name == "kind" || prop.name == "apiVersion")) {
        sub.inside_resource_meta = true;
        if (is_root) {
          sub.allow_defaults = false;
          sub.disallow_defaults_reason = "in top-level " + prop.name;
        }
      }
      Check(*prop.node, p.Child("properties").Key(prop.name), sub, false);
    }
    if (s.not_schema) Check(*s.not_schema, p.Child("not"), ctx, false);
    for (size_t i = 0; i < s.all_of.size(); ++i) {
      Check(s.all_of[i], p.Child("allOf").Index(i), ctx, false);
    }
    for (size_t i = 0; i < s.one_of.size(); ++i) {
      Check(s.one_of[i], p.Child("oneOf").Index(i), ctx, false);
    }
    for (size_t i = 0; i < s.any_of.size(); ++i) {
      Check(s.any_of[i], p.Child("anyOf").Index(i), ctx, false);
    }
    if (s.items) Check(*s.items, p.Child("items"), ctx, false);
    if (s.preserve_unknown_fields_raw.has_value() && !*s.preserve_unknown_fields_raw) {
      errs_->push_back(InvalidError(p.Child("x-kubernetes-preserve-unknown-fields").str(), "false",
                                    "must be true or undefined"));
    }
    if (s.map_type && s.type != "object") {
      if (s.type.empty()) {
        errs_->push_back(RequiredError(p.Child("type").str(),
                                       "must be object if x-kubernetes-map-type is specified"));
      } else {
        errs_->push_back(InvalidError(p.Child("type").str(), GoQuote(s.type),
                                      "must be object if x-kubernetes-map-type is specified"));
      }
    }
    if (s.map_type && *s.map_type != "atomic" && *s.map_type != "granular") {
      errs_->push_back(NotSupportedError(p.Child("x-kubernetes-map-type").str(),
                                         GoQuote(*s.map_type), {"atomic", "granular"}));
    }
    if (s.list_type && s.type != "array") {
      if (s.type.empty()) {
        errs_->push_back(RequiredError(p.Child("type").str(),
                                       "must be array if x-kubernetes-list-type is specified"));
      } else {
        errs_->push_back(InvalidError(p.Child("type").str(), GoQuote(s.type),
                                      "must be array if x-kubernetes-list-type is specified"));
      }
    } else if (s.list_type && *s.list_type == "set" && s.items) {
      const Node& is = *s.items;
      if (is.type == "array" && is.list_type && *is.list_type != "atomic") {
        errs_->push_back(InvalidError(p.Child("items").Child("x-kubernetes-list-type").str(),
                                      GoQuote(*is.list_type),
                                      "must be atomic as item of a list with "
                                      "x-kubernetes-list-type=set"));
      } else if (is.type == "object" && (!is.map_type || *is.map_type != "atomic")) {
        errs_->push_back(InvalidError(p.Child("items").Child("x-kubernetes-map-type").str(),
                                      is.map_type ? GoQuote(*is.map_type) : "null",
                                      "must be atomic as item of a list with "
                                      "x-kubernetes-list-type=set"));
      }
    }
    if (s.list_type && *s.list_type != "atomic" && *s.list_type != "set" && *s.list_type != "map") {
      errs_->push_back(NotSupportedError(p.Child("x-kubernetes-list-type").str(),
                                         GoQuote(*s.list_type), {"atomic", "set", "map"}));
    }
    if (!s.list_map_keys.empty()) {
      if (!s.list_type) {
        errs_->push_back(RequiredError(p.Child("x-kubernetes-list-type").str(),
                                       "must be map if x-kubernetes-list-map-keys is non-empty"));
      } else if (*s.list_type != "map") {
        errs_->push_back(InvalidError(p.Child("x-kubernetes-list-type").str(),
                                      GoQuote(*s.list_type),
                                      "must be map if x-kubernetes-list-map-keys is non-empty"));
      }
    }
    if (s.list_type && *s.list_type == "map") ListMap(s, p);
    MapListKeysMapSet(s, p);
  }

 private:
  void Standard(const Node& s, const FieldPath& p, const Ctx& ctx) {
    static const std::set<std::string>* const kTypes =
        new std::set<std::string>{"array", "boolean", "integer", "number", "object", "string"};
    if (!s.type.empty() && kTypes->count(s.type) == 0) {
      errs_->push_back(NotSupportedError(p.Child("type").str(), GoQuote(s.type),
                                         {kTypes->begin(), kTypes->end()}));
    }
    if (s.default_value != nullptr && !s.default_value->IsNull() && !ctx.allow_defaults) {
      std::string detail = "must not be set";
      if (!ctx.disallow_defaults_reason.empty()) detail += " " + ctx.disallow_defaults_reason;
      errs_->push_back(ForbiddenError(p.Child("default").str(), detail));
    }
    if (s.has_id) errs_->push_back(ForbiddenError(p.Child("id").str(), "id is not supported"));
    if (s.has_additional_items) {
      errs_->push_back(
          ForbiddenError(p.Child("additionalItems").str(), "additionalItems is not supported"));
    }
    if (s.has_pattern_properties) {
      errs_->push_back(
          ForbiddenError(p.Child("patternProperties").str(), "patternProperties is not supported"));
    }
    if (s.has_definitions) {
      errs_->push_back(
          ForbiddenError(p.Child("definitions").str(), "definitions is not supported"));
    }
    if (s.has_dependencies) {
      errs_->push_back(
          ForbiddenError(p.Child("dependencies").str(), "dependencies is not supported"));
    }
    if (s.has_ref) errs_->push_back(ForbiddenError(p.Child("$ref").str(), "$ref is not supported"));
    if (s.type == "null") {
      errs_->push_back(ForbiddenError(
          p.Child("type").str(), "type cannot be set to null, use nullable as an alternative"));
    }
    if (s.items_is_array) {
      errs_->push_back(
          ForbiddenError(p.Child("items").str(), "items must be a schema object and not an array"));
    }
    if (ctx.inside_resource_meta && s.embedded_resource) {
      errs_->push_back(ForbiddenError(p.Child("x-kubernetes-embedded-resource").str(),
                                      "must not be used inside of resource meta"));
    }
  }

  void ListMap(const Node& s, const FieldPath& p) {
    if (s.list_map_keys.empty()) {
      errs_->push_back(RequiredError(p.Child("x-kubernetes-list-map-keys").str(),
                                     "must not be empty if x-kubernetes-list-type is map"));
    }
    if (s.items == nullptr && !s.items_is_array) {
      errs_->push_back(RequiredError(p.Child("items").str(),
                                     "must have a schema if x-kubernetes-list-type is map"));
    }
    if (s.items_is_array) {
      errs_->push_back(InvalidError(p.Child("items").str(),
                                    GoSharpV(s.raw->FindMember("items")->value),
                                    "must only have a single schema if x-kubernetes-list-type is "
                                    "map"));
    }
    if (!s.items) return;
    if (s.items->type != "object") {
      errs_->push_back(InvalidError(p.Child("items").Child("type").str(), GoQuote(s.items->type),
                                    "must be object if parent array's x-kubernetes-list-type is "
                                    "map"));
      return;
    }
    std::set<std::string> seen;
    for (const std::string& k : s.list_map_keys) {
      if (const Node* kp = s.items->FindProperty(k)) {
        if (kp->type == "array" || kp->type == "object") {
          errs_->push_back(InvalidError(
              p.Child("items").Child("properties").Key(k).Child("type").str(),
              GoQuote(s.items->type),
              "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
      } else {
        errs_->push_back(InvalidError(p.Child("x-kubernetes-list-map-keys").str(),
                                      KeysValue(s.list_map_keys),
                                      "entries must all be names of item properties"));
      }
      if (!seen.insert(k).second) {
        errs_->push_back(InvalidError(p.Child("x-kubernetes-list-map-keys").str(),
                                      KeysValue(s.list_map_keys),
                                      "must not contain duplicate entries"));
      }
    }
  }

  void MapListKeysMapSet(const Node& s, const FieldPath& p) {
    if (!s.items || !s.list_type) return;
    if (*s.list_type != "set" && *s.list_type != "map") return;
    if (s.items->nullable) {
      errs_->push_back(
          ForbiddenError(p.Child("items").Child("nullable").str(),
                         "cannot be nullable when x-kubernetes-list-type is " + *s.list_type));
    }
    if (*s.list_type != "map") return;
    std::set<std::string> required(s.items->required.begin(), s.items->required.end());
    for (const std::string& k : s.list_map_keys) {
      const Node* kp = s.items->FindProperty(k);
      if (kp == nullptr) continue;
      if (required.count(k) == 0 && (kp->default_value == nullptr || kp->default_value->IsNull())) {
        errs_->push_back(RequiredError(
            p.Child("items").Child("properties").Key(k).Child("default").str(),
            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a "
            "required property"));
      }
      if (kp->nullable) {
        errs_->push_back(ForbiddenError(
            p.Child("items").Child("properties").Key(k).Child("nullable").str(),
            "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
      }
    }
  }

  static std::string KeysValue(const std::vector<std::string>& keys) {
    // %#v of a []string.
    std::string out = "[]string{";
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i > 0) out += ", ";
      out += GoQuote(keys[i]);
    }
    return out + "}";
  }

  FieldErrorList* errs_;
};

// schema/defaulting/validation.go: every default validates against its schema and has no
// unknown fields. Defaults inside metadata and additionalProperties are rejected earlier.
void CheckDefaults(const Node& s, const FieldPath& p, bool is_embedded_root, FieldErrorList* errs) {
  if (s.default_value != nullptr && !s.default_value->IsNull()) {
    rapidjson::Document pruned;
    pruned.CopyFrom(*s.default_value, pruned.GetAllocator());
    // Prune the copy with a throw-away one-node schema view: reuse the engine's Prune through a
    // temporary StructuralSchema is not possible without compiling, so prune structurally here.
    std::vector<std::string> unknown;
    struct Pruner {
      static void Run(JsonValue* x, const Node* n, bool embedded_root, std::vector<std::string>* u,
                      const std::string& path, int depth) {
        if (depth > 256 || n == nullptr) return;
        if (n->preserve_unknown_fields) return;
        if (x->IsObject()) {
          for (auto it = x->MemberBegin(); it != x->MemberEnd(); ++it) {
            std::string_view k(it->name.GetString(), it->name.GetStringLength());
            if ((embedded_root || n->embedded_resource) &&
                (k == "apiVersion" || k == "kind" || k == "metadata")) {
              continue;
            }
            bool known = false;
            const Node* child = n->SchemaForMember(k, &known);
            std::string cp = path.empty() ? std::string(k) : path + "." + std::string(k);
            if (!known) {
              u->push_back(cp);
            } else {
              Run(&it->value, child, false, u, cp, depth + 1);
            }
          }
        } else if (x->IsArray()) {
          for (rapidjson::SizeType i = 0; i < x->Size(); ++i) {
            Run(&(*x)[i], n->items.get(), false, u, path + "[" + std::to_string(i) + "]",
                depth + 1);
          }
        }
      }
    };
    Pruner::Run(&pruned, &s, is_embedded_root, &unknown, "", 0);
    if (!unknown.empty()) {
      errs->push_back(InvalidError(p.Child("default").str(), GoValueString(*s.default_value),
                                   "must not have unknown fields"));
    }
    StructuralSchema::ValidateValue(s, *s.default_value, "", p.Child("default").str(), errs);
  }
  // additionalProperties are not followed: defaults are forbidden there.
  if (s.items) CheckDefaults(*s.items, p.Child("items"), false, errs);
  for (const Property& prop : s.properties) {
    CheckDefaults(*prop.node, p.Child("properties").Key(prop.name), false, errs);
  }
}

const char* const kAllowedRootFields =
    "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength "
    "MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties "
    "ExternalDocs Example XPreserveUnknownFields XValidations]";

}  // namespace

FieldErrorList StructuralSchema::CheckSchema(const std::string& path,
                                             bool status_subresource) const {
  FieldErrorList errs;
  const Node& root = *root_;
  FieldPath p(path);
  // With the status subresource only some keywords may appear at the root, so that extracting
  // properties[status] loses no validation.
  if (status_subresource) {
    static const std::set<std::string>* const kAllowed =
        new std::set<std::string>{"description",
                                  "type",
                                  "format",
                                  "title",
                                  "maximum",
                                  "exclusiveMaximum",
                                  "minimum",
                                  "exclusiveMinimum",
                                  "maxLength",
                                  "minLength",
                                  "pattern",
                                  "maxItems",
                                  "minItems",
                                  "uniqueItems",
                                  "multipleOf",
                                  "required",
                                  "items",
                                  "properties",
                                  "externalDocs",
                                  "example",
                                  "x-kubernetes-preserve-unknown-fields",
                                  "x-kubernetes-validations"};
    for (auto it = root.raw->MemberBegin(); it != root.raw->MemberEnd(); ++it) {
      std::string key(it->name.GetString(), it->name.GetStringLength());
      const JsonValue& v = it->value;
      bool zero = v.IsNull() || v.IsFalse() || (v.IsString() && v.GetStringLength() == 0) ||
                  (v.IsArray() && v.Empty()) ||
                  (v.IsObject() && v.ObjectEmpty() && key != "additionalProperties");
      if (zero) continue;
      if (key == "type") {
        if (root.type != "object") {
          errs.push_back(InvalidError(p.Child("type").str(), GoQuote(root.type),
                                      "only \"object\" is allowed as the type at the root of the "
                                      "schema if the status subresource is enabled"));
          break;
        }
        continue;
      }
      if (kAllowed->count(key) == 0) {
        errs.push_back(InvalidError(p.str(), GoSharpV(*root.raw),
                                    std::string("only ") + kAllowedRootFields +
                                        " fields are allowed at the root of the schema if the "
                                        "status subresource is enabled"));
        break;
      }
    }
  }
  if (root.nullable) {
    errs.push_back(
        ForbiddenError(p.Child("nullable").str(), "nullable cannot be true at the root"));
  }
  // Structural rules; the API server sorts these by their text.
  bool convertible = true;  // NewStructural fails on keywords it cannot represent
  std::function<void(const Node&)> scan = [&](const Node& n) {
    if (n.has_id || n.has_schema_keyword || n.has_ref || n.has_pattern_properties ||
        n.has_dependencies || n.has_additional_items || n.has_definitions || n.items_is_array ||
        (n.preserve_unknown_fields_raw.has_value() && !*n.preserve_unknown_fields_raw)) {
      convertible = false;
    }
    if (n.items) scan(*n.items);
    for (const Property& prop : n.properties) scan(*prop.node);
    if (n.additional_properties) scan(*n.additional_properties);
    for (const Node& c : n.all_of) scan(c);
    for (const Node& c : n.any_of) scan(c);
    for (const Node& c : n.one_of) scan(c);
    if (n.not_schema) scan(*n.not_schema);
  };
  scan(root);
  if (convertible) {
    FieldErrorList structural;
    StructuralChecker sc(&structural);
    sc.Invariants(root, Level::kRoot, p);
    sc.Completeness(root, p);
    std::stable_sort(
        structural.begin(), structural.end(),
        [](const FieldError& a, const FieldError& b) { return a.ToString() < b.ToString(); });
    if (!structural.empty()) {
      errs.insert(errs.end(), structural.begin(), structural.end());
    } else {
      CheckDefaults(root, p, true, &errs);
    }
  }
  OpenApiChecker oc(&errs);
  oc.Check(root, p, OpenApiChecker::Ctx{}, true);
  return errs;
}

}  // namespace kai::api::schema
