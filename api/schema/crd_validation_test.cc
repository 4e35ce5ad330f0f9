// CustomResourceDefinition validation: structural rules, supported keywords, defaults, names,
// versions, subresources and printer columns, with the API server's messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "api/schema/schema.h"

namespace kai::api::schema {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kBase[] = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: NAME}
spec:
  group: GROUP
  scope: SCOPE
  names: {plural: widgets, singular: widget, kind: KIND, listKind: WidgetList, shortNames: [SHORT]}
  versions:
  - name: v1
    served: true
    storage: STORAGE
    subresources: {status: {}}
    additionalPrinterColumns: [{name: Size, type: COLTYPE, jsonPath: COLPATH}]
    schema:
      openAPIV3Schema:
        type: ROOTTYPE
        ROOTEXTRA
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: METADATA
          spec: SPEC
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";

std::string Crd(const std::map<std::string, std::string>& o) {
  std::map<std::string, std::string> d = {
      {"NAME", "widgets.example.com"},
      {"GROUP", "example.com"},
      {"SCOPE", "Namespaced"},
      {"KIND", "Widget"},
      {"SHORT", "wd"},
      {"STORAGE", "true"},
      {"COLTYPE", "integer"},
      {"COLPATH", ".spec.size"},
      {"ROOTTYPE", "object"},
      {"ROOTEXTRA", "description: a widget"},
      {"METADATA", "{type: object}"},
      {"SPEC", "{type: object, properties: {size: {type: integer}}}"},
  };
  for (const auto& [k, v] : o) d[k] = v;
  std::string out = kBase;
  for (auto& [k, v] : d) {
    for (size_t pos; (pos = out.find(k)) != std::string::npos;) out.replace(pos, k.size(), v);
  }
  return out;
}

constexpr char kSchemaPath[] = "spec.versions[0].schema.openAPIV3Schema";

std::vector<std::string> Errors(const std::string& yaml) {
  Status s = ValidateCrdYaml(yaml);
  std::vector<std::string> out;
  if (s.ok()) return out;
  EXPECT_EQ(s.reason(), "Invalid") << s;
  for (const StatusCause& c : s.causes()) out.push_back(c.field + ": " + c.message);
  return out;
}

std::string P(const std::string& rest) { return std::string(kSchemaPath) + rest; }

TEST(CrdValidationTest, ValidCrdPasses) { EXPECT_TRUE(ValidateCrdYaml(Crd({})).ok()); }

