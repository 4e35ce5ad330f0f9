// Kubernetes field errors (k8s.io/apimachinery/pkg/util/validation/field) and the 422 Invalid
// status built from them (apimachinery errors.NewInvalid), so that localkube answers exactly as a
// real API server does: same `Type`, same `Field`, same ErrorBody text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/base/status.h"

namespace kai::api::schema {

enum class FieldErrorType {
  kNotFound,
  kRequired,
  kDuplicate,
  kInvalid,
  kNotSupported,
  kForbidden,
  kTooLong,
  kTooMany,
  kInternal,
  kTypeInvalid,
};

// The metav1.CauseType string, e.g. "FieldValueRequired".
std::string_view FieldErrorCauseType(FieldErrorType type);
// The human text of the type, e.g. "Required value", "Unsupported value".
std::string_view FieldErrorTypeText(FieldErrorType type);

struct FieldError {
  FieldErrorType type = FieldErrorType::kInvalid;
  std::string field;      // "spec.minMember", "spec.subGroups[0].name", "<nil>" for none
  bool has_value = true;  // false: the value is omitted from the body (Go's omitValue)
  std::string value;      // the bad value already rendered the way Go's ErrorBody prints it
  std::string detail;

  // "Invalid value: 0: spec.minMember in body should be greater than or equal to 1".
  std::string ErrorBody() const;
  // "spec.minMember: Invalid value: 0: ...".
  std::string ToString() const;
  bool operator==(const FieldError&) const = default;
};

using FieldErrorList = std::vector<FieldError>;

// Constructors mirroring field.Required(), field.Invalid(), ... The `value` arguments are the
// already-rendered bad value (see go_format.h for rendering JSON values like Go does).
FieldError RequiredError(std::string field, std::string detail = "");
FieldError ForbiddenError(std::string field, std::string detail);
FieldError InvalidError(std::string field, std::string value, std::string detail);
FieldError TypeInvalidError(std::string field, std::string value, std::string detail);
FieldError NotSupportedError(std::string field, std::string value,
                             const std::vector<std::string>& supported);
FieldError DuplicateError(std::string field, std::string value);
FieldError TooLongError(std::string field, long long max_length);
FieldError TooManyError(std::string field, long long actual, long long max);
FieldError InternalFieldError(std::string field, std::string detail);

// field.ErrorList.ToAggregate().Error(): duplicates (same text) dropped, one error printed bare,
// several as "[e1, e2]". Empty list gives "".
std::string AggregateMessage(const FieldErrorList& errors);

// apimachinery errors.NewInvalid(qualifiedKind, name, errs): code InvalidArgument, reason
// "Invalid", HTTP 422, message `<Kind>.<group> "<name>" is invalid: <aggregate>`, one StatusCause
// per error (type, field, ErrorBody). `group` may be empty for the core group.
Status MakeInvalidStatus(std::string_view group, std::string_view kind, std::string_view name,
                         const FieldErrorList& errors);

// apimachinery errors.NewBadRequest(message): code InvalidArgument, reason "BadRequest", HTTP 400.
Status MakeBadRequestStatus(std::string_view message);

// Builds field paths the way field.Path prints them: Child -> ".x" (no dot at the start),
// Key -> "[k]", Index -> "[i]".
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string root) : path_(std::move(root)) {}
  FieldPath Child(std::string_view name) const;
  FieldPath Key(std::string_view key) const;
  FieldPath Index(size_t i) const;
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

}  // namespace kai::api::schema
