// kai-scheduler's runnables under the Manager's contract (runnable.h): Stop() may come while
// Start() still runs, on another thread; a Start() after Stop() starts nothing. The overlapping
// cases are for the ThreadSanitizer run (hack/test.sh): without the locks they are data races.
#include "scheduler/app/scheduler_runnables.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "kube/rest/fake_client.h"
#include "kube/testing/eventually.h"
#include "scheduler/app/live_testing.h"
#include "scheduler/outputs/test_cluster.h"

namespace kai::scheduler {
namespace {

using outputs_testing::NodeYaml;
using outputs_testing::PodGroupYaml;
using outputs_testing::PodYaml;
using outputs_testing::QueueYaml;

using live_testing::kBindRequests;

void SeedOnePendingPod(kube::FakeClient* fake) {
  live_testing::Seed(fake, NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                               PodYaml("ns", "p1", "pg", 1));
}

LiveSchedulerOptions LoopOptions() {
  LiveSchedulerOptions o;
  o.status_workers = 1;
  o.params.schedule_period = std::chrono::milliseconds(10);
  return o;
}

using ::kai::testing::Eventually;

MonoTime Later() { return RealClock::Get()->NowMonotonic() + std::chrono::seconds(30); }

TEST(SchedulingLoopTest, RunsCyclesUntilStopped) {
  kube::FakeClient fake;
  SeedOnePendingPod(&fake);
  LiveScheduler scheduler(&fake, LoopOptions());
  SchedulerInformers informers(&scheduler);
  SchedulingLoop loop(&scheduler);
  ASSERT_TRUE(informers.Start().ok());
  ASSERT_TRUE(loop.Start().ok());
  EXPECT_TRUE(Eventually([&] { return fake.Get(kBindRequests, "ns", "p1").ok(); }));
  EXPECT_TRUE(loop.Stop(Later()));
  EXPECT_TRUE(informers.Stop(Later()));
}

TEST(SchedulingLoopTest, StartAfterStopStartsNoLoop) {
  kube::FakeClient fake;
  SeedOnePendingPod(&fake);
  LiveScheduler scheduler(&fake, LoopOptions());
  SchedulingLoop loop(&scheduler);
  EXPECT_TRUE(loop.Stop(Later()));
  const Status s = loop.Start();
  EXPECT_EQ(s.code(), StatusCode::kCancelled) << s;
}

TEST(SchedulingLoopTest, StopWhileStartRunsIsSafe) {
  for (int i = 0; i < 20; ++i) {
    kube::FakeClient fake;
    SeedOnePendingPod(&fake);
    LiveScheduler scheduler(&fake, LoopOptions());
    SchedulingLoop loop(&scheduler);
    Status started;
    std::thread starter([&] { started = loop.Start(); });
    EXPECT_TRUE(loop.Stop(Later()));
    starter.join();
    EXPECT_TRUE(started.ok() || started.code() == StatusCode::kCancelled) << started;
  }
}

TEST(LiveSchedulerTest, ReadinessAskedWhileStartingIsSafe) {
  kube::FakeClient fake;
  SeedOnePendingPod(&fake);
  LiveScheduler scheduler(&fake, LoopOptions());
  std::atomic<bool> done{false};
  std::thread probe([&] {
    while (!done.load()) (void)scheduler.HasSynced();
  });
  scheduler.Start();
  EXPECT_TRUE(Eventually([&] { return scheduler.HasSynced(); }));
  done = true;
  probe.join();
  scheduler.Stop();
}

}  // namespace
}  // namespace kai::scheduler
