// FakeClock: time that moves only when a test says so.
#pragma once

#include <mutex>
#include <set>

#include "kube/base/clock.h"

namespace kai {

class FakeClock final : public Clock {
 public:
  // Starts at a fixed, arbitrary instant so tests are reproducible.
  FakeClock();
  explicit FakeClock(WallTime start);

  WallTime Now() const override;
  MonoTime NowMonotonic() const override;
  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 MonoTime deadline) override;

  // Moves both clocks forward and wakes every waiter so it can re-check its deadline.
  void Advance(Duration d);
  // Sets the wall clock (the monotonic clock never goes backwards).
  void SetNow(WallTime t);
  // Number of threads currently blocked in WaitUntil; lets a test wait until workers are idle.
  int NumWaiters() const;
  // Every NowMonotonic() read from now on moves the monotonic clock forward by `d` after
  // answering, so code that measures its own progress (search budgets) sees time pass as it
  // works. The wall clock does not move.
  void set_monotonic_tick(Duration d);

 private:
  mutable std::mutex mu_;
  WallTime wall_;
  mutable MonoTime mono_;
  Duration monotonic_tick_{};
  std::multiset<std::condition_variable*> waiters_;
};

}  // namespace kai
