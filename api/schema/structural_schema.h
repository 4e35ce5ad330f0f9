// Internal: the structural-schema engine on RapidJSON values. Include only from .cc files (the
// public, JSON-text API is api/schema/schema.h).
//
// It reproduces what k8s.io/apiextensions-apiserver does with a CRD version's openAPIV3Schema:
//   - schema/convert.go + validation.go       -> StructuralSchema::Compile, CheckSchema
//   - pruning/algorithm.go                    -> Prune
//   - defaulting/prunenulls.go, algorithm.go  -> DropNulls, Default
//   - objectmeta/coerce.go                    -> CoerceMetadata
//   - kube-openapi validate + validation.go   -> Validate (same error texts and field types)
//   - objectmeta/validation.go, listtype/     -> Validate (embedded resources, list-type set/map)
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "api/schema/field_error.h"
#include "kube/base/statusor.h"

namespace kai::api::schema {

using JsonValue = rapidjson::Value;
using JsonAllocator = rapidjson::Document::AllocatorType;

// Nesting deeper than this is reported as an error instead of recursed into.
inline constexpr int kMaxJsonDepth = 512;

inline std::string_view MemberKey(const JsonValue::Member& m) {
  return std::string_view(m.name.GetString(), m.name.GetStringLength());
}

// How Go renders a JSON value decoded by the API server (integers are int64, other numbers
// float64) in field.Error bodies: strings quoted, numbers and booleans bare, null as "null",
// objects and arrays in %#v form (`map[string]interface {}{"a":1}`).
std::string GoValueString(const JsonValue& v);
// fmt "%#v" of a decoded JSON value.
std::string GoSharpV(const JsonValue& v);
// The OpenAPI type name of a decoded value as kube-openapi infers it: "string", "integer",
// "number", "boolean", "object", "array", "null".
std::string_view JsonTypeName(const JsonValue& v);
// The JSON type as encoding/json's UnmarshalTypeError names it ("json: cannot unmarshal <this>
// into Go value of type ..."): "string", "bool", "number", "array", "object", "null".
std::string_view GoJsonTypeName(const JsonValue& v);
// reflect.DeepEqual on decoded values: int64 and float64 never compare equal, object member
// order does not matter.
bool JsonDeepEqual(const JsonValue& a, const JsonValue& b);

struct Node;

struct Property {
  std::string name;
  std::unique_ptr<Node> node;
};

// One compiled schema node (apiextensions JSONSchemaProps). Defaults and enum values point into
// the document owned by the StructuralSchema.
struct Node {
  const JsonValue* raw = nullptr;  // the node's JSON

  // Generic.
  std::string type;  // "" when unset
  // The OpenAPI type list the validator checks ({"integer","string"} for int-or-string) and its
  // comma-joined form, precomputed at compile time.
  std::vector<std::string> types;
  std::string types_joined;
  bool nullable = false;
  const JsonValue* default_value = nullptr;
  std::string title;
  std::string description;

  // Value validation.
  std::string format;            // as written
  std::string effective_format;  // after the API server strips formats it does not support
  std::optional<double> maximum;
  bool exclusive_maximum = false;
  std::optional<double> minimum;
  bool exclusive_minimum = false;
  std::optional<double> multiple_of;
  std::optional<int64_t> max_length, min_length;
  std::optional<int64_t> max_items, min_items;
  std::optional<int64_t> max_properties, min_properties;
  std::string pattern;
  std::shared_ptr<const std::regex> pattern_re;  // null when the pattern does not compile
  std::string pattern_error;                     // why it does not
  bool unique_items = false;
  bool has_enum = false;
  std::vector<const JsonValue*> enum_values;
  std::vector<std::string> required;
  std::vector<Node> all_of, any_of, one_of;
  std::unique_ptr<Node> not_schema;

  // Structure.
  std::vector<Property> properties;  // sorted by name
  std::unique_ptr<Node> items;
  bool has_additional_properties = false;
  bool additional_properties_allows = true;     // additionalProperties: true|false
  std::unique_ptr<Node> additional_properties;  // additionalProperties: {schema}

  // Kubernetes extensions.
  bool preserve_unknown_fields = false;
  std::optional<bool> preserve_unknown_fields_raw;  // as written (false is invalid)
  bool embedded_resource = false;
  bool int_or_string = false;
  std::optional<std::string> list_type;
  std::vector<std::string> list_map_keys;
  std::optional<std::string> map_type;
  size_t x_validations = 0;

