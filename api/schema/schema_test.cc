// Table-driven tests of the structural-schema engine: every keyword, pruning, defaulting, and the
// exact field errors (type, field, body) a Kubernetes API server returns.
#include "api/schema/schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/rapidjson_util.h"
#include "api/schema/structural_schema.h"
#include "api/yaml_json.h"

namespace kai::api::schema {
namespace {

// A schema exercising most keywords; cases below reuse it.
constexpr char kSchema[] = R"(
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    required: [queue]
    properties:
      queue: {type: string, minLength: 1}
      minMember: {type: integer, format: int32, minimum: 1}
      count: {type: integer}
      ratio: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 1}
      step: {type: integer, multipleOf: 5}
      half: {type: number, multipleOf: 0.5}
      upTo10: {type: integer, maximum: 10, exclusiveMaximum: true}
      preemptibility: {type: string, enum: [preemptible, non-preemptible]}
      level: {type: integer, enum: [1, 2, 3]}
      label: {type: string, maxLength: 5, pattern: '^[a-z]+$'}
      when: {type: string, format: date-time}
      day: {type: string, format: date}
      id: {type: string, format: uuid}
      flag: {type: boolean}
      maybe: {type: string, nullable: true}
      tags:
        type: array
        items: {type: string}
      levels:
        type: array
        minItems: 1
        maxItems: 2
        items:
          type: object
          required: [nodeLabel]
          properties:
            nodeLabel: {type: string}
      set:
        type: array
        x-kubernetes-list-type: set
        items: {type: string}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer}
      args:
        type: object
        additionalProperties: {type: string}
      sized:
        type: object
        minProperties: 1
        maxProperties: 2
        additionalProperties: {type: integer}
      quantity:
        anyOf: [{type: integer}, {type: string}]
        x-kubernetes-int-or-string: true
        pattern: '^[0-9]+(m|Gi)?$'
      free:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          known:
            type: object
            properties:
              a: {type: string}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
  status:
    type: object
    properties:
      phase: {type: string, enum: [Pending, Running]}
)";

// A schema with defaults.
constexpr char kDefaults[] = R"(
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    default: {}
    properties:
      markUnschedulable: {type: boolean, default: true}
      schedulingBackoff: {type: integer, default: -1}
      strategy:
        type: object
        properties:
          gpu: {type: string, default: binpack}
          cpu: {type: string, default: binpack}
      withDefaultObject:
        type: object
        default: {explicit: x}
        properties:
          explicit: {type: string}
          implicit: {type: string, default: 'y'}
      items:
        type: array
        items:
          type: object
          properties:
            operator: {type: string, default: Equal}
            key: {type: string}
      nullable: {type: string, nullable: true, default: d}
      map:
        type: object
        additionalProperties:
          type: object
          properties:
            weight: {type: integer, default: 1}
)";

struct Case {
  const char* name;
  const char* schema;  // YAML
  const char* object;  // JSON
  // "field: ErrorBody" of each expected cause, in order; empty when the object is valid.
  std::vector<std::string> errors;
  const char* want = nullptr;  // expected JSON after admission (valid cases)
  std::vector<std::string> unknown = {};
};

std::string Obj(const std::string& spec) {
  return R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"pg"},"spec":)" +
         spec + "}";
}

