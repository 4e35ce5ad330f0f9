// Rate limiters for re-queued work items (client-go util/workqueue/default_rate_limiters.go).
//
// When(item) says how long to wait before the item may be processed again and records the
// attempt; Forget(item) clears the item's history once it succeeded; NumRequeues(item) is how
// many times it failed since. All limiters are thread-safe and read time through a Clock.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kube/base/clock.h"

namespace kai::workqueue {

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  virtual Duration When(const std::string& item) = 0;
  virtual void Forget(const std::string& item) = 0;
  virtual int NumRequeues(const std::string& item) = 0;
};

// base · 2^failures, capped at `max_delay` (ItemExponentialFailureRateLimiter).
class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  ItemExponentialFailureRateLimiter(Duration base_delay, Duration max_delay);
  Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) override;

 private:
  const Duration base_delay_;
  const Duration max_delay_;
  std::mutex mu_;
  std::unordered_map<std::string, int> failures_;
};

// `fast_delay` for the first `max_fast_attempts` failures, then `slow_delay`
// (ItemFastSlowRateLimiter).
class ItemFastSlowRateLimiter final : public RateLimiter {
 public:
  ItemFastSlowRateLimiter(Duration fast_delay, Duration slow_delay, int max_fast_attempts);
  Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) override;

 private:
  const Duration fast_delay_;
  const Duration slow_delay_;
  const int max_fast_attempts_;
  std::mutex mu_;
  std::unordered_map<std::string, int> failures_;
};

// Token bucket shared by all items, with golang.org/x/time/rate reservation semantics: it starts
// full, refills `qps` tokens per second up to `burst`, and each When() takes one token, going
// into debt; the debt divided by qps is the delay (BucketRateLimiter).
class BucketRateLimiter final : public RateLimiter {
 public:
  BucketRateLimiter(double qps, int burst, Clock* clock);
  Duration When(const std::string& item) override;
  void Forget(const std::string& item) override {}
  int NumRequeues(const std::string& item) override { return 0; }

 private:
  const double qps_;
  const double burst_;
  Clock* const clock_;
  std::mutex mu_;
  double tokens_;
  MonoTime last_;
};

// The longest delay of several limiters (MaxOfRateLimiter).
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);
  Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// DefaultControllerRateLimiter: max(per-item 5 ms·2^n capped at 1000 s, overall 10 qps burst
// 100).
std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Clock* clock);

}  // namespace kai::workqueue
