// Result: what a Reconcile() asks the controller to do next (controller-runtime reconcile.Result
// plus its error):
//
//   Done()              success: the key's failure history is forgotten
//   Requeue()           try again after the rate limiter's backoff
//   RequeueAfter(d)     forget the failures, try again after d
//   Error(status)       failed: counted, retried after the rate limiter's backoff
//   Terminal(status)    failed in a way retrying cannot fix: counted, logged, not retried
//
// A Status converts implicitly (OK = Done, an error = Error), so a reconciler can use
// KAI_RETURN_IF_ERROR.
#pragma once

#include <utility>

#include "kube/base/clock.h"
#include "kube/base/status.h"

namespace kai::controller {

class Result {
 public:
  enum class Kind { kDone, kRequeue, kRequeueAfter, kError, kTerminalError };

  static Result Done() { return Result(Kind::kDone); }
  static Result Requeue() { return Result(Kind::kRequeue); }
  // A non-positive delay means Done (controller-runtime ignores RequeueAfter <= 0).
  static Result RequeueAfter(Duration delay) {
    Result r(delay > Duration::zero() ? Kind::kRequeueAfter : Kind::kDone);
    r.requeue_after_ = delay;
    return r;
  }
  static Result Error(Status error) {
    Result r(Kind::kError);
    r.error_ = error.ok() ? UnknownError("reconcile failed without a message") : std::move(error);
    return r;
  }
  static Result Terminal(Status error) {
    Result r(Kind::kTerminalError);
    r.error_ = error.ok() ? UnknownError("reconcile failed without a message") : std::move(error);
    return r;
  }

  // OK -> Done(), an error -> Error(status).
  Result(Status status)  // NOLINT(google-explicit-constructor)
      : kind_(status.ok() ? Kind::kDone : Kind::kError), error_(std::move(status)) {}

  Kind kind() const { return kind_; }
  Duration requeue_after() const { return requeue_after_; }
  const Status& error() const { return error_; }
  bool is_error() const { return kind_ == Kind::kError || kind_ == Kind::kTerminalError; }

 private:
  explicit Result(Kind kind) : kind_(kind) {}
  Kind kind_;
  Duration requeue_after_{0};
  Status error_;
};

}  // namespace kai::controller