const std::vector<Case>& Cases() {
  static const std::vector<Case>* const kCases = new std::vector<Case>{
      // ---- required, types ----
      {"valid_minimal", kSchema, R"({"spec":{"queue":"q"}})", {}},
      {"required_missing", kSchema, R"({"spec":{}})", {"spec.queue: Required value"}},
      {"required_null_is_missing",
       kSchema,
       R"({"spec":{"queue":null}})",
       {"spec.queue: Required value"}},
      {"type_string_for_integer",
       kSchema,
       R"({"spec":{"queue":"q","count":"7"}})",
       {"spec.count: Invalid value: \"string\": spec.count in body must be of type integer: "
        "\"string\""}},
      {"type_float_for_integer",
       kSchema,
       R"({"spec":{"queue":"q","count":1.5}})",
       {"spec.count: Invalid value: \"number\": spec.count in body must be of type integer: "
        "\"number\""}},
      {"type_integral_float_is_integer", kSchema, R"({"spec":{"queue":"q","count":3.0}})", {}},
      {"type_with_format_names_format",
       kSchema,
       R"({"spec":{"queue":"q","minMember":2.5}})",
       {"spec.minMember: Invalid value: \"float64\": spec.minMember in body must be of type "
        "int32: \"float64\""}},
      {"type_bool_for_int32",
       kSchema,
       R"({"spec":{"queue":"q","minMember":true}})",
       {"spec.minMember: Invalid value: \"\": spec.minMember in body must be of type int32: "
        "\"\""}},
      {"type_integer_is_number", kSchema, R"({"spec":{"queue":"q","ratio":1}})", {}},
      {"type_boolean",
       kSchema,
       R"({"spec":{"queue":"q","flag":"yes"}})",
       {"spec.flag: Invalid value: \"string\": spec.flag in body must be of type boolean: "
        "\"string\""}},
      {"type_object",
       kSchema,
       R"({"spec":"oops"})",
       {"spec: Invalid value: \"string\": spec in body must be of type object: \"string\""}},
      {"type_array",
       kSchema,
       R"({"spec":{"queue":"q","tags":"a"}})",
       {"spec.tags: Invalid value: \"string\": spec.tags in body must be of type array: "
        "\"string\""}},
      {"null_array_item",
       kSchema,
       R"({"spec":{"queue":"q","tags":[null,"b"]}})",
       {"spec.tags[0]: Invalid value: \"null\": spec.tags[0] in body must be of type string: "
        "\"null\""}},
      {"nullable_keeps_null",
       kSchema,
       R"({"spec":{"queue":"q","maybe":null}})",
       {},
       R"({"spec":{"queue":"q","maybe":null}})"},
      {"non_nullable_null_dropped",
       kSchema,
       R"({"spec":{"queue":"q","count":null}})",
       {},
       R"({"spec":{"queue":"q"}})"},
      {"huge_integer_is_a_float",
       kSchema,
       R"({"spec":{"queue":"q","count":18446744073709551615}})",
       {"spec.count: Invalid value: \"number\": spec.count in body must be of type integer: "
        "\"number\""}},
      // ---- numbers ----
      {"minimum",
       kSchema,
       R"({"spec":{"queue":"q","minMember":0}})",
       {"spec.minMember: Invalid value: 0: spec.minMember in body should be greater than or "
        "equal to 1"}},
      {"minimum_ok", kSchema, R"({"spec":{"queue":"q","minMember":1}})", {}},
      {"exclusive_minimum",
       kSchema,
       R"({"spec":{"queue":"q","ratio":0}})",
       {"spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0"}},
      {"maximum_float",
       kSchema,
       R"({"spec":{"queue":"q","ratio":1.5}})",
       {"spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than or equal to 1"}},
      {"exclusive_maximum",
       kSchema,
       R"({"spec":{"queue":"q","upTo10":10}})",
       {"spec.upTo10: Invalid value: 10: spec.upTo10 in body should be less than 10"}},
      {"multiple_of_int",
       kSchema,
       R"({"spec":{"queue":"q","step":12}})",
       {"spec.step: Invalid value: 12: spec.step in body should be a multiple of 5"}},
      {"multiple_of_int_ok", kSchema, R"({"spec":{"queue":"q","step":-15}})", {}},
      {"multiple_of_fraction",
       kSchema,
       R"({"spec":{"queue":"q","half":1.25}})",
       {"spec.half: Invalid value: 1.25: spec.half in body should be a multiple of 0.5"}},
      {"multiple_of_fraction_ok", kSchema, R"({"spec":{"queue":"q","half":2.5}})", {}},
      // ---- strings ----
      {"min_length",
       kSchema,
       R"({"spec":{"queue":""}})",
       {"spec.queue: Invalid value: \"\": spec.queue in body should be at least 1 chars long"}},
      {"max_length",
       kSchema,
       R"({"spec":{"queue":"q","label":"abcdef"}})",
       {"spec.label: Too long: may not be more than 5 bytes"}},
      {"max_length_counts_characters",
       kSchema,
       R"({"spec":{"queue":"q","label":"\u00e9\u00e9\u00e9\u00e9\u00e9"}})",
       {"spec.label: Invalid value: \"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\": spec.label in "
        "body should match '^[a-z]+$'"}},
      {"pattern",
       kSchema,
       R"({"spec":{"queue":"q","label":"Ab"}})",
       {"spec.label: Invalid value: \"Ab\": spec.label in body should match '^[a-z]+$'"}},
      {"max_length_hides_pattern",
       kSchema,
       R"({"spec":{"queue":"q","label":"ABCDEFG"}})",
       {"spec.label: Too long: may not be more than 5 bytes"}},
      {"enum",
       kSchema,
       R"({"spec":{"queue":"q","preemptibility":"x"}})",
       {"spec.preemptibility: Unsupported value: \"x\": supported values: \"preemptible\", "
        "\"non-preemptible\""}},
      {"enum_ok", kSchema, R"({"spec":{"queue":"q","preemptibility":"non-preemptible"}})", {}},
      {"enum_numbers",
       kSchema,
       R"({"spec":{"queue":"q","level":4}})",
       {"spec.level: Unsupported value: 4: supported values: \"1\", \"2\", \"3\""}},
      {"enum_number_float_converts", kSchema, R"({"spec":{"queue":"q","level":2.0}})", {}},
      // ---- formats ----
      {"format_date_time",
       kSchema,
       R"({"spec":{"queue":"q","when":"yesterday"}})",
       {"spec.when: Invalid value: \"yesterday\": spec.when in body must be of type date-time: "
        "\"yesterday\""}},
      {"format_date_time_ok",
       kSchema,
       R"({"spec":{"queue":"q","when":"2025-03-01T10:20:30.5+02:00"}})",
       {}},
      {"format_date",
       kSchema,
       R"({"spec":{"queue":"q","day":"2025-02-30"}})",
       {"spec.day: Invalid value: \"2025-02-30\": spec.day in body must be of type date: "
        "\"2025-02-30\""}},
      {"format_uuid",
       kSchema,
       R"({"spec":{"queue":"q","id":"not-a-uuid"}})",
       {"spec.id: Invalid value: \"not-a-uuid\": spec.id in body must be of type uuid: "
        "\"not-a-uuid\""}},
      {"format_uuid_ok",
       kSchema,
       R"({"spec":{"queue":"q","id":"3F2504E0-4F89-11D3-9A0C-0305E82C3301"}})",
       {}},
      // ---- arrays ----
      {"min_items",
       kSchema,
       R"({"spec":{"queue":"q","levels":[]}})",
       {"spec.levels: Invalid value: 0: spec.levels in body should have at least 1 items"}},
      {"max_items",
       kSchema,
       R"({"spec":{"queue":"q","levels":[{"nodeLabel":"a"},{"nodeLabel":"b"},{"nodeLabel":"c"}]}})",
       {"spec.levels: Too many: 3: must have at most 2 items"}},
      {"item_required",
       kSchema,
       R"({"spec":{"queue":"q","levels":[{"nodeLabel":"a"},{}]}})",
       {"spec.levels[1].nodeLabel: Required value"}},
      {"list_type_set",
       kSchema,
       R"({"spec":{"queue":"q","set":["a","b","a","a"]}})",
       {"spec.set[2]: Duplicate value: \"a\""}},
      {"list_type_map",
       kSchema,
       R"({"spec":{"queue":"q","ports":[{"name":"http","port":80},{"name":"http","port":81}]}})",
       {"spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"http\"}"}},
      {"list_type_map_not_object",
       kSchema,
       R"({"spec":{"queue":"q","ports":["x"]}})",
       {"spec.ports[0]: Invalid value: \"string\": spec.ports[0] in body must be of type object: "
        "\"string\"",
        "spec.ports[0]: Invalid value: \"x\": must be an object for an array of list-type map"}},
      // ---- objects ----
      {"additional_properties_schema",
       kSchema,
       R"({"spec":{"queue":"q","args":{"v":3}}})",
       {"spec.args.v: Invalid value: \"integer\": spec.args.v in body must be of type string: "
        "\"integer\""}},
      {"min_properties",
       kSchema,
       R"({"spec":{"queue":"q","sized":{}}})",
       {"spec.sized: Invalid value: 0: spec.sized in body should have at least 1 properties"}},
      {"max_properties",
       kSchema,
       R"({"spec":{"queue":"q","sized":{"a":1,"b":2,"c":3}}})",
       {"spec.sized: Too many: 3: must have at most 2 items"}},
      {"status_validated",
       kSchema,
       R"({"spec":{"queue":"q"},"status":{"phase":"Done"}})",
       {"status.phase: Unsupported value: \"Done\": supported values: \"Pending\", \"Running\""}},
      // ---- int-or-string ----
      {"int_or_string_int", kSchema, R"({"spec":{"queue":"q","quantity":2}})", {}},
      {"int_or_string_string", kSchema, R"({"spec":{"queue":"q","quantity":"500m"}})", {}},
      {"int_or_string_pattern",
       kSchema,
       R"({"spec":{"queue":"q","quantity":"lots"}})",
       {"spec.quantity: Invalid value: \"lots\": spec.quantity in body should match "
        "'^[0-9]+(m|Gi)?$'"}},
      {"int_or_string_bool",
       kSchema,
       R"({"spec":{"queue":"q","quantity":true}})",
       {"spec.quantity: Invalid value: \"boolean\": spec.quantity in body must be of type "
        "integer,string: \"boolean\"",
        "<nil>: Invalid value: \"\": \"spec.quantity\" must validate at least one schema (anyOf)",
        "spec.quantity: Invalid value: \"boolean\": spec.quantity in body must be of type "
        "integer: \"boolean\""}},
      // ---- pruning ----
      {"prune_unknown",
       kSchema,
       R"({"spec":{"queue":"q","bogus":1,"levels":[{"nodeLabel":"a","x":2}]},"extra":{}})",
       {},
       R"({"spec":{"queue":"q","levels":[{"nodeLabel":"a"}]}})",
       {"extra", "spec.bogus", "spec.levels[0].x"}},
      {"prune_respects_preserve_unknown",
       kSchema,
       R"({"spec":{"queue":"q","free":{"anything":{"deep":[1,2]},"known":{"a":"x","b":"y"}}}})",
       {},
       R"({"spec":{"queue":"q","free":{"anything":{"deep":[1,2]},"known":{"a":"x"}}}})",
       {"spec.free.known.b"}},
      {"prune_keeps_root_meta",
       kSchema,
       R"({"apiVersion":"v","kind":"K","metadata":{"name":"n","bogus":1},"spec":{"queue":"q"}})",
       {},
       R"({"apiVersion":"v","kind":"K","metadata":{"name":"n"},"spec":{"queue":"q"}})",
       {"metadata.bogus"}},
      // ---- embedded resources ----
      {"embedded_requires_type_meta",
       kSchema,
       R"({"spec":{"queue":"q","template":{"metadata":{"name":"x"}}}})",
       {"spec.template.apiVersion: Required value", "spec.template.kind: Required value"}},
      {"embedded_kind_checked",
       kSchema,
       R"({"spec":{"queue":"q","template":{"apiVersion":"v1","kind":"Bad_Kind"}}})",
       {"spec.template.kind: Invalid value: \"Bad_Kind\": may have mixed case, but should "
        "otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters "
        "or '-', start with an alphabetic character, and end with an alphanumeric character "
        "(e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')"}},
      {"embedded_metadata_normalized",
       kSchema,
       R"({"spec":{"queue":"q","template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","junk":1,"labels":{}},"spec":{"x":1}}}})",
       {},
       R"({"spec":{"queue":"q","template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":1}}}})",
       {"spec.template.metadata.junk"}},
      // ---- several errors, stable order ----
      {"several_errors",
       kSchema,
       R"({"spec":{"minMember":0,"preemptibility":"x","flag":1}})",
       {"spec.flag: Invalid value: \"integer\": spec.flag in body must be of type boolean: "
        "\"integer\"",
        "spec.minMember: Invalid value: 0: spec.minMember in body should be greater than or "
        "equal to 1",
        "spec.preemptibility: Unsupported value: \"x\": supported values: \"preemptible\", "
        "\"non-preemptible\"",
        "spec.queue: Required value"}},
      // ---- defaults ----
      {"defaults_fill_missing",
       kDefaults,
       R"({})",
       {},
       R"({"spec":{"markUnschedulable":true,"schedulingBackoff":-1,"withDefaultObject":{"explicit":"x","implicit":"y"},"nullable":"d"}})"},
      {"defaults_keep_values",
       kDefaults,
       R"({"spec":{"markUnschedulable":false,"schedulingBackoff":1}})",
       {},
       R"({"spec":{"markUnschedulable":false,"schedulingBackoff":1,"withDefaultObject":{"explicit":"x","implicit":"y"},"nullable":"d"}})"},
      {"defaults_nested_only_when_parent_exists",
       kDefaults,
       R"({"spec":{"strategy":{"gpu":"spread"}}})",
       {},
       R"({"spec":{"strategy":{"gpu":"spread","cpu":"binpack"},"markUnschedulable":true,"schedulingBackoff":-1,"withDefaultObject":{"explicit":"x","implicit":"y"},"nullable":"d"}})"},
      {"defaults_replace_non_nullable_null",
       kDefaults,
       R"({"spec":{"markUnschedulable":null}})",
       {},
       R"({"spec":{"markUnschedulable":true,"schedulingBackoff":-1,"withDefaultObject":{"explicit":"x","implicit":"y"},"nullable":"d"}})"},
      {"defaults_keep_nullable_null",
       kDefaults,
       R"({"spec":{"nullable":null}})",
       {},
       R"({"spec":{"nullable":null,"markUnschedulable":true,"schedulingBackoff":-1,"withDefaultObject":{"explicit":"x","implicit":"y"}}})"},
      {"defaults_in_array_items",
       kDefaults,
       R"({"spec":{"items":[{"key":"a"},{"key":"b","operator":"Exists"}]}})",
       {},
       R"({"spec":{"items":[{"key":"a","operator":"Equal"},{"key":"b","operator":"Exists"}],"markUnschedulable":true,"schedulingBackoff":-1,"withDefaultObject":{"explicit":"x","implicit":"y"},"nullable":"d"}})"},
      {"defaults_in_additional_properties",
       kDefaults,
       R"({"spec":{"map":{"a":{},"b":{"weight":5}}}})",
       {},
       R"({"spec":{"map":{"a":{"weight":1},"b":{"weight":5}},"markUnschedulable":true,"schedulingBackoff":-1,"withDefaultObject":{"explicit":"x","implicit":"y"},"nullable":"d"}})"},
  };
  return *kCases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class SchemaCaseTest : public ::testing::TestWithParam<Case> {};

std::vector<std::string> CauseStrings(const Status& s) {
  std::vector<std::string> out;
  for (const StatusCause& c : s.causes()) out.push_back(c.field + ": " + c.message);
  return out;
}

TEST_P(SchemaCaseTest, Admit) {
  const Case& c = GetParam();
  auto schema_json = YamlToJson(c.schema);
  ASSERT_TRUE(schema_json.ok()) << schema_json.status();
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(*schema_json);
  ASSERT_TRUE(schema.ok()) << schema.status();
  auto admitted = schema->Admit(c.object);
  if (c.errors.empty()) {
    ASSERT_TRUE(admitted.ok()) << admitted.status();
    if (c.want != nullptr) {
      auto got = ParseJsonDocument(admitted->json);
      auto want = ParseJsonDocument(c.want);
      ASSERT_TRUE(got.ok() && want.ok());
      EXPECT_TRUE(JsonDeepEqual(*got, *want)) << "got  " << admitted->json << "\nwant " << c.want;
    }
    EXPECT_EQ(admitted->unknown_fields, c.unknown);
    return;
  }
  ASSERT_FALSE(admitted.ok()) << "accepted: " << admitted->json;
  EXPECT_EQ(admitted.status().reason(), "Invalid");
  EXPECT_EQ(admitted.status().http_code(), 422);
  EXPECT_THAT(CauseStrings(admitted.status()), ::testing::ElementsAreArray(c.errors));
}

INSTANTIATE_TEST_SUITE_P(Table, SchemaCaseTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

TEST(SchemaTest, TableIsLarge) { EXPECT_GE(Cases().size(), 50u); }

TEST(SchemaTest, InvalidStatusCarriesKubernetesShape) {
  auto schema_json = YamlToJson(kSchema);
  ASSERT_TRUE(schema_json.ok());
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(*schema_json);
  ASSERT_TRUE(schema.ok());
  auto r = schema->Admit(Obj(R"({"minMember":0})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "PodGroup.scheduling.run.ai \"pg\" is invalid: [spec.minMember: Invalid value: 0: "
            "spec.minMember in body should be greater than or equal to 1, spec.queue: Required "
            "value]");
  ASSERT_EQ(r.status().causes().size(), 2u);
  EXPECT_EQ(r.status().causes()[0].type, "FieldValueInvalid");
  EXPECT_EQ(r.status().causes()[0].field, "spec.minMember");
  EXPECT_EQ(r.status().causes()[0].message,
            "Invalid value: 0: spec.minMember in body should be greater than or equal to 1");
  EXPECT_EQ(r.status().causes()[1].type, "FieldValueRequired");
  EXPECT_EQ(r.status().causes()[1].message, "Required value");

  auto one = schema->Admit(Obj(R"({"queue":"q","preemptibility":"x"})"));
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().message(),
            "PodGroup.scheduling.run.ai \"pg\" is invalid: spec.preemptibility: Unsupported "
            "value: \"x\": supported values: \"preemptible\", \"non-preemptible\"");
  EXPECT_EQ(one.status().causes()[0].type, "FieldValueNotSupported");
}

TEST(SchemaTest, CauseTypes) {
  auto schema_json = YamlToJson(kSchema);
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(*schema_json);
  ASSERT_TRUE(schema.ok());
  auto r = schema->Admit(Obj(
      R"({"queue":"q","count":"x","label":"toolongvalue","levels":[{"nodeLabel":"a"},{"nodeLabel":"b"},{"nodeLabel":"c"}],"set":["a","a"]})"));
  ASSERT_FALSE(r.ok());
  std::vector<std::string> types;
  for (const StatusCause& c : r.status().causes()) types.push_back(c.type);
  EXPECT_THAT(types, ::testing::ElementsAre("FieldValueTypeInvalid", "FieldValueTooLong",
                                            "FieldValueTooMany", "FieldValueDuplicate"));
}

TEST(SchemaTest, MalformedInputIsBadRequestNotCrash) {
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(R"({"type":"object"})");
  ASSERT_TRUE(schema.ok());
  for (const char* bad : {"", "{", "[1,2]", "\"x\"", "null", R"({"metadata":"x"})",
                          R"({"metadata":{"labels":"x"}})", R"({"kind":1})"}) {
    auto r = schema->Admit(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().reason(), "BadRequest") << bad << " " << r.status();
  }
}

TEST(SchemaTest, SchemaKeywordWithWrongTypeIsBadRequest) {
  auto s = CustomResourceSchema::FromOpenApiV3SchemaJson(
      R"({"type":"object","properties":{"a":{"type":"integer","minimum":"1"}}})");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().reason(), "BadRequest");
  EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("properties[a].minimum"));
}

