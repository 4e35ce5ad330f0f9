#include "kube/base/fake_clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace kai {
namespace {

TEST(FakeClockTest, AdvanceMovesBothClocks) {
  FakeClock clock;
  const WallTime w = clock.Now();
  const MonoTime m = clock.NowMonotonic();
  clock.Advance(std::chrono::seconds(5));
  EXPECT_EQ(clock.Now() - w, std::chrono::seconds(5));
  EXPECT_EQ(clock.NowMonotonic() - m, std::chrono::seconds(5));
}

TEST(FakeClockTest, SleeperWakesOnlyWhenTimeIsAdvanced) {
  FakeClock clock;
  std::atomic<bool> woke{false};
  std::thread t([&] {
    clock.SleepFor(std::chrono::seconds(10));
    woke = true;
  });
  while (clock.NumWaiters() == 0) std::this_thread::yield();
  clock.Advance(std::chrono::seconds(9));
  EXPECT_FALSE(woke.load());
  clock.Advance(std::chrono::seconds(1));
  t.join();
  EXPECT_TRUE(woke.load());
}

}  // namespace
}  // namespace kai
