// StatusOr<T>: a T or the Status explaining why there is none (Abseil shaped).
#pragma once

#include <glog/logging.h>

#include <optional>
#include <type_traits>
#include <utility>

#include "kube/base/status.h"

namespace kai {

template <typename T>
class [[nodiscard]] StatusOr {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>, "StatusOr<Status> is not allowed");

 public:
  // A default-constructed StatusOr is an error, never a silently empty value.
  StatusOr() : status_(UnknownError("uninitialized StatusOr")) {}

  StatusOr(const Status& status) : status_(status) {  // NOLINT(google-explicit-constructor)
    CHECK(!status_.ok()) << "StatusOr constructed from an OK status without a value";
  }
  StatusOr(Status&& status) : status_(std::move(status)) {  // NOLINT
    CHECK(!status_.ok()) << "StatusOr constructed from an OK status without a value";
  }
  StatusOr(const T& value) : value_(value) {}        // NOLINT
  StatusOr(T&& value) : value_(std::move(value)) {}  // NOLINT
  template <typename U,
            typename = std::enable_if_t<
                std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, StatusOr<T>> &&
                !std::is_same_v<std::decay_t<U>, Status> && !std::is_same_v<std::decay_t<U>, T>>>
  StatusOr(U&& value) : value_(std::forward<U>(value)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const& { return status_; }
  Status status() && { return ok() ? Status() : std::move(status_); }

  const T& value() const& {
    CHECK(ok()) << "StatusOr::value() on error: " << status_;
    return *value_;
  }
  T& value() & {
    CHECK(ok()) << "StatusOr::value() on error: " << status_;
    return *value_;
  }
  T&& value() && {
    CHECK(ok()) << "StatusOr::value() on error: " << status_;
    return std::move(*value_);
  }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace kai