TEST(SchemaTest, DeeplyNestedValuesDoNotOverflow) {
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(
      R"({"type":"object","properties":{"x":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}})");
  ASSERT_TRUE(schema.ok());
  std::string deep = R"({"x":{"a":)";
  for (int i = 0; i < 2000; ++i) deep += "[";
  for (int i = 0; i < 2000; ++i) deep += "]";
  deep += "}}";
  auto r = schema->Admit(deep);
  EXPECT_TRUE(r.ok()) << r.status();
}

TEST(SchemaTest, NormalizeStoredDropsMalformedMetadataAndDefaults) {
  auto schema_json = YamlToJson(kDefaults);
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(*schema_json);
  ASSERT_TRUE(schema.ok());
  auto r = schema->NormalizeStored(R"({"metadata":{"name":"a","labels":"bad"},"junk":1})");
  ASSERT_TRUE(r.ok()) << r.status();
  auto got = ParseJsonDocument(*r);
  auto want = ParseJsonDocument(
      R"({"metadata":{"name":"a"},"spec":{"markUnschedulable":true,"schedulingBackoff":-1,"withDefaultObject":{"explicit":"x","implicit":"y"},"nullable":"d"}})");
  EXPECT_TRUE(JsonDeepEqual(*got, *want)) << *r;
}

