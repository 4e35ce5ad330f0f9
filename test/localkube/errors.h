// Kubernetes API errors (metav1.Status reasons and HTTP codes) as kai::Status values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/base/status.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

// `what` is the resource as the real server names it: "pods", "deployments.apps".
Status ErrNotFound(std::string_view what, std::string_view name);
Status ErrAlreadyExists(std::string_view what, std::string_view name);
Status ErrConflict(std::string_view what, std::string_view name, std::string_view detail);
Status ErrStaleConflict(std::string_view what, std::string_view name);
// 422 Invalid: message "<Kind> \"<name>\" is invalid: <causes>".
Status ErrInvalid(std::string_view kind, std::string_view name, std::vector<StatusCause> causes);
Status ErrBadRequest(std::string_view message);
Status ErrMethodNotAllowed(std::string_view message);
Status ErrUnsupportedMediaType(std::string_view message);
Status ErrRequestEntityTooLarge(std::string_view message);
Status ErrGone(std::string_view message);     // reason Gone
Status ErrExpired(std::string_view message);  // reason Expired (410)
Status ErrTooManyRequests(std::string_view message, int retry_after_seconds);
Status ErrForbidden(std::string_view message);
Status ErrUnauthorized(std::string_view message);
Status ErrInternal(std::string_view message);
Status ErrTimeout(std::string_view message);
Status ErrServiceUnavailable(std::string_view message);
Status ErrNotAcceptable(std::string_view message);

// Field error causes as the apimachinery field.Error renders them.
StatusCause FieldRequired(std::string_view field, std::string_view detail = "");
StatusCause FieldInvalid(std::string_view field, std::string_view value_json,
                         std::string_view detail);
StatusCause FieldNotSupported(std::string_view field, std::string_view value_json,
                              const std::vector<std::string>& supported);
StatusCause FieldForbidden(std::string_view field, std::string_view detail);
StatusCause FieldDuplicate(std::string_view field, std::string_view value_json);
StatusCause FieldTooLong(std::string_view field, std::string_view value_json, int max);
StatusCause FieldUnknown(std::string_view field);

// Maps any Status to the HTTP code the server answers with.
int HttpCodeOf(const Status& s);
// The metav1.Status reason for a Status (its reason, or one derived from the code).
std::string ReasonOf(const Status& s);

}  // namespace kai::localkube
