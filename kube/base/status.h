// Status: how errors cross module boundaries (LevelDB / Abseil shaped).
//
// An OK status holds no allocation. A failed one carries a canonical code, a human message and,
// for errors that came from (or go to) a Kubernetes API server, the metav1.Status details:
// machine-readable reason ("NotFound", "Conflict", "Expired", ...), HTTP code, field causes and
// Retry-After. Callers branch on code() or reason(), never on message text.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kai {

enum class StatusCode {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,  // e.g. optimistic-concurrency conflict (HTTP 409 Conflict)
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

std::string_view StatusCodeName(StatusCode code);

// One entry of metav1.Status details.causes, e.g. {FieldValueRequired, "spec.queue", "..."}.
struct StatusCause {
  std::string type;
  std::string field;
  std::string message;
  bool operator==(const StatusCause&) const = default;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string_view message);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  std::string_view message() const { return rep_ ? std::string_view(rep_->message) : ""; }

  // Kubernetes metav1.Status details; empty / 0 when not set.
  std::string_view reason() const { return rep_ ? std::string_view(rep_->reason) : ""; }
  int http_code() const { return rep_ ? rep_->http_code : 200; }
  int retry_after_seconds() const { return rep_ ? rep_->retry_after_seconds : 0; }
  const std::vector<StatusCause>& causes() const;

  Status& SetReason(std::string_view reason);
  Status& SetHttpCode(int code);
  Status& SetRetryAfterSeconds(int seconds);
  Status& AddCause(StatusCause cause);

  // Returns a copy whose message is "<prefix>: <message>"; keeps code and details.
  Status WithPrefix(std::string_view prefix) const;

  // "CODE: message" (plus reason when set); "OK" for success.
  std::string ToString() const;

  // Marks an ignored status as deliberately ignored.
  void IgnoreError() const {}

  bool operator==(const Status& other) const;
  bool operator!=(const Status& other) const { return !(*this == other); }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
    std::string reason;
    int http_code = 0;
    int retry_after_seconds = 0;
    std::vector<StatusCause> causes;
  };
  Rep& MutableRep();
  std::unique_ptr<Rep> rep_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

// Constructors for the canonical codes.
Status CancelledError(std::string_view message);
Status UnknownError(std::string_view message);
Status InvalidArgumentError(std::string_view message);
Status DeadlineExceededError(std::string_view message);
Status NotFoundError(std::string_view message);
Status AlreadyExistsError(std::string_view message);
Status PermissionDeniedError(std::string_view message);
Status ResourceExhaustedError(std::string_view message);
Status FailedPreconditionError(std::string_view message);
Status AbortedError(std::string_view message);
Status OutOfRangeError(std::string_view message);
Status UnimplementedError(std::string_view message);
Status InternalError(std::string_view message);
Status UnavailableError(std::string_view message);
Status UnauthenticatedError(std::string_view message);

bool IsNotFound(const Status& s);
bool IsAlreadyExists(const Status& s);
bool IsInvalidArgument(const Status& s);
// A concurrency conflict (an API server's 409 Conflict: stale resourceVersion, failed
// precondition).
bool IsAborted(const Status& s);

}  // namespace kai

#define KAI_STATUS_CONCAT_INNER_(a, b) a##b
#define KAI_STATUS_CONCAT_(a, b) KAI_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define KAI_RETURN_IF_ERROR(expr)                      \
  do {                                                 \
    ::kai::Status kai_status_tmp_ = (expr);            \
    if (!kai_status_tmp_.ok()) return kai_status_tmp_; \
  } while (0)

// `lhs` = value of `expr` (a StatusOr<T>), or returns its error from the enclosing function.
#define KAI_ASSIGN_OR_RETURN(lhs, expr) \
  KAI_ASSIGN_OR_RETURN_IMPL_(KAI_STATUS_CONCAT_(kai_statusor_, __LINE__), lhs, expr)
// `lhs` may be a declaration ("auto x"), so it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define KAI_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return std::move(tmp).status();   \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
