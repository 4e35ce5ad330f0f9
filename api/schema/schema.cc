#include "api/schema/schema.h"

#include <string>

#include "api/rapidjson_util.h"
#include "api/schema/field_error.h"
#include "api/schema/structural_schema.h"
#include "api/yaml_json.h"

namespace kai::api::schema {
namespace {

StatusOr<rapidjson::Document> Parse(std::string_view json) {
  rapidjson::Document doc;
  Status st = ParseJson(json, &doc);
  if (!st.ok()) return MakeBadRequestStatus(std::string(st.message()));
  return doc;
}

std::string StringMember(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return "";
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

StatusOr<CustomResourceSchema> CustomResourceSchema::FromCrdJson(std::string_view crd_json,
                                                                 std::string_view version) {
  KAI_ASSIGN_OR_RETURN(rapidjson::Document crd, Parse(crd_json));
  const rapidjson::Value* spec = FindMember(crd, "spec");
  const rapidjson::Value* versions = spec != nullptr ? FindMember(*spec, "versions") : nullptr;
  if (versions == nullptr || !versions->IsArray()) {
    return NotFoundError("CustomResourceDefinition has no spec.versions");
  }
  for (const auto& v : versions->GetArray()) {
    if (StringMember(v, "name") != version) continue;
    const rapidjson::Value* schema = FindMember(v, "schema");
    const rapidjson::Value* openapi =
        schema != nullptr ? FindMember(*schema, "openAPIV3Schema") : nullptr;
    if (openapi == nullptr) {
      return NotFoundError("version " + std::string(version) + " has no schema.openAPIV3Schema");
    }
    KAI_ASSIGN_OR_RETURN(auto compiled, StructuralSchema::Compile(*openapi));
    return CustomResourceSchema(std::move(compiled));
  }
  return NotFoundError("CustomResourceDefinition has no version " + std::string(version));
}

StatusOr<CustomResourceSchema> CustomResourceSchema::FromOpenApiV3SchemaJson(
    std::string_view schema_json) {
  KAI_ASSIGN_OR_RETURN(rapidjson::Document doc, Parse(schema_json));
  KAI_ASSIGN_OR_RETURN(auto compiled, StructuralSchema::Compile(doc));
  return CustomResourceSchema(std::move(compiled));
}

StatusOr<CustomResourceSchema::Admitted> CustomResourceSchema::Admit(
    std::string_view object_json) const {
  KAI_ASSIGN_OR_RETURN(rapidjson::Document doc, Parse(object_json));
  FieldErrorList errors;
  Admitted out;
  KAI_RETURN_IF_ERROR(impl_->Admit(&doc, doc.GetAllocator(), &errors, &out.unknown_fields));
  if (!errors.empty()) {
    std::string api_version = StringMember(doc, "apiVersion");
    std::string group;
    if (size_t slash = api_version.find('/'); slash != std::string::npos) {
      group = api_version.substr(0, slash);
    }
    const rapidjson::Value* meta = FindMember(doc, "metadata");
    std::string name = meta != nullptr ? StringMember(*meta, "name") : "";
    return MakeInvalidStatus(group, StringMember(doc, "kind"), name, errors);
  }
  out.json = ToJsonString(doc);
  return out;
}

StatusOr<std::string> CustomResourceSchema::NormalizeStored(std::string_view object_json) const {
  KAI_ASSIGN_OR_RETURN(rapidjson::Document doc, Parse(object_json));
  impl_->NormalizeStored(&doc, doc.GetAllocator());
  return ToJsonString(doc);
}

StatusOr<FieldErrorList> CustomResourceSchema::Validate(std::string_view object_json) const {
  KAI_ASSIGN_OR_RETURN(rapidjson::Document doc, Parse(object_json));
  return impl_->Validate(doc);
}

Status ValidateCrdJson(std::string_view crd_json) {
  KAI_ASSIGN_OR_RETURN(rapidjson::Document crd, Parse(crd_json));
  KAI_ASSIGN_OR_RETURN(FieldErrorList errors, ValidateCustomResourceDefinition(crd));
  if (errors.empty()) return Status::OK();
  const rapidjson::Value* meta = FindMember(crd, "metadata");
  std::string name = meta != nullptr ? StringMember(*meta, "name") : "";
  return MakeInvalidStatus("apiextensions.k8s.io", "CustomResourceDefinition", name, errors);
}

Status ValidateCrdYaml(std::string_view crd_yaml) {
  auto json = YamlToJson(crd_yaml);
  if (!json.ok()) return MakeBadRequestStatus(std::string(json.status().message()));
  return ValidateCrdJson(*json);
}

}  // namespace kai::api::schema