TEST(CrdValidationTest, InvalidStatusShape) {
  Status s = ValidateCrdYaml(Crd({{"GROUP", "example"}, {"NAME", "widgets.example"}}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.http_code(), 422);
  EXPECT_EQ(s.message(),
            "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example\" is invalid: "
            "spec.group: Invalid value: \"example\": should be a domain with at least one dot");
}

TEST(CrdValidationTest, NameMustBePluralDotGroup) {
  EXPECT_THAT(Errors(Crd({{"NAME", "gadgets.example.com"}})),
              ElementsAre("metadata.name: Invalid value: \"gadgets.example.com\": must be "
                          "spec.names.plural+\".\"+spec.group"));
}

TEST(CrdValidationTest, ScopeIsAnEnum) {
  EXPECT_THAT(Errors(Crd({{"SCOPE", "Global"}})),
              ElementsAre("spec.scope: Unsupported value: \"Global\": supported values: "
                          "\"Cluster\", \"Namespaced\""));
}

TEST(CrdValidationTest, ExactlyOneStorageVersion) {
  auto errs = Errors(Crd({{"STORAGE", "false"}}));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_THAT(errs[0], HasSubstr("spec.versions: Invalid value: "));
  EXPECT_THAT(errs[0], HasSubstr(": must have exactly one version marked as storage version"));
}

TEST(CrdValidationTest, NamesAreChecked) {
  auto errs = Errors(Crd({{"KIND", "Wid_get"}, {"SHORT", "W"}}));
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_THAT(errs[0], HasSubstr("spec.names.kind: Invalid value: \"Wid_get\": may have mixed "
                                 "case, but should otherwise match: a DNS-1035 label"));
  EXPECT_THAT(errs[1], HasSubstr("spec.names.shortNames[0]: Invalid value: \"W\": a DNS-1035 "
                                 "label must consist of lower case alphanumeric characters"));
}

TEST(CrdValidationTest, SchemaRequired) {
  std::string crd = Crd({});
  crd = crd.substr(0, crd.find("    schema:"));
  EXPECT_THAT(Errors(crd), ElementsAre(P(": Required value: schemas are required")));
}

TEST(CrdValidationTest, TypeRequiredForFields) {
  EXPECT_THAT(Errors(Crd({{"SPEC", "{properties: {size: {type: integer}}}"}})),
              ElementsAre(P(".properties[spec].type: Required value: must not be empty for "
                            "specified object fields")));
}

TEST(CrdValidationTest, TypeRequiredForItems) {
  EXPECT_THAT(Errors(Crd({{"SPEC", "{type: object, properties: {l: {type: array, items: {}}}}"}})),
              ElementsAre(P(".properties[spec].properties[l].items.type: Required value: must "
                            "not be empty for specified array items")));
}

TEST(CrdValidationTest, ArrayNeedsItems) {
  EXPECT_THAT(Errors(Crd({{"SPEC", "{type: object, properties: {l: {type: array}}}"}})),
              ElementsAre(P(".properties[spec].properties[l].items: Required value: must be "
                            "specified")));
}

TEST(CrdValidationTest, RootMustBeObject) {
  auto errs = Errors(Crd({{"ROOTTYPE", "array"}}));
  ASSERT_GE(errs.size(), 2u);
  EXPECT_EQ(errs[0], P(".type: Invalid value: \"array\": only \"object\" is allowed as the type at "
                       "the root of the schema if the status subresource is enabled"));
  EXPECT_THAT(errs, ::testing::Contains(P(".items: Required value: must be specified")));
  EXPECT_THAT(errs, ::testing::Contains(P(".type: Invalid value: \"array\": must be object at the "
                                          "root")));
}

TEST(CrdValidationTest, RootKeywordsLimitedWithStatusSubresource) {
  auto errs = Errors(Crd({{"ROOTEXTRA", "minProperties: 1"}}));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_THAT(errs[0], HasSubstr(P(": Invalid value: ")));
  EXPECT_THAT(errs[0], HasSubstr("only [Description Type Format Title Maximum"));
  EXPECT_THAT(errs[0], HasSubstr("fields are allowed at the root of the schema if the status "
                                 "subresource is enabled"));
}

TEST(CrdValidationTest, PropertiesAndAdditionalPropertiesExclusive) {
  EXPECT_THAT(
      Errors(Crd({{"SPEC",
                   "{type: object, properties: {a: {type: string}}, additionalProperties: "
                   "{type: string}}"}})),
      ElementsAre(P(".properties[spec].additionalProperties: Forbidden: additionalProperties and "
                    "properties are mutual exclusive")));
}

TEST(CrdValidationTest, MetadataOnlyNameAndGenerateName) {
  EXPECT_TRUE(ValidateCrdYaml(Crd({{"METADATA",
                                    "{type: object, properties: {name: {type: string, maxLength: "
                                    "20}}}"}}))
                  .ok());
  EXPECT_THAT(Errors(Crd({{"METADATA", "{type: object, description: meta}"}})),
              ElementsAre(P(".properties[metadata]: Forbidden: must not specify anything other "
                            "than name and generateName, but metadata is implicitly specified")));
  EXPECT_THAT(
      Errors(Crd({{"METADATA", "{type: object, properties: {name: {type: string, default: x}}}"}})),
      ElementsAre(P(".properties[metadata].properties[name].default: Forbidden: must not be set "
                    "in top-level metadata")));
}

TEST(CrdValidationTest, PreserveUnknownFieldsFalseIsInvalid) {
  EXPECT_THAT(
      Errors(Crd({{"SPEC", "{type: object, x-kubernetes-preserve-unknown-fields: false}"}})),
      ElementsAre(P(".properties[spec].x-kubernetes-preserve-unknown-fields: Invalid "
                    "value: false: must be true or undefined")));
}

TEST(CrdValidationTest, UniqueItemsForbidden) {
  EXPECT_THAT(
      Errors(Crd({{"SPEC",
                   "{type: object, properties: {l: {type: array, uniqueItems: true, "
                   "items: {type: string}}}}"}})),
      ElementsAre(P(".properties[spec].properties[l].uniqueItems: Forbidden: uniqueItems cannot "
                    "be set to true since the runtime complexity becomes quadratic")));
}

TEST(CrdValidationTest, UnsupportedTypeAndKeywords) {
  auto errs = Errors(Crd({{"SPEC",
                           "{type: object, properties: {a: {type: map}, b: {type: "
                           "string, $ref: '#/x'}}}"}}));
  EXPECT_THAT(errs, ::testing::Contains(
                        P(".properties[spec].properties[a].type: Unsupported value: \"map\": "
                          "supported values: \"array\", \"boolean\", \"integer\", \"number\", "
                          "\"object\", \"string\"")));
  EXPECT_THAT(errs,
              ::testing::Contains(P(".properties[spec].properties[b].$ref: Forbidden: $ref is not "
                                    "supported")));
}

TEST(CrdValidationTest, DefaultsMustValidate) {
  EXPECT_THAT(
      Errors(Crd({{"SPEC", "{type: object, properties: {num: {type: integer, default: x}}}"}})),
      ElementsAre(P(".properties[spec].properties[num].default: Invalid value: \"string\": "
                    " in body must be of type integer: \"string\"")));
  EXPECT_THAT(
      Errors(Crd({{"SPEC",
                   "{type: object, properties: {o: {type: object, default: {a: 1, x: 2}, "
                   "properties: {a: {type: integer, minimum: 2}}}}}"}})),
      ElementsAre(
          P(".properties[spec].properties[o].default: Invalid value: map[string]interface "
            "{}{\"a\":1, \"x\":2}: must not have unknown fields"),
          P(".properties[spec].properties[o].default.a: Invalid value: 1: a in body should be "
            "greater than or equal to 2")));
  EXPECT_TRUE(ValidateCrdYaml(Crd({{"SPEC",
                                    "{type: object, properties: {num: {type: integer, default: 3}, "
                                    "s: {type: string, enum: [a, b], default: b}}}"}}))
                  .ok());
}

TEST(CrdValidationTest, IntOrStringPatternIsStructural) {
  EXPECT_TRUE(
      ValidateCrdYaml(Crd({{"SPEC",
                            "{type: object, properties: {q: {anyOf: [{type: integer}, {type: "
                            "string}], x-kubernetes-int-or-string: true}}}"}}))
          .ok());
  EXPECT_THAT(
      Errors(Crd({{"SPEC",
                   "{type: object, properties: {q: {type: string, anyOf: [{type: "
                   "string, minLength: 1}]}}}"}})),
      ElementsAre(P(".properties[spec].properties[q].anyOf[0].type: Forbidden: must be empty to "
                    "be structural")));
}

TEST(CrdValidationTest, ValueValidationMustBeInStructure) {
  EXPECT_THAT(
      Errors(Crd({{"SPEC", "{type: object, allOf: [{properties: {ghost: {minLength: 1}}}]}"}})),
      ElementsAre(P(".properties[spec].properties[ghost]: Required value: because it is defined "
                    "in spec.versions[0].schema.openAPIV3Schema.properties[spec].allOf[0]"
                    ".properties[ghost]")));
}

TEST(CrdValidationTest, ListTypes) {
  EXPECT_THAT(
      Errors(Crd({{"SPEC",
                   "{type: object, properties: {l: {type: array, x-kubernetes-list-type: "
                   "map, items: {type: object, properties: {name: {type: string}}}}}}"}})),
      ElementsAre(P(".properties[spec].properties[l].x-kubernetes-list-map-keys: Required value: "
                    "must not be empty if x-kubernetes-list-type is map")));
  EXPECT_THAT(
      Errors(Crd({{"SPEC",
                   "{type: object, properties: {l: {type: array, x-kubernetes-list-type: "
                   "map, x-kubernetes-list-map-keys: [name], items: {type: object, "
                   "properties: {name: {type: string}}}}}}"}})),
      ElementsAre(P(".properties[spec].properties[l].items.properties[name].default: Required "
                    "value: this property is in x-kubernetes-list-map-keys, so it must have a "
                    "default or be a required property")));
  EXPECT_THAT(
      Errors(Crd({{"SPEC",
                   "{type: object, properties: {l: {type: array, x-kubernetes-list-type: "
                   "bag, items: {type: string}}}}"}})),
      ElementsAre(P(".properties[spec].properties[l].x-kubernetes-list-type: Unsupported value: "
                    "\"bag\": supported values: \"atomic\", \"set\", \"map\"")));
  EXPECT_TRUE(ValidateCrdYaml(Crd({{"SPEC",
                                    "{type: object, properties: {l: {type: array, "
                                    "x-kubernetes-list-type: set, items: {type: "
                                    "string}}}}"}}))
                  .ok());
}

TEST(CrdValidationTest, InvalidPattern) {
  auto errs = Errors(Crd({{"SPEC",
                           "{type: object, properties: {s: {type: string, pattern: "
                           "'([a-z'}}}"}}));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_THAT(errs[0], HasSubstr(P(".properties[spec].properties[s].pattern: Invalid value: "
                                   "\"([a-z\": must be a valid regular expression, but isn't: ")));
}

TEST(CrdValidationTest, EmbeddedResourceMustBeObject) {
  auto errs = Errors(Crd({{"SPEC",
                           "{type: object, properties: {t: {type: string, "
                           "x-kubernetes-embedded-resource: true}}}"}}));
  EXPECT_THAT(errs, ::testing::Contains(
                        P(".properties[spec].properties[t].type: Invalid value: \"string\": must "
                          "be object if x-kubernetes-embedded-resource is true")));
}

TEST(CrdValidationTest, PrinterColumns) {
  EXPECT_THAT(Errors(Crd({{"COLTYPE", "float"}})),
              ElementsAre("spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "
                          "\"float\": must be one of boolean,date,integer,number,string"));
  EXPECT_THAT(Errors(Crd({{"COLPATH", "spec.size"}})),
              ElementsAre("spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "
                          "\"spec.size\": must be a simple json path starting with ."));
}

TEST(CrdValidationTest, CelRulesAreAcceptedLikeAServerThatSupportsThem) {
  EXPECT_TRUE(ValidateCrdYaml(Crd({{"SPEC",
                                    "{type: object, x-kubernetes-validations: [{rule: "
                                    "'self.size > 0'}], properties: {size: {type: "
                                    "integer}}}"}}))
                  .ok());
}

TEST(CrdValidationTest, WrongJsonTypesAreBadRequest) {
  std::string crd = Crd({});
  crd.replace(crd.find("served: true"), 12, "served: [1]");
  Status s = ValidateCrdYaml(crd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.reason(), "BadRequest");
  EXPECT_THAT(std::string(s.message()), HasSubstr("spec.versions[0].served"));
  EXPECT_EQ(ValidateCrdJson("not json").reason(), "BadRequest");
  EXPECT_EQ(ValidateCrdJson("[]").reason(), "BadRequest");
}

}  // namespace
}  // namespace kai::api::schema