TEST(SchemaTest, LongStringsAgainstPatternsAreSafe) {
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(
      R"({"type":"object","properties":{"s":{"type":"string","pattern":"^(a|b)*c$"}}})");
  ASSERT_TRUE(schema.ok());
  std::string v(100000, 'a');
  auto r = schema->Admit(R"({"s":")" + v + R"("})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().causes().size(), 1u);
}

TEST(SchemaTest, AdditionalPropertiesFalseForbidsKeys) {
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(
      R"({"type":"object","properties":{"m":{"type":"object","additionalProperties":false}}})");
  ASSERT_TRUE(schema.ok());
  auto errs = schema->Validate(R"({"m":{"k":1}})");
  ASSERT_TRUE(errs.ok());
  ASSERT_EQ(errs->size(), 1u);
  EXPECT_EQ((*errs)[0].ToString(), "m: Invalid value: \"k\": m.k in body is a forbidden property");
}

TEST(SchemaTest, JunctorsReportLikeKubeOpenApi) {
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(R"({"type":"object","properties":{
    "a":{"type":"integer","not":{"enum":[3]}},
    "b":{"type":"integer","oneOf":[{"minimum":0},{"maximum":10}]},
    "c":{"type":"integer","allOf":[{"minimum":5},{"maximum":10}]}}})");
  ASSERT_TRUE(schema.ok());
  auto errs = schema->Validate(R"({"a":3,"b":5,"c":1})");
  ASSERT_TRUE(errs.ok());
  std::vector<std::string> got;
  for (const FieldError& e : *errs) got.push_back(e.ToString());
  EXPECT_THAT(got, ::testing::ElementsAre(
                       "<nil>: Invalid value: \"\": \"a\" must not validate the schema (not)",
                       "<nil>: Invalid value: \"\": \"b\" must validate one and only one schema "
                       "(oneOf). Found 2 valid alternatives",
                       "c: Invalid value: 1: c in body should be greater than or equal to 5",
                       "<nil>: Invalid value: \"\": \"c\" must validate all the schemas (allOf)"));
}

