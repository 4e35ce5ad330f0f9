#include "kube/base/status.h"

namespace kai {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kCancelled:
      return "CANCELLED";
    case StatusCode::kUnknown:
      return "UNKNOWN";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case StatusCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case StatusCode::kAborted:
      return "ABORTED";
    case StatusCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case StatusCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case StatusCode::kInternal:
      return "INTERNAL";
    case StatusCode::kUnavailable:
      return "UNAVAILABLE";
    case StatusCode::kDataLoss:
      return "DATA_LOSS";
    case StatusCode::kUnauthenticated:
      return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE";
}

Status::Status(StatusCode code, std::string_view message) {
  if (code == StatusCode::kOk) return;  // an OK status never carries a message
  rep_ = std::make_unique<Rep>();
  rep_->code = code;
  rep_->message = std::string(message);
}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

const std::vector<StatusCause>& Status::causes() const {
  static const std::vector<StatusCause>* const kEmpty = new std::vector<StatusCause>();
  return rep_ ? rep_->causes : *kEmpty;
}

Status::Rep& Status::MutableRep() {
  if (!rep_) {
    // Details on an OK status make no sense; turn it into an unknown error so the bug shows.
    rep_ = std::make_unique<Rep>();
    rep_->code = StatusCode::kUnknown;
  }
  return *rep_;
}

Status& Status::SetReason(std::string_view reason) {
  MutableRep().reason = std::string(reason);
  return *this;
}

Status& Status::SetHttpCode(int code) {
  MutableRep().http_code = code;
  return *this;
}

Status& Status::SetRetryAfterSeconds(int seconds) {
  MutableRep().retry_after_seconds = seconds;
  return *this;
}

Status& Status::AddCause(StatusCause cause) {
  MutableRep().causes.push_back(std::move(cause));
  return *this;
}

Status Status::WithPrefix(std::string_view prefix) const {
  if (ok()) return *this;
  Status out(*this);
  out.rep_->message = std::string(prefix) + ": " + rep_->message;
  return out;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(rep_->code));
  if (!rep_->reason.empty()) out += " (" + rep_->reason + ")";
  out += ": ";
  out += rep_->message;
  return out;
}

bool Status::operator==(const Status& other) const {
  if (ok() || other.ok()) return ok() == other.ok();
  return rep_->code == other.rep_->code && rep_->message == other.rep_->message &&
         rep_->reason == other.rep_->reason && rep_->http_code == other.rep_->http_code &&
         rep_->causes == other.rep_->causes;
}

std::ostream& operator<<(std::ostream& os, const Status& status) { return os << status.ToString(); }

Status CancelledError(std::string_view m) { return Status(StatusCode::kCancelled, m); }
Status UnknownError(std::string_view m) { return Status(StatusCode::kUnknown, m); }
Status InvalidArgumentError(std::string_view m) { return Status(StatusCode::kInvalidArgument, m); }
Status DeadlineExceededError(std::string_view m) {
  return Status(StatusCode::kDeadlineExceeded, m);
}
Status NotFoundError(std::string_view m) { return Status(StatusCode::kNotFound, m); }
Status AlreadyExistsError(std::string_view m) { return Status(StatusCode::kAlreadyExists, m); }
Status PermissionDeniedError(std::string_view m) {
  return Status(StatusCode::kPermissionDenied, m);
}
Status ResourceExhaustedError(std::string_view m) {
  return Status(StatusCode::kResourceExhausted, m);
}
Status FailedPreconditionError(std::string_view m) {
  return Status(StatusCode::kFailedPrecondition, m);
}
Status AbortedError(std::string_view m) { return Status(StatusCode::kAborted, m); }
Status OutOfRangeError(std::string_view m) { return Status(StatusCode::kOutOfRange, m); }
Status UnimplementedError(std::string_view m) { return Status(StatusCode::kUnimplemented, m); }
Status InternalError(std::string_view m) { return Status(StatusCode::kInternal, m); }
Status UnavailableError(std::string_view m) { return Status(StatusCode::kUnavailable, m); }
Status UnauthenticatedError(std::string_view m) { return Status(StatusCode::kUnauthenticated, m); }

bool IsNotFound(const Status& s) { return s.code() == StatusCode::kNotFound; }
bool IsAlreadyExists(const Status& s) { return s.code() == StatusCode::kAlreadyExists; }
bool IsInvalidArgument(const Status& s) { return s.code() == StatusCode::kInvalidArgument; }
bool IsAborted(const Status& s) { return s.code() == StatusCode::kAborted; }

}  // namespace kai
