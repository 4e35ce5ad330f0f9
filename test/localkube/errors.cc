#include "test/localkube/errors.h"

#include "kube/base/strings.h"

namespace kai::localkube {

Status ErrStaleConflict(std::string_view what, std::string_view name) {
  return kube::NewConflict(what, name,
                           "the object has been modified; please apply your changes to the latest "
                           "version and try again");
}

StatusCause FieldRequired(std::string_view field, std::string_view detail) {
  std::string msg = "Required value";
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueRequired", std::string(field), msg};
}

StatusCause FieldInvalid(std::string_view field, std::string_view value_json,
                         std::string_view detail) {
  std::string msg = "Invalid value: " + std::string(value_json);
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueInvalid", std::string(field), msg};
}

StatusCause FieldNotSupported(std::string_view field, std::string_view value_json,
                              const std::vector<std::string>& supported) {
  std::string msg = "Unsupported value: " + std::string(value_json);
  if (!supported.empty()) {
    msg += ": supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) msg += ", ";
      msg += Quote(supported[i]);
    }
  }
  return {"FieldValueNotSupported", std::string(field), msg};
}

StatusCause FieldForbidden(std::string_view field, std::string_view detail) {
  std::string msg = "Forbidden";
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueForbidden", std::string(field), msg};
}

StatusCause FieldDuplicate(std::string_view field, std::string_view value_json) {
  return {"FieldValueDuplicate", std::string(field), "Duplicate value: " + std::string(value_json)};
}

StatusCause FieldTooLong(std::string_view field, std::string_view value_json, int max) {
  (void)value_json;
  return {"FieldValueTooLong", std::string(field),
          "Too long: may not be more than " + std::to_string(max) + " bytes"};
}

StatusCause FieldUnknown(std::string_view field) {
  return {"FieldValueUnknown", std::string(field), "unknown field"};
}

int HttpCodeOf(const Status& s) {
  if (s.ok()) return 200;
  if (s.http_code() != 0 && s.http_code() != 200) return s.http_code();
  switch (s.code()) {
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kAborted:
      return 409;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kUnauthenticated:
      return 401;
    case StatusCode::kResourceExhausted:
      return 429;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kOutOfRange:
      return 410;
    case StatusCode::kUnimplemented:
      return 405;
    default:
      return 500;
  }
}

std::string ReasonOf(const Status& s) {
  if (!s.reason().empty()) return std::string(s.reason());
  switch (HttpCodeOf(s)) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "InternalError";
  }
}

}  // namespace kai::localkube
