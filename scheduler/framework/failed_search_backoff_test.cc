// The failed-search backoff across cycles: exponential growth, its end on a solution, pruning of
// deleted jobs, and what the evicting actions skip.
#include "scheduler/framework/failed_search_backoff.h"

#include <gtest/gtest.h>

#include "kube/base/fake_clock.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using std::chrono::seconds;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

TEST(FailedSearchBackoffTest, DoublesUpToTheMaximumPerActionAndJob) {
  FakeClock clock;
  FailedSearchBackoff b;
  b.RecordFailure("reclaim", "j", seconds(10), seconds(30), clock.NowMonotonic());
  EXPECT_TRUE(b.InBackoff("reclaim", "j", clock.NowMonotonic()));
  EXPECT_FALSE(b.InBackoff("preempt", "j", clock.NowMonotonic()));
  EXPECT_FALSE(b.InBackoff("reclaim", "other", clock.NowMonotonic()));
  clock.Advance(seconds(10));
  EXPECT_FALSE(b.InBackoff("reclaim", "j", clock.NowMonotonic()));
  b.RecordFailure("reclaim", "j", seconds(10), seconds(30), clock.NowMonotonic());  // 20s
  clock.Advance(seconds(19));
  EXPECT_TRUE(b.InBackoff("reclaim", "j", clock.NowMonotonic()));
  clock.Advance(seconds(1));
  b.RecordFailure("reclaim", "j", seconds(10), seconds(30), clock.NowMonotonic());  // 40s -> 30s
  clock.Advance(seconds(29));
  EXPECT_TRUE(b.InBackoff("reclaim", "j", clock.NowMonotonic()));
  clock.Advance(seconds(1));
  EXPECT_FALSE(b.InBackoff("reclaim", "j", clock.NowMonotonic()));
  b.Clear("reclaim", "j");
  b.RecordFailure("reclaim", "j", seconds(10), seconds(30), clock.NowMonotonic());  // back to 10s
  clock.Advance(seconds(10));
  EXPECT_FALSE(b.InBackoff("reclaim", "j", clock.NowMonotonic()));
}

TEST(FailedSearchBackoffTest, RetainDropsTheEntriesOfDeletedJobs) {
  FakeClock clock;
  FailedSearchBackoff b;
  b.RecordFailure("reclaim", "gone", seconds(10), seconds(10), clock.NowMonotonic());
  b.RecordFailure("preempt", "kept", seconds(10), seconds(10), clock.NowMonotonic());
  b.Retain([](const std::string& uid) { return uid == "kept"; });
  EXPECT_EQ(b.size(), 1u);
  EXPECT_TRUE(b.InBackoff("preempt", "kept", clock.NowMonotonic()));
}

// q1 is under its fair share, but the only victim belongs to a queue at its own share: the
// reclaim search runs out of scenarios and fails every time.
TestCluster FailingReclaim(bool backoff) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(RunningJob("a", "q0", 1, "n", 2));
  c.AddJob(PendingJob("r", "q1", 1));
  if (backoff) {
    c.SetShardSpec("scenarioSearchBudgets", R"({"minFailedSearchBackoff":{"reclaim":"30s"},)"
                                            R"("maxFailedSearchBackoff":{"reclaim":"2m"}})");
  }
  return c;
}

int64_t ReclaimTried(const TestCluster& c, FailedSearchBackoff* b, Duration elapsed) {
  TestSession s(c);
  s.clock().Advance(elapsed);
  s.ssn().set_failed_search_backoff(b);
  s.Run({"reclaim"});
  EXPECT_TRUE(s.sink().evictions.empty());
  return s.ssn().action_counts().at("reclaim").acted_on;
}

TEST(FailedSearchBackoffTest, AFailedReclaimIsNotSearchedAgainUntilItsBackoffPasses) {
  FailedSearchBackoff b;
  // Each TestSession's clock starts at the same instant; `elapsed` moves it forward.
  EXPECT_EQ(ReclaimTried(FailingReclaim(true), &b, {}), 1);
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(ReclaimTried(FailingReclaim(true), &b, seconds(29)), 0);  // 30s backoff
  EXPECT_EQ(ReclaimTried(FailingReclaim(true), &b, seconds(30)), 1);  // now 60s
  EXPECT_EQ(ReclaimTried(FailingReclaim(true), &b, seconds(89)), 0);
  EXPECT_EQ(ReclaimTried(FailingReclaim(true), &b, seconds(90)), 1);
}

TEST(FailedSearchBackoffTest, WithoutABackoffConfiguredEveryCycleSearches) {
  FailedSearchBackoff b;
  EXPECT_EQ(ReclaimTried(FailingReclaim(false), &b, {}), 1);
  EXPECT_EQ(ReclaimTried(FailingReclaim(false), &b, seconds(1)), 1);
  EXPECT_EQ(b.size(), 0u);
}

}  // namespace
}  // namespace kai::scheduler
