#include "kube/workqueue/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kai::workqueue {

using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::seconds;

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Duration base_delay,
                                                                     Duration max_delay)
    : base_delay_(base_delay), max_delay_(max_delay) {}

Duration ItemExponentialFailureRateLimiter::When(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  const int exp = failures_[item]++;
  // Computed in floating point so that large exponents saturate instead of overflowing.
  const double backoff = static_cast<double>(base_delay_.count()) * std::pow(2.0, exp);
  if (backoff >= static_cast<double>(std::numeric_limits<Duration::rep>::max())) {
    return max_delay_;
  }
  const Duration calculated(static_cast<Duration::rep>(backoff));
  return std::min(calculated, max_delay_);
}

void ItemExponentialFailureRateLimiter::Forget(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  failures_.erase(item);
}

int ItemExponentialFailureRateLimiter::NumRequeues(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

ItemFastSlowRateLimiter::ItemFastSlowRateLimiter(Duration fast_delay, Duration slow_delay,
                                                 int max_fast_attempts)
    : fast_delay_(fast_delay), slow_delay_(slow_delay), max_fast_attempts_(max_fast_attempts) {}

Duration ItemFastSlowRateLimiter::When(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  const int n = ++failures_[item];
  return n <= max_fast_attempts_ ? fast_delay_ : slow_delay_;
}

void ItemFastSlowRateLimiter::Forget(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  failures_.erase(item);
}

int ItemFastSlowRateLimiter::NumRequeues(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(double qps, int burst, Clock* clock)
    : qps_(qps), burst_(burst), clock_(clock), tokens_(burst), last_(clock->NowMonotonic()) {}

Duration BucketRateLimiter::When(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  const MonoTime now = clock_->NowMonotonic();
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return Duration::zero();
  return duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

Duration MaxOfRateLimiter::When(const std::string& item) {
  Duration longest = Duration::zero();
  // Every limiter records the attempt, not just the one that wins.
  for (auto& l : limiters_) longest = std::max(longest, l->When(item));
  return longest;
}

void MaxOfRateLimiter::Forget(const std::string& item) {
  for (auto& l : limiters_) l->Forget(item);
}

int MaxOfRateLimiter::NumRequeues(const std::string& item) {
  int most = 0;
  for (auto& l : limiters_) most = std::max(most, l->NumRequeues(item));
  return most;
}

std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Clock* clock) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(
      std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(5), seconds(1000)));
  limiters.push_back(std::make_unique<BucketRateLimiter>(10.0, 100, clock));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

}  // namespace kai::workqueue
