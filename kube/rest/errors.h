// Kubernetes API errors (k8s.io/apimachinery/pkg/api/errors) as kai::Status.
//
// Every error the client returns for a non-2xx answer carries the metav1.Status details:
// reason() ("NotFound", "Conflict", "AlreadyExists", "Expired", "Gone", "Invalid",
// "TooManyRequests", ...), http_code(), causes() and retry_after_seconds(). Branch on these
// predicates (or on reason()), never on the message. 409 carries two reasons: AlreadyExists
// (create) and Conflict (stale resourceVersion). Transport failures (connection refused, TLS,
// timeouts) are kUnavailable / kDeadlineExceeded with http_code() 0.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/base/status.h"

namespace kai::kube {

// Reasons (metav1.StatusReason).
inline constexpr char kReasonNotFound[] = "NotFound";
inline constexpr char kReasonAlreadyExists[] = "AlreadyExists";
inline constexpr char kReasonConflict[] = "Conflict";
inline constexpr char kReasonGone[] = "Gone";
inline constexpr char kReasonExpired[] = "Expired";
inline constexpr char kReasonInvalid[] = "Invalid";
inline constexpr char kReasonBadRequest[] = "BadRequest";
inline constexpr char kReasonForbidden[] = "Forbidden";
inline constexpr char kReasonUnauthorized[] = "Unauthorized";
inline constexpr char kReasonTooManyRequests[] = "TooManyRequests";
inline constexpr char kReasonTimeout[] = "Timeout";
inline constexpr char kReasonServerTimeout[] = "ServerTimeout";
inline constexpr char kReasonInternalError[] = "InternalError";
inline constexpr char kReasonServiceUnavailable[] = "ServiceUnavailable";
inline constexpr char kReasonMethodNotAllowed[] = "MethodNotAllowed";
inline constexpr char kReasonUnsupportedMediaType[] = "UnsupportedMediaType";
inline constexpr char kReasonRequestEntityTooLarge[] = "RequestEntityTooLarge";
inline constexpr char kReasonNotAcceptable[] = "NotAcceptable";

// 404 NotFound and 409 AlreadyExists map to kNotFound / kAlreadyExists, so kube/base's
// predicates serve (re-declared here so both spellings name the same function).
using ::kai::IsAlreadyExists;
using ::kai::IsNotFound;
bool IsConflict(const Status& s);         // 409 / Conflict (stale resourceVersion, preconditions)
bool IsResourceExpired(const Status& s);  // 410 Expired or Gone (client-go isExpiredError)
bool IsGone(const Status& s);             // 410 / Gone
bool IsInvalid(const Status& s);          // 422 / Invalid
bool IsBadRequest(const Status& s);       // 400
bool IsForbidden(const Status& s);        // 403
bool IsUnauthorized(const Status& s);     // 401
bool IsTooManyRequests(const Status& s);  // 429
bool IsTimeout(const Status& s);          // 504 / Timeout (or reason Timeout)
bool IsServerTimeout(const Status& s);    // reason ServerTimeout
bool IsInternalError(const Status& s);    // 500
bool IsServiceUnavailable(const Status& s);  // 503
bool IsMethodNotAllowed(const Status& s);    // 405
// Transport-level failure: no HTTP answer at all (connection refused/reset, TLS, DNS).
bool IsTransportError(const Status& s);

// Builds the Status for an HTTP answer: decodes a metav1.Status body when there is one
// (reason, message, code, details.causes, details.retryAfterSeconds), else derives the reason
// from the code like client-go's NewGenericServerResponse. `retry_after_header` is the
// Retry-After header value ("" if none); it wins over the body's retryAfterSeconds.
Status StatusFromResponse(int http_code, std::string_view body, std::string_view retry_after_header,
                          std::string_view verb = {}, std::string_view what = {});

// Decodes a metav1.Status JSON object (watch ERROR events). Unparsable input gives kInternal.
Status StatusFromStatusJson(std::string_view json);

// Constructors as the API server words them (for localkube, fakes and tests). `what` is the
// resource as the server names it ("pods", "podgroups.scheduling.run.ai").
Status NewNotFound(std::string_view what, std::string_view name);
Status NewAlreadyExists(std::string_view what, std::string_view name);
Status NewConflict(std::string_view what, std::string_view name, std::string_view detail);
// A failed storage precondition, the Conflict worded as storage.Preconditions.Check: `field` is
// "UID" or "ResourceVersion", `want` the request's value, `have` the stored object's.
Status NewPreconditionFailed(std::string_view what, std::string_view name, std::string_view field,
                             std::string_view want, std::string_view have);
Status NewExpired(std::string_view message);  // 410 Expired
Status NewGone(std::string_view message);     // 410 Gone
Status NewInvalid(std::string_view kind, std::string_view name, std::vector<StatusCause> causes);
Status NewBadRequest(std::string_view message);
Status NewForbidden(std::string_view message);
Status NewUnauthorized(std::string_view message);
Status NewTooManyRequests(std::string_view message, int retry_after_seconds);
Status NewInternalError(std::string_view message);
Status NewServiceUnavailable(std::string_view message);
Status NewTimeout(std::string_view message);
Status NewMethodNotAllowed(std::string_view message);       // 405
Status NewNotAcceptable(std::string_view message);          // 406
Status NewRequestEntityTooLarge(std::string_view message);  // 413
Status NewUnsupportedMediaType(std::string_view message);   // 415

// An API error from its parts (code derived from `http_code`).
Status NewApiError(int http_code, std::string_view reason, std::string_view message);

// metav1.StatusDetails' name, group and kind: the object an error such as NotFound is about.
struct StatusSubject {
  std::string name, group, kind;
};

// The metav1.Status JSON for an error (what a server, or a fake watch ERROR event, sends). Empty
// optional fields are left out, as the API server's `omitempty` does.
std::string StatusToJson(const Status& s, const StatusSubject& subject = {});

}  // namespace kai::kube
