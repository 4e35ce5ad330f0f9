#include "kube/cache/backoff.h"

#include <algorithm>

namespace kai::kube {

BackoffManager::BackoffManager(BackoffOptions options, Clock* clock, Random* random)
    : options_(options), clock_(clock), random_(random), current_(options.initial) {}

Duration BackoffManager::Next() {
  std::lock_guard<std::mutex> l(mu_);
  const MonoTime now = clock_->NowMonotonic();
  if (last_.has_value() && now - *last_ > options_.reset_after) current_ = options_.initial;
  last_ = now;
  Duration d = current_;
  if (options_.jitter > 0) {
    d += std::chrono::duration_cast<Duration>(d * (options_.jitter * random_->UniformDouble()));
  }
  current_ =
      std::min(std::chrono::duration_cast<Duration>(current_ * options_.factor), options_.cap);
  return d;
}

}  // namespace kai::kube
