// The five actions end to end on small clusters (reference §7.3-§7.8).
#include "scheduler/actions/actions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::ReleasingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

// The names command lines accept are exactly the registered actions.
TEST(ActionNamesTest, CheckActionNameAcceptsTheRegisteredActionsOnly) {
  ActionRegistry registry;
  RegisterDefaultActions(&registry);
  for (const char* name :
       {"allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"}) {
    EXPECT_TRUE(CheckActionName(name).ok()) << name;
    EXPECT_NE(registry.Find(name), nullptr) << name;
  }
  for (const char* name : {"bogus", "Allocate", ""}) {
    EXPECT_FALSE(CheckActionName(name).ok()) << name;
    EXPECT_EQ(registry.Find(name), nullptr) << name;
  }
  EXPECT_EQ(CheckActionName("bogus").message(),
            "unknown action \"bogus\" (known: allocate, consolidation, reclaim, preempt, "
            "stalegangeviction)");
}

TEST(AllocateActionTest, BindsPipelinesAndStampsTheStartTime) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(ReleasingJob("leaving", "q", 1, "n"));
  c.AddJob(PendingJob("fits", "q", 1, 1, 100));
  c.AddJob(PendingJob("waits", "q", 1, 1, 50));
  TestSession s(c);
  s.Run({"allocate"});
  EXPECT_EQ(s.Task("fits-0")->status, PodStatus::kBinding);
  EXPECT_EQ(s.Task("waits-0")->status, PodStatus::kPipelined);
  ASSERT_EQ(s.sink().binds.size(), 1u);
  ASSERT_EQ(s.sink().pipelined.size(), 1u);
  // The start time is set for a job that starts running now, not for a pipelined one (§7.3).
  EXPECT_EQ(s.Job("fits")->last_start_timestamp, testing::TestNow());
  EXPECT_FALSE(s.Job("waits")->last_start_timestamp.has_value());
  // Both jobs were tried and placed (one pipelined): podgroups_{acted_on,scheduled}_by_action.
  const Session::ActionCounts& counts = s.ssn().action_counts().at("allocate");
  EXPECT_EQ(counts.acted_on, 2);
  EXPECT_EQ(counts.scheduled, 2);
}

TEST(AllocateActionTest, AJobThatFitsNowhereIsCountedAsTriedNotScheduled) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("fits", "q", 1));
  c.AddJob(PendingJob("too-big", "q", 4));
  TestSession s(c);
  s.Run({"allocate"});
  const Session::ActionCounts& counts = s.ssn().action_counts().at("allocate");
  EXPECT_EQ(counts.acted_on, 2);
  EXPECT_EQ(counts.scheduled, 1);
  EXPECT_EQ(counts.simulated, 0);
}

TEST(AllocateActionTest, GangPartlyOnReleasingResourcesIsPipelinedWhole) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(ReleasingJob("leaving", "q", 1, "n"));
  c.AddJob(PendingJob("gang", "q", 1, 2));
  TestSession s(c);
  s.Run({"allocate"});
  EXPECT_EQ(s.Task("gang-0")->status, PodStatus::kPipelined);
  EXPECT_EQ(s.Task("gang-1")->status, PodStatus::kPipelined);
  EXPECT_TRUE(s.sink().binds.empty());
}

