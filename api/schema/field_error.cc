#include "api/schema/field_error.h"

#include <set>
#include <utility>

#include "api/schema/go_format.h"

namespace kai::api::schema {

std::string_view FieldErrorCauseType(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "FieldValueNotFound";
    case FieldErrorType::kRequired:
      return "FieldValueRequired";
    case FieldErrorType::kDuplicate:
      return "FieldValueDuplicate";
    case FieldErrorType::kInvalid:
      return "FieldValueInvalid";
    case FieldErrorType::kNotSupported:
      return "FieldValueNotSupported";
    case FieldErrorType::kForbidden:
      return "FieldValueForbidden";
    case FieldErrorType::kTooLong:
      return "FieldValueTooLong";
    case FieldErrorType::kTooMany:
      return "FieldValueTooMany";
    case FieldErrorType::kInternal:
      return "InternalError";
    case FieldErrorType::kTypeInvalid:
      return "FieldValueTypeInvalid";
  }
  return "FieldValueInvalid";
}

std::string_view FieldErrorTypeText(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "Not found";
    case FieldErrorType::kRequired:
      return "Required value";
    case FieldErrorType::kDuplicate:
      return "Duplicate value";
    case FieldErrorType::kInvalid:
      return "Invalid value";
    case FieldErrorType::kNotSupported:
      return "Unsupported value";
    case FieldErrorType::kForbidden:
      return "Forbidden";
    case FieldErrorType::kTooLong:
      return "Too long";
    case FieldErrorType::kTooMany:
      return "Too many";
    case FieldErrorType::kInternal:
      return "Internal error";
    case FieldErrorType::kTypeInvalid:
      return "Invalid value";
  }
  return "Invalid value";
}

std::string FieldError::ErrorBody() const {
  std::string s(FieldErrorTypeText(type));
  // Go prints the value for every type except these (field.Error.ErrorBody).
  bool omit = !has_value || type == FieldErrorType::kRequired ||
              type == FieldErrorType::kForbidden || type == FieldErrorType::kTooLong ||
              type == FieldErrorType::kInternal;
  if (!omit) {
    s += ": ";
    s += value;
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string FieldError::ToString() const { return field + ": " + ErrorBody(); }

FieldError RequiredError(std::string field, std::string detail) {
  return FieldError{FieldErrorType::kRequired, std::move(field), true, "\"\"", std::move(detail)};
}

FieldError ForbiddenError(std::string field, std::string detail) {
  return FieldError{FieldErrorType::kForbidden, std::move(field), true, "\"\"", std::move(detail)};
}

FieldError InvalidError(std::string field, std::string value, std::string detail) {
  return FieldError{FieldErrorType::kInvalid, std::move(field), true, std::move(value),
                    std::move(detail)};
}

FieldError TypeInvalidError(std::string field, std::string value, std::string detail) {
  return FieldError{FieldErrorType::kTypeInvalid, std::move(field), true, std::move(value),
                    std::move(detail)};
}

FieldError NotSupportedError(std::string field, std::string value,
                             const std::vector<std::string>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += GoQuote(supported[i]);
    }
  }
  return FieldError{FieldErrorType::kNotSupported, std::move(field), true, std::move(value),
                    std::move(detail)};
}

FieldError DuplicateError(std::string field, std::string value) {
  return FieldError{FieldErrorType::kDuplicate, std::move(field), true, std::move(value), ""};
}

FieldError TooLongError(std::string field, long long max_length) {
  std::string detail;
  if (max_length >= 0) {
    detail = "may not be more than " + std::to_string(max_length) +
             (max_length == 1 ? " byte" : " bytes");
  } else {
    detail = "value is too long";
  }
  return FieldError{FieldErrorType::kTooLong, std::move(field), false, "", std::move(detail)};
}

FieldError TooManyError(std::string field, long long actual, long long max) {
  std::string detail;
  if (max >= 0) {
    detail = "must have at most " + std::to_string(max) + (max == 1 ? " item" : " items");
  } else {
    detail = "has too many items";
  }
  FieldError e{FieldErrorType::kTooMany, std::move(field), actual >= 0,
               actual >= 0 ? std::to_string(actual) : "", std::move(detail)};
  return e;
}

FieldError InternalFieldError(std::string field, std::string detail) {
  return FieldError{FieldErrorType::kInternal, std::move(field), false, "", std::move(detail)};
}

std::string AggregateMessage(const FieldErrorList& errors) {
  std::vector<std::string> msgs;
  std::set<std::string> seen;
  for (const FieldError& e : errors) {
    std::string m = e.ToString();
    if (seen.insert(m).second) msgs.push_back(std::move(m));
  }
  if (msgs.empty()) return "";
  if (msgs.size() == 1) return msgs[0];
  std::string out = "[";
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (i > 0) out += ", ";
    out += msgs[i];
  }
  out += "]";
  return out;
}

Status MakeBadRequestStatus(std::string_view message) {
  Status s(StatusCode::kInvalidArgument, message);
  s.SetReason("BadRequest").SetHttpCode(400);
  return s;
}

Status MakeInvalidStatus(std::string_view group, std::string_view kind, std::string_view name,
                         const FieldErrorList& errors) {
  std::string qualified(kind);
  if (!group.empty()) {
    qualified += ".";
    qualified += group;
  }
  std::string message = qualified + " " + GoQuote(name) + " is invalid";
  std::string agg = AggregateMessage(errors);
  if (!agg.empty()) message += ": " + agg;
  Status s(StatusCode::kInvalidArgument, message);
  s.SetReason("Invalid").SetHttpCode(422);
  for (const FieldError& e : errors) {
    s.AddCause(StatusCause{std::string(FieldErrorCauseType(e.type)), e.field, e.ErrorBody()});
  }
  return s;
}

FieldPath FieldPath::Child(std::string_view name) const {
  if (path_.empty()) return FieldPath(std::string(name));
  std::string p = path_;
  p += '.';
  p += name;
  return FieldPath(std::move(p));
}

FieldPath FieldPath::Key(std::string_view key) const {
  std::string p = path_;
  p += '[';
  p += key;
  p += ']';
  return FieldPath(std::move(p));
}

FieldPath FieldPath::Index(size_t i) const {
  return FieldPath(path_ + "[" + std::to_string(i) + "]");
}

}  // namespace kai::api::schema
