// Clock: the only way logic reads time or waits. Production uses RealClock; tests use FakeClock
// and move time forward explicitly, so no test ever sleeps.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace kai {

using WallTime = std::chrono::system_clock::time_point;
using MonoTime = std::chrono::steady_clock::time_point;
using Duration = std::chrono::nanoseconds;

class Clock {
 public:
  virtual ~Clock() = default;

  // Wall-clock time (timestamps written to objects, RFC 3339).
  virtual WallTime Now() const = 0;
  // Monotonic time (timeouts, backoff, lease expiry as observed locally).
  virtual MonoTime NowMonotonic() const = 0;

  // Blocks until `deadline` (monotonic) passes on this clock or `cv` is notified, like
  // std::condition_variable::wait_until. Returns true if the deadline passed. `lock` must hold
  // the mutex that guards the caller's predicate. A FakeClock wakes waiters on Advance().
  virtual bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         MonoTime deadline) = 0;

  // Sleeps for `d` on this clock (returns at once on a FakeClock once time is advanced).
  void SleepFor(Duration d);
};

class RealClock final : public Clock {
 public:
  // Process-wide instance; it holds no state.
  static RealClock* Get();

  WallTime Now() const override { return std::chrono::system_clock::now(); }
  MonoTime NowMonotonic() const override { return std::chrono::steady_clock::now(); }
  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 MonoTime deadline) override;
};

}  // namespace kai