TEST(ConsolidationActionTest, MovesAPodToMakeRoomForAGang) {
  TestCluster c;
  c.AddNode({.name = "a", .gpus = 2});
  c.AddNode({.name = "b", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("on-a", "q", 1, "a"));
  c.AddJob(RunningJob("on-b", "q", 1, "b"));
  c.AddJob(PendingJob("two", "q", 2));  // needs a whole node
  TestSession s(c);
  s.Run({"consolidation"});
  ASSERT_EQ(s.sink().evictions.size(), 1u);
  EXPECT_EQ(s.sink().evictions[0].metadata.action, "consolidation");
  EXPECT_EQ(s.Task("two-0")->status, PodStatus::kPipelined);
  // The moved pod is pipelined onto the other node.
  const std::string moved = s.sink().evictions[0].pod_key;
  EXPECT_EQ(s.cluster().FindTask(moved)->status, PodStatus::kPipelined);
}

TEST(ConsolidationActionTest, DisabledWithZeroPreemptees) {
  TestCluster c;
  c.SetArg("max-consolidation-preemptees", "0");
  c.AddNode({.name = "a", .gpus = 2});
  c.AddNode({.name = "b", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("on-a", "q", 1, "a"));
  c.AddJob(RunningJob("on-b", "q", 1, "b"));
  c.AddJob(PendingJob("two", "q", 2));
  TestSession s(c);
  s.Run({"consolidation"});
  EXPECT_TRUE(s.sink().evictions.empty());
}

TEST(ReclaimActionTest, TakesBackTheFairShareWithQueueNumbersInTheMessage) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(RunningJob("a", "q0", 1, "n"));
  c.AddJob(RunningJob("b", "q0", 1, "n"));
  c.AddJob(PendingJob("reclaimer", "q1", 1));
  TestSession s(c);
  s.Run({"reclaim"});
  ASSERT_EQ(s.sink().evictions.size(), 1u);
  const std::string& msg = s.sink().evictions[0].message;
  EXPECT_EQ(msg.rfind("Pod default/b-0 was preempted by workload default/reclaimer.\n", 0), 0u)
      << msg;
  // Queue numbers as they were before the eviction (§21.3).
  EXPECT_NE(msg.find("\nq0 uses <GPU: 2, CPU: 2 (cores), memory: 2 (GB)> with a quota of <GPU: 1, "
                     "CPU: Unlimited (cores), memory: Unlimited (GB)>, fair-share of <GPU: 1"),
            std::string::npos)
      << msg;
  EXPECT_EQ(s.Task("reclaimer-0")->status, PodStatus::kPipelined);
  const auto& counts = s.ssn().action_counts();
  ASSERT_EQ(counts.count("reclaim"), 1u);
  // The scenario without victims is filtered (no idle GPU), the one with b-0 simulated.
  EXPECT_EQ(counts.at("reclaim").simulated, 1);
  EXPECT_EQ(counts.at("reclaim").filtered, 1);
  EXPECT_EQ(counts.at("reclaim").acted_on, 1);
  EXPECT_EQ(counts.at("reclaim").scheduled, 1);
}

// A scenario whose victims cannot free enough GPUs is dropped before simulating (and counted as
// filtered): the reclaimer needs 3 GPUs on one node, there is 1 idle, each victim frees 1. No
// victim and one victim are filtered; two victims are simulated.
TEST(ReclaimActionTest, ScenariosWithTooFewGpusAreFilteredBeforeSimulating) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 4});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 3, .gpu_weight = 0});
  c.AddJob(RunningJob("a", "q0", 1, "n"));
  c.AddJob(RunningJob("b", "q0", 1, "n"));
  c.AddJob(RunningJob("c", "q0", 1, "n"));
  c.AddJob(PendingJob("reclaimer", "q1", 3));
  TestSession s(c);
  s.Run({"reclaim"});
  EXPECT_EQ(s.sink().evictions.size(), 2u);
  EXPECT_EQ(s.Task("reclaimer-0")->status, PodStatus::kPipelined);
  const auto& counts = s.ssn().action_counts();
  ASSERT_EQ(counts.count("reclaim"), 1u);
  EXPECT_EQ(counts.at("reclaim").filtered, 2);
  EXPECT_EQ(counts.at("reclaim").simulated, 1);
}

