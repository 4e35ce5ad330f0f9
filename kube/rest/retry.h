// Backoff and retry-on-conflict (client-go util/retry and wait.Backoff).
#pragma once

#include <functional>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/base/status.h"

namespace kai::kube {

struct Backoff {
  Duration duration{0};  // first wait
  double factor = 1.0;   // multiplier per step
  double jitter = 0.0;   // each wait grows by up to jitter * wait at random
  int steps = 1;         // number of attempts
  Duration cap{0};       // 0 = no cap
};

// client-go retry.DefaultRetry: 5 steps, 10 ms, factor 1, jitter 0.1.
inline constexpr Backoff kDefaultRetry{std::chrono::milliseconds(10), 1.0, 0.1, 5, {}};
// client-go retry.DefaultBackoff: 4 steps, 10 ms, factor 5, jitter 0.1.
inline constexpr Backoff kDefaultBackoff{std::chrono::milliseconds(10), 5.0, 0.1, 4, {}};

// Runs `fn` until it succeeds, returns an error for which `retriable` is false, or the steps
// run out (then the last error is returned). Waits between attempts on `clock`.
Status RetryOnError(const Backoff& backoff, const std::function<bool(const Status&)>& retriable,
                    const std::function<Status()>& fn, Clock* clock = nullptr,
                    Random* random = nullptr);

// RetryOnError retrying 409 Conflict only: `fn` must re-read the object and re-apply its change.
Status RetryOnConflict(const Backoff& backoff, const std::function<Status()>& fn,
                       Clock* clock = nullptr, Random* random = nullptr);

}  // namespace kai::kube
