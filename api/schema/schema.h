// Structural schemas for custom resources, on JSON text: what a Kubernetes API server does with a
// CRD version's openAPIV3Schema on every write (prune unknown fields, apply defaults, validate
// with the exact 422 field errors) and on every read (prune and default stored objects), plus
// the API server's validation of CustomResourceDefinition objects themselves.
//
// Compile once, use many times: a CustomResourceSchema is immutable, cheap to copy and safe to
// share between threads. The RapidJSON-level engine is api/schema/structural_schema.h (for .cc
// files only).
//
//   auto schema = CustomResourceSchema::FromCrdJson(crd_json, "v2alpha2");
//   auto admitted = schema->Admit(R"({"apiVersion":"scheduling.run.ai/v2alpha2", ...})");
//   if (!admitted.ok()) ...  // reason "Invalid", HTTP 422, one StatusCause per field error
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/schema/field_error.h"
#include "kube/base/statusor.h"

namespace kai::api::schema {

class StructuralSchema;

class CustomResourceSchema {
 public:
  // The schema of `version` in a CustomResourceDefinition (JSON). Fails with NotFound when the
  // version does not exist or has no schema, BadRequest when the schema JSON is malformed. It
  // does not re-run the CRD checks: use ValidateCrdJson for that.
  static StatusOr<CustomResourceSchema> FromCrdJson(std::string_view crd_json,
                                                    std::string_view version);
  // A bare openAPIV3Schema (JSONSchemaProps) document.
  static StatusOr<CustomResourceSchema> FromOpenApiV3SchemaJson(std::string_view schema_json);

  struct Admitted {
    std::string json;                         // pruned and defaulted object
    std::vector<std::string> unknown_fields;  // pruned paths, sorted ("spec.foo", "metadata.bar")
  };
  // The write path (create/update): metadata coercion, pruning, null dropping, defaulting, then
  // validation. Errors: BadRequest (400) for malformed JSON or metadata; Invalid (422) with the
  // field errors, its message `<Kind>.<group> "<name>" is invalid: ...` taken from the object's
  // apiVersion, kind and metadata.name.
  StatusOr<Admitted> Admit(std::string_view object_json) const;

  // The read path (objects from storage): prune and default, tolerating malformed metadata.
  StatusOr<std::string> NormalizeStored(std::string_view object_json) const;

  // Validation only (no pruning or defaulting), returning the field errors.
  StatusOr<FieldErrorList> Validate(std::string_view object_json) const;

  // The compiled engine, for callers that hold RapidJSON values (include structural_schema.h).
  const StructuralSchema& engine() const { return *impl_; }

 private:
  explicit CustomResourceSchema(std::shared_ptr<const StructuralSchema> impl)
      : impl_(std::move(impl)) {}
  std::shared_ptr<const StructuralSchema> impl_;
};

// Validates a CustomResourceDefinition (JSON) as the API server does on create. Returns OK, a
// BadRequest status for malformed JSON, or an Invalid status
// (`CustomResourceDefinition.apiextensions.k8s.io "<name>" is invalid: [...]`) with causes.
Status ValidateCrdJson(std::string_view crd_json);

// The same on a CRD written in YAML (e.g. a file of crds/).
Status ValidateCrdYaml(std::string_view crd_yaml);

}  // namespace kai::api::schema
