// Kubernetes API errors (metav1.Status reasons and HTTP codes) as kai::Status values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/base/status.h"
#include "kube/rest/errors.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

// API errors are kube/rest/errors.h's constructors (kube::NewNotFound, kube::NewInvalid, ...),
// the ones the client decodes; this adds the server's own wording of a stale write.
Status ErrStaleConflict(std::string_view what, std::string_view name);

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
