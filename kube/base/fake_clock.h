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

 private:
  mutable std::mutex mu_;
  WallTime wall_;
  MonoTime mono_;
  std::multiset<std::condition_variable*> waiters_;
};

}  // namespace kai