TEST(SchemaTest, UniqueItemsWhenCompiledDirectly) {
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(
      R"({"type":"object","properties":{"t":{"type":"array","uniqueItems":true,"items":{"type":"integer"}}}})");
  ASSERT_TRUE(schema.ok());
  auto errs = schema->Validate(R"({"t":[1,2,1]})");
  ASSERT_TRUE(errs.ok());
  ASSERT_EQ(errs->size(), 1u);
  EXPECT_EQ((*errs)[0].ToString(),
            "t: Invalid value: \"\": t in body shouldn't contain duplicates");
  auto distinct = schema->Validate(R"({"t":[1,2,3]})");
  EXPECT_TRUE(distinct->empty());
}

TEST(SchemaTest, ListMapWithSeveralKeysAndSetsOfObjects) {
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(R"({"type":"object","properties":{
    "ports":{"type":"array","x-kubernetes-list-type":"map",
             "x-kubernetes-list-map-keys":["protocol","port"],
             "items":{"type":"object","required":["port","protocol"],
                      "properties":{"port":{"type":"integer"},"protocol":{"type":"string"}}}},
    "sets":{"type":"array","x-kubernetes-list-type":"set",
            "items":{"type":"object","x-kubernetes-map-type":"atomic",
                     "x-kubernetes-preserve-unknown-fields":true}}}})");
  ASSERT_TRUE(schema.ok());
  auto errs = schema->Validate(
      R"({"ports":[{"port":80,"protocol":"TCP"},{"port":80,"protocol":"UDP"},
                   {"protocol":"TCP","port":80}],
          "sets":[{"a":1,"b":[1,2]},{"b":[1,2],"a":1.0},{"a":2}]})");
  ASSERT_TRUE(errs.ok());
  std::vector<std::string> got;
  for (const FieldError& e : *errs) got.push_back(e.ToString());
  EXPECT_THAT(
      got, ::testing::ElementsAre("ports[2]: Duplicate value: map[string]interface {}{\"port\":80, "
                                  "\"protocol\":\"TCP\"}",
                                  "sets[1]: Duplicate value: map[string]interface {}{\"a\":1, "
                                  "\"b\":[]interface {}{1, 2}}"));
}

TEST(SchemaTest, IdenticalInputGivesIdenticalOutput) {
  auto schema_json = YamlToJson(kSchema);
  auto schema = CustomResourceSchema::FromOpenApiV3SchemaJson(*schema_json);
  ASSERT_TRUE(schema.ok());
  std::string obj = Obj(R"({"queue":"","count":"x","zz":1,"aa":2,"levels":[]})");
  auto a = schema->Admit(obj);
  auto b = schema->Admit(obj);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status(), b.status());
}

}  // namespace
}  // namespace kai::api::schema
