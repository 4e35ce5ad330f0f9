#include "kube/base/clock.h"

#include <thread>

#include "kube/base/fake_clock.h"

namespace kai {

void Clock::SleepFor(Duration d) {
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  const MonoTime deadline = NowMonotonic() + d;
  while (!WaitUntil(cv, lock, deadline)) {
  }
}

RealClock* RealClock::Get() {
  static RealClock* const clock = new RealClock();
  return clock;
}

bool RealClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                          MonoTime deadline) {
  return cv.wait_until(lock, deadline) == std::cv_status::timeout || NowMonotonic() >= deadline;
}

namespace {
// 2026-01-01T00:00:00Z.
constexpr std::chrono::seconds kFakeEpoch{1767225600};
// A waiter whose wake-up raced with Advance() re-checks after at most this much real time.
constexpr std::chrono::milliseconds kLostWakeupGuard{5};
}  // namespace

FakeClock::FakeClock() : FakeClock(WallTime(kFakeEpoch)) {}

FakeClock::FakeClock(WallTime start) : wall_(start), mono_(MonoTime(std::chrono::hours(1))) {}

WallTime FakeClock::Now() const {
  std::lock_guard<std::mutex> l(mu_);
  return wall_;
}

MonoTime FakeClock::NowMonotonic() const {
  std::lock_guard<std::mutex> l(mu_);
  const MonoTime now = mono_;
  mono_ += std::chrono::duration_cast<MonoTime::duration>(monotonic_tick_);
  return now;
}

void FakeClock::set_monotonic_tick(Duration d) {
  std::lock_guard<std::mutex> l(mu_);
  monotonic_tick_ = d;
}

bool FakeClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                          MonoTime deadline) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (mono_ >= deadline) return true;
    waiters_.insert(&cv);
  }
  // Advance() notifies registered condition variables without holding the caller's mutex, so a
  // notification can slip between our check and the wait; the short real timeout bounds that.
  cv.wait_for(lock, kLostWakeupGuard);
  std::lock_guard<std::mutex> l(mu_);
  waiters_.erase(waiters_.find(&cv));
  return mono_ >= deadline;
}

void FakeClock::Advance(Duration d) {
  std::lock_guard<std::mutex> l(mu_);
  wall_ += std::chrono::duration_cast<WallTime::duration>(d);
  mono_ += std::chrono::duration_cast<MonoTime::duration>(d);
  for (auto* cv : waiters_) cv->notify_all();
}

void FakeClock::SetNow(WallTime t) {
  std::lock_guard<std::mutex> l(mu_);
  wall_ = t;
  for (auto* cv : waiters_) cv->notify_all();
}

int FakeClock::NumWaiters() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(waiters_.size());
}

}  // namespace kai
