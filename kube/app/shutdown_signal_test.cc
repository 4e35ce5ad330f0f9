#include "kube/app/shutdown_signal.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "kube/base/fake_clock.h"

namespace kai::app {
namespace {

TEST(ShutdownSignalTest, FirstTriggerWinsAndWakesWaiters) {
  ShutdownSignal s;
  EXPECT_FALSE(s.triggered());
  std::thread waiter([&] { s.Wait(); });
  s.Trigger("leader election lost");
  s.Trigger("received SIGTERM");
  waiter.join();
  EXPECT_TRUE(s.triggered());
  EXPECT_EQ(s.reason(), "leader election lost");
}

TEST(ShutdownSignalTest, WaitUntilTimesOutOnTheClock) {
  FakeClock clock;
  ShutdownSignal s;
  bool result = true;
  std::thread waiter(
      [&] { result = s.WaitUntil(&clock, clock.NowMonotonic() + std::chrono::seconds(5)); });
  while (clock.NumWaiters() == 0) std::this_thread::yield();
  clock.Advance(std::chrono::seconds(5));
  waiter.join();
  EXPECT_FALSE(result);
  s.Trigger("x");
  EXPECT_TRUE(s.WaitUntil(&clock, clock.NowMonotonic()));
}

class ProcessSignalDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(ProcessSignalDeathTest, FirstSigtermTriggersGracefulShutdown) {
  EXPECT_EXIT(
      {
        ShutdownSignal* s = ShutdownSignal::InstallProcessSignals();
        raise(SIGTERM);
        s->Wait();
        fprintf(stderr, "graceful: %s\n", s->reason().c_str());
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "graceful: received SIGTERM");
}

TEST_F(ProcessSignalDeathTest, SecondSignalExitsWithStatusOne) {
  EXPECT_EXIT(
      {
        ShutdownSignal* s = ShutdownSignal::InstallProcessSignals();
        raise(SIGINT);
        s->Wait();
        // A shutdown that hangs: the operator presses Ctrl-C again.
        raise(SIGTERM);
        fprintf(stderr, "still running\n");
        _exit(0);
      },
      ::testing::ExitedWithCode(1), "");
}

}  // namespace
}  // namespace kai::app
