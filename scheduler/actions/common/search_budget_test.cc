// Search budgets (KAI scenarioSearchBudgets) on an injected clock, and what they do to the
// evicting actions.
#include "scheduler/actions/common/search_budget.h"

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

SearchBudgets Budgets(Duration action, Duration job, Duration min_job, Duration generator) {
  SearchBudgets b;
  b.max_action["default"] = action;
  b.max_job = job;
  b.min_job = min_job;
  b.max_generator["default"] = generator;
  return b;
}

TEST(SearchBudgetTest, ActionBudgetRunsOutAtItsLimit) {
  FakeClock clock;
  ActionSearchBudget budget(&clock, DefaultSearchBudgets(), "reclaim");
  clock.Advance(seconds(19));
  EXPECT_FALSE(budget.Exhausted());
  clock.Advance(seconds(1));
  EXPECT_TRUE(budget.Exhausted());
}

TEST(SearchBudgetTest, AJobGetsTheSmallestOfJobGeneratorAndRemainingActionBudget) {
  FakeClock clock;
  ActionSearchBudget budget(&clock, Budgets(seconds(20), seconds(10), {}, seconds(5)), "reclaim");
  JobSearchBudget job = budget.BeginJob();  // the generator's 5s is the smallest
  clock.Advance(seconds(4));
  EXPECT_FALSE(job.Exhausted());
  clock.Advance(seconds(1));
  EXPECT_TRUE(job.Exhausted());
  clock.Advance(seconds(13));  // 2s of the action left
  JobSearchBudget last = budget.BeginJob();
  clock.Advance(seconds(2));
  EXPECT_TRUE(last.Exhausted());
  EXPECT_TRUE(budget.Exhausted());
}

TEST(SearchBudgetTest, TheMinimumJobSearchOutlastsTheAction) {
  FakeClock clock;
  ActionSearchBudget budget(&clock, Budgets(seconds(10), seconds(8), seconds(3), {}), "preempt");
  clock.Advance(seconds(9));
  JobSearchBudget job = budget.BeginJob();
  clock.Advance(seconds(2));
  EXPECT_TRUE(budget.Exhausted());
  EXPECT_FALSE(job.Exhausted());
  clock.Advance(seconds(1));
  EXPECT_TRUE(job.Exhausted());
}

TEST(SearchBudgetTest, ZeroMeansUnlimitedAndActionsHaveTheirOwnEntries) {
  FakeClock clock;
  SearchBudgets b = Budgets({}, {}, {}, {});
  b.max_action["consolidation"] = seconds(1);
  ActionSearchBudget reclaim(&clock, b, "reclaim");
  ActionSearchBudget consolidation(&clock, b, "consolidation");
  JobSearchBudget job = reclaim.BeginJob();
  clock.Advance(std::chrono::hours(24));
  EXPECT_FALSE(reclaim.Exhausted());
  EXPECT_FALSE(job.Exhausted());
  EXPECT_TRUE(consolidation.Exhausted());
  EXPECT_FALSE(JobSearchBudget::Unlimited().Exhausted());
}

// Two queues of 1 GPU quota; q0 holds both GPUs with two preemptible jobs; q1 has two identical
// single-GPU reclaimers: one reclaim succeeds (the second reclaimer would bring q1 over its fair
// share).
TestCluster ReclaimCluster() {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(RunningJob("a", "q0", 1, "n"));
  c.AddJob(RunningJob("b", "q0", 1, "n"));
  c.AddJob(PendingJob("r1", "q1", 1));
  c.AddJob(PendingJob("r2", "q1", 1));
  return c;
}

TEST(SearchBudgetActionTest, WithinItsBudgetReclaimDecidesAsWithout) {
  TestSession s(ReclaimCluster());
  s.clock().set_monotonic_tick(std::chrono::milliseconds(1));  // far below the 5s job budget
  s.Run({"reclaim"});
  EXPECT_EQ(s.sink().evictions.size(), 1u);
  const Session::ActionCounts& n = s.ssn().action_counts().at("reclaim");
  EXPECT_EQ(n.scheduled, 1);
  EXPECT_EQ(n.job_budget_stops, 0);
  EXPECT_EQ(n.action_budget_stops, 0);
}

TEST(SearchBudgetActionTest, AJobWhoseBudgetRunsOutIsNotReclaimedForAndProvesNothing) {
  TestCluster c = ReclaimCluster();
  c.SetShardSpec("scenarioSearchBudgets", R"({"maxJobSearchDuration":"1ms"})");
  TestSession s(c);
  s.clock().set_monotonic_tick(std::chrono::milliseconds(1));
  s.Run({"reclaim"});
  EXPECT_TRUE(s.sink().evictions.empty());
  EXPECT_EQ(s.Task("r1-0")->status, PodStatus::kPending);
  const Session::ActionCounts& n = s.ssn().action_counts().at("reclaim");
  // Both reclaimers were tried: a stopped search is not a failed signature that skips the twin.
  EXPECT_EQ(n.acted_on, 2);
  EXPECT_EQ(n.scheduled, 0);
  EXPECT_EQ(n.job_budget_stops, 2);
  EXPECT_EQ(n.simulated, 0);
}

TEST(SearchBudgetActionTest, AnActionWhoseBudgetRunsOutTriesNoFurtherJob) {
  TestCluster c = ReclaimCluster();
  c.SetShardSpec("scenarioSearchBudgets", R"({"maxActionSearchDuration":{"reclaim":"1ms"}})");
  TestSession s(c);
  s.clock().set_monotonic_tick(std::chrono::milliseconds(1));
  s.Run({"reclaim", "preempt"});
  EXPECT_TRUE(s.sink().evictions.empty());
  const Session::ActionCounts& n = s.ssn().action_counts().at("reclaim");
  EXPECT_EQ(n.acted_on, 0);
  EXPECT_EQ(n.action_budget_stops, 1);
  // Other actions keep the default budget.
  EXPECT_EQ(s.ssn().action_counts().at("preempt").action_budget_stops, 0);
}

}  // namespace
}  // namespace kai::scheduler
