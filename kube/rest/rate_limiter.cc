#include "kube/rest/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace kai::kube {

TokenBucket::TokenBucket(double qps, int burst, Clock* clock)
    : clock_(clock != nullptr ? clock : RealClock::Get()),
      qps_(qps),
      burst_(std::max(1, burst)),
      tokens_(std::max(1, burst)),
      last_(clock_->NowMonotonic()) {}

void TokenBucket::RefillLocked(MonoTime now) const {
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

bool TokenBucket::TryAccept() {
  std::lock_guard<std::mutex> l(mu_);
  if (qps_ <= 0) return true;
  RefillLocked(clock_->NowMonotonic());
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return true;
  }
  return false;
}

bool TokenBucket::Accept() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    if (stopped_) return false;
    if (qps_ <= 0) return true;
    const MonoTime now = clock_->NowMonotonic();
    RefillLocked(now);
    if (tokens_ >= 1.0) {
      tokens_ -= 1.0;
      return true;
    }
    const Duration wait = TimeToRefill(1.0 - tokens_);
    clock_->WaitUntil(cv_, l, now + std::max(wait, Duration(1)));
  }
}

Duration TokenBucket::Delay() const {
  std::lock_guard<std::mutex> l(mu_);
  if (qps_ <= 0) return Duration(0);
  RefillLocked(clock_->NowMonotonic());
  if (tokens_ >= 1.0) return Duration(0);
  return TimeToRefill(1.0 - tokens_);
}

Duration TokenBucket::TimeToRefill(double missing_tokens) const {
  // At most an hour at a time (Accept waits again): a qps of 1e-300 must not overflow the cast.
  const double seconds = std::min(missing_tokens / qps_, 3600.0);
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

void TokenBucket::SetRate(double qps, int burst) {
  {
    std::lock_guard<std::mutex> l(mu_);
    RefillLocked(clock_->NowMonotonic());
    qps_ = qps;
    burst_ = std::max(1, burst);
    tokens_ = std::min<double>(tokens_, burst_);
  }
  cv_.notify_all();
}

void TokenBucket::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

double TokenBucket::qps() const {
  std::lock_guard<std::mutex> l(mu_);
  return qps_;
}

int TokenBucket::burst() const {
  std::lock_guard<std::mutex> l(mu_);
  return burst_;
}

}  // namespace kai::kube