// A validation is told which victims the simulation touched (ScenarioInfo::
// SimulationTouchedVictims): the scenario grows victim by victim over three nodes, and a
// simulation evicts those of one node. Every victim left out is untouched, all its pods
// active-allocated; the touched ones come in the order of GetVictims().
TEST(ReclaimActionTest, AValidationIsToldTheVictimsItsSimulationTouched) {
  TestCluster c;
  for (const char* n : {"n0", "n1", "n2"}) c.AddNode({.name = n, .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 3, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 3, .gpu_weight = 0});
  const char* nodes[] = {"n0", "n1", "n2", "n0", "n1", "n2"};
  for (int i = 0; i < 6; ++i) c.AddJob(RunningJob(std::string(1, 'a' + i), "q0", 1, nodes[i]));
  c.AddJob(PendingJob("reclaimer", "q1", 2));
  TestSession s(c);
  std::vector<std::string> touched_names;
  size_t all_victims = 0;
  s.ssn().AddReclaimScenarioValidatorFn([&](const ScenarioInfo& scenario) {
    const std::vector<const VictimInfo*>* touched = scenario.SimulationTouchedVictims();
    EXPECT_NE(touched, nullptr);
    if (touched == nullptr) return true;
    std::vector<const VictimInfo*> in_order;
    for (const auto& [id, v] : scenario.GetVictims()) {
      if (std::find(touched->begin(), touched->end(), &v) != touched->end()) {
        in_order.push_back(&v);
        continue;
      }
      for (const PodInfo* t : v.tasks) {
        EXPECT_TRUE(IsActiveAllocatedStatus(t->status)) << t->key() << " changed, untold";
      }
    }
    EXPECT_EQ(in_order, *touched);
    touched_names.clear();
    for (const VictimInfo* v : *touched) touched_names.push_back(v->representative->name());
    all_victims = scenario.GetVictims().size();
    return true;
  });
  s.Run({"reclaim"});
  EXPECT_EQ(s.Task("reclaimer-0")->status, PodStatus::kPipelined);
  // Victims come youngest first (f, e, d, c): the fourth, c, shares n2 with f.
  EXPECT_EQ(all_victims, 4u);
  EXPECT_EQ(touched_names, (std::vector<std::string>{"c", "f"}));
  ASSERT_EQ(s.sink().evictions.size(), 2u);
}

TEST(ReclaimActionTest, NothingToReclaimWithinTheFairShare) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(RunningJob("a", "q0", 1, "n"));
  c.AddJob(RunningJob("b", "q1", 1, "n"));
  c.AddJob(PendingJob("more", "q1", 1));
  TestSession s(c);
  s.Run({"reclaim"});
  EXPECT_TRUE(s.sink().evictions.empty());
}

// A protected elastic victim (inside its preempt min-runtime) may lose pods only down to its
// minimum. The preemptor needs both of its GPUs: scenarios with fewer than two victim pods free too
// little (filtered), the one with both is rejected by minruntime whatever a simulation does, and
// so is every larger one. The search ends there without simulating it (final_rejections), with
// the outcome the full search gives. With a pending pod in the victim job (a simulation may
// pipeline it, which raises the count minruntime reads) the scenario is simulated as before.
TEST(PreemptActionTest, AFinalValidatorEndsTheSearchWithTheSameOutcome) {
  for (bool victim_has_pending : {false, true}) {
    SCOPED_TRACE(victim_has_pending);
    TestCluster c;
    c.AddNode({.name = "n", .gpus = 2});
    c.AddQueue({.name = "q", .gpu_quota = 2, .preempt_min_runtime = "1h"});
    JobSpec elastic = RunningJob("elastic", "q", 1, "n", 2, 50);
    elastic.min_member = 1;
    elastic.last_start_min = 1;
    if (victim_has_pending) elastic.tasks.push_back({});
    c.AddJob(elastic);
    c.AddJob(PendingJob("high", "q", 2, 1, 125));
    TestSession s(c);
    s.Run({"preempt"});
    EXPECT_TRUE(s.sink().evictions.empty());
    EXPECT_EQ(s.Task("high-0")->status, PodStatus::kPending);
    EXPECT_EQ(s.Task("elastic-0")->status, PodStatus::kRunning);
    EXPECT_EQ(s.Task("elastic-1")->status, PodStatus::kRunning);
    const Session::ActionCounts& counts = s.ssn().action_counts().at("preempt");
    // (The job with a pending pod also tries to preempt: one more scenario, without victims.)
    EXPECT_EQ(counts.filtered, victim_has_pending ? 3 : 2);
    EXPECT_EQ(counts.simulated, victim_has_pending ? 1 : 0);
    EXPECT_EQ(counts.final_rejections, victim_has_pending ? 0 : 1);
  }
}