  // Keys the API server rejects in CRD schemas; remembered so CheckSchema can say so.
  bool has_id = false, has_schema_keyword = false, has_ref = false, has_pattern_properties = false,
       has_dependencies = false, has_additional_items = false, has_definitions = false,
       items_is_array = false, has_external_docs = false, has_example = false;

  // Property lookup (binary search over the sorted names).
  const Node* FindProperty(std::string_view name) const;
  // The schema that applies to member `name`: a property, else additionalProperties' schema.
  // `known` is false when neither properties nor additionalProperties cover the name.
  const Node* SchemaForMember(std::string_view name, bool* known) const;
};

// A compiled openAPIV3Schema. Immutable and thread-safe once compiled.
class StructuralSchema {
 public:
  // Compiles a JSONSchemaProps object. Wrong JSON types for schema keywords (e.g. `minimum: "1"`)
  // fail with a BadRequest status naming the keyword, as the API server's decoder does; the
  // structural rules are checked separately by CheckSchema.
  static StatusOr<std::shared_ptr<const StructuralSchema>> Compile(const JsonValue& schema);

  const Node& root() const { return *root_; }

  // The CRD-time checks of one version's schema (apiextensions validation.go): structural rules,
  // supported keywords, list/map types, and that defaults validate and are pruned. `path` is the
  // schema's location, e.g. "spec.versions[0].schema.openAPIV3Schema".
  FieldErrorList CheckSchema(const std::string& path, bool status_subresource) const;

  // ---- The write path, in the API server's order (crdhandler unstructuredSchemaCoercer, then
  // the strategy's Validate). ----

  // Normalizes ObjectMeta of the root and of embedded resources (unknown metadata fields dropped,
  // creationTimestamp null removed) and checks apiVersion/kind are strings. With
  // drop_invalid_fields (the storage read path) malformed fields are dropped; otherwise they fail
  // with a BadRequest status like the API server's decoder.
  Status CoerceMetadata(JsonValue* obj, JsonAllocator& alloc, bool drop_invalid_fields,
                        std::vector<std::string>* unknown_fields) const;
  // Removes fields the schema does not specify (apiVersion/kind/metadata kept at the root and in
  // embedded resources; x-kubernetes-preserve-unknown-fields respected). Paths of removed fields
  // ("spec.foo", "spec.list[0].bar") are appended to unknown_fields when it is not null.
  void Prune(JsonValue* obj, std::vector<std::string>* unknown_fields) const;
  // Drops nulls of non-nullable fields that have no default (so they are treated as absent).
  void DropNulls(JsonValue* obj) const;
  // Applies defaults: missing (or null, non-nullable) properties get their default; nested
  // defaults apply inside defaulted values and inside existing objects.
  void Default(JsonValue* obj, JsonAllocator& alloc) const;

  // Validates a (pruned, defaulted) object: OpenAPI value validation with kube-openapi's error
  // texts, embedded-resource ObjectMeta/TypeMeta, and x-kubernetes-list-type set/map uniqueness.
  // Root metadata (name rules, generation...) is the API server's generic part, not done here.
  FieldErrorList Validate(const JsonValue& obj) const;

  // Validates `value` against `node` only (no embedded/list-type checks) the way kube-openapi
  // does with `name` as the root name of messages and `field_prefix` prepended to field paths.
  static void ValidateValue(const Node& node, const JsonValue& value, const std::string& name,
                            const std::string& field_prefix, FieldErrorList* errors);

  // The whole write path: CoerceMetadata, Prune, DropNulls, Default, then Validate. Returns the
  // BadRequest status of malformed metadata, or OK with the validation errors in `errors`.
  Status Admit(JsonValue* obj, JsonAllocator& alloc, FieldErrorList* errors,
               std::vector<std::string>* unknown_fields = nullptr) const;
  // The read path (objects coming out of storage): CoerceMetadata dropping invalid fields,
  // Prune, DropNulls, Default. Never fails.
  void NormalizeStored(JsonValue* obj, JsonAllocator& alloc) const;

 private:
  StructuralSchema() = default;
  rapidjson::Document doc_;  // owns the schema JSON that nodes point into
  std::unique_ptr<Node> root_;
};

// Validates a CustomResourceDefinition object (apiextensions.k8s.io/v1) the way the API server
// does on create: names, group, scope, versions, per-version schemas (structural, supported
// keywords, defaults), subresources and printer columns. Returns the field errors (empty when
// valid); malformed JSON types fail with a BadRequest status.
StatusOr<FieldErrorList> ValidateCustomResourceDefinition(const JsonValue& crd);

}  // namespace kai::api::schema