TEST(PreemptActionTest, HigherPriorityEvictsLowerPriorityOfTheSameQueue) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 1});
  c.AddQueue({.name = "q", .gpu_quota = 1});
  c.AddQueue({.name = "other", .gpu_quota = 1});
  c.AddJob(RunningJob("train", "q", 1, "n", 1, 50));
  c.AddJob(PendingJob("other-inference", "other", 1, 1, 125));
  TestSession s(c);
  s.Run({"preempt"});
  // Preempt only takes victims from the preemptor's own queue.
  EXPECT_TRUE(s.sink().evictions.empty());

  TestCluster c2;
  c2.AddNode({.name = "n", .gpus = 1});
  c2.AddQueue({.name = "q", .gpu_quota = 1});
  c2.AddJob(RunningJob("train", "q", 1, "n", 1, 50));
  c2.AddJob(PendingJob("inference", "q", 1, 1, 125));
  TestSession s2(c2);
  s2.Run({"preempt"});
  ASSERT_EQ(s2.sink().evictions.size(), 1u);
  EXPECT_EQ(s2.sink().evictions[0].message,
            "Pod default/train-0 was preempted by higher priority workload default/inference");
}

TEST(StaleGangEvictionTest, GracePeriodThenEvictionWithMessage) {
  for (int stale_sec : {30, 90}) {
    TestCluster c;
    c.SetArg("default-staleness-grace-period", "60s");
    c.AddNode({.name = "n", .gpus = 2});
    c.AddQueue({.name = "q"});
    JobSpec j = RunningJob("gang", "q", 1, "n", 1);
    j.tasks.push_back({});
    j.min_member = 2;
    j.stale_sec = stale_sec;
    c.AddJob(j);
    TestSession s(c);
    s.Run({"stalegangeviction"});
    if (stale_sec < 60) {
      EXPECT_TRUE(s.sink().evictions.empty());
      EXPECT_FALSE(s.Job("gang")->stale);
    } else {
      ASSERT_EQ(s.sink().evictions.size(), 1u);
      EXPECT_EQ(s.sink().evictions[0].message,
                "Workload doesn't meet the minimum required number of pods (2), evicting "
                "remaining pod: default/gang-0");
      EXPECT_EQ(s.sink().evictions[0].metadata.action, "stalegangeviction");
      EXPECT_TRUE(s.Job("gang")->stale);
    }
  }
}

TEST(StaleGangEvictionTest, FirstSeenStaleRemembersNowAndRecoveredJobsAreCleared) {
  TestCluster c;
  c.SetArg("default-staleness-grace-period", "60s");
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q"});
  JobSpec fresh = RunningJob("fresh", "q", 1, "n", 1);
  fresh.tasks.push_back({});
  fresh.min_member = 2;
  c.AddJob(fresh);
  JobSpec healed = RunningJob("healed", "q", 1, "n", 1);
  healed.stale_sec = 300;
  c.AddJob(healed);
  TestSession s(c);
  s.Run({"stalegangeviction"});
  EXPECT_EQ(s.Job("fresh")->stale_timestamp, testing::TestNow());
  EXPECT_FALSE(s.Job("healed")->stale_timestamp.has_value());
  EXPECT_TRUE(s.sink().evictions.empty());
}

TEST(SnapshotTest, SchedulingBackoffSkipsAJobAlreadyTriedInThisNodePool) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q"});
  JobSpec tried = PendingJob("tried", "q", 1);
  tried.scheduling_backoff = 1;
  tried.condition_node_pool = "default";
  c.AddJob(tried);
  JobSpec other_pool = PendingJob("other-pool", "q", 1);
  other_pool.scheduling_backoff = 1;
  other_pool.condition_node_pool = "pool-b";
  c.AddJob(other_pool);
  JobSpec no_backoff = PendingJob("no-backoff", "q", 1);
  no_backoff.condition_node_pool = "default";
  c.AddJob(no_backoff);
  TestSession s(c);
  // §6.4: skipped from the snapshot altogether.
  EXPECT_EQ(s.Job("tried"), nullptr);
  s.Run({"allocate"});
  EXPECT_EQ(s.Task("tried-0")->status, PodStatus::kPending);
  EXPECT_EQ(s.Task("other-pool-0")->status, PodStatus::kBinding);
  EXPECT_EQ(s.Task("no-backoff-0")->status, PodStatus::kBinding);
}

}  // namespace
}  // namespace kai::scheduler
