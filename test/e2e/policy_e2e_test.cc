// End to end on localkube: the scheduling policies of issue 6 through the real binaries — bare
// pods as jobs of one, two queues sharing the cluster in their fair-share ratio, preemption
// inside a queue, reclaim from a queue over its quota, stale gang eviction.
#include "test/e2e/e2e_cluster.h"

namespace kai::e2e {
namespace {

using PolicyE2eTest = E2eCluster;

TEST_F(PolicyE2eTest, BarePodsAreScheduledAsJobsOfOne) {
  StartCluster(1, 4, Queue("default-queue", -1));
  StartScheduler();
  StartBinder();
  // No PodGroup, no queue label: default-queue, as KAI's pod grouper defaults.
  // (The ConfigMap name prefix is what KAI's admission webhook would add.)
  Apply(Pod("bare", PodSpec{}) +
        Pod("half", PodSpec{.gpus = 0,
                            .annotations = "    gpu-fraction: \"0.5\"\n"
                                           "    runai/shared-gpu-configmap: half-x-shared-gpu\n"}));
  ASSERT_TRUE(Eventually([&] { return AllRunning({"bare", "half"}); }));
  // Nothing was created for them: the scheduler's PodGroup is only in its model.
  EXPECT_EQ(K({"get", "podgroups", "-A", "-o", "name"}).out, "");
  // A pod naming a PodGroup that does not exist yet waits for it (the pod grouper's job).
  Apply(Pod("grouped", PodSpec{.podgroup = "later"}));
  ASSERT_TRUE(Eventually(
      [&] { return LogContains(child("scheduler"), "PodGroup team/later does not exist"); }));
  EXPECT_EQ(Pods()["team/grouped"].node, "");
  Apply(Gang("later", "default-queue", 0, 0, 1));
  EXPECT_TRUE(Eventually([&] { return AllRunning({"grouped"}); }));
  CheckInvariants();
}

TEST_F(PolicyE2eTest, TwoQueuesShareTheClusterInTheirFairShareRatio) {
  // 8 GPUs, no quota, over-quota weights 1 : 3: fair shares 2 and 6.
  StartCluster(2, 4, Queue("qa", 0, 1) + Queue("qb", 0, 3));
  std::string jobs;
  for (int i = 0; i < 8; ++i) {
    jobs += Pod("a-" + std::to_string(i), PodSpec{.queue = "qa"});
    jobs += Pod("b-" + std::to_string(i), PodSpec{.queue = "qb"});
  }
  Apply(jobs);
  // Both queues' demand is there before the first cycle.
  StartScheduler();
  StartBinder();
  ASSERT_TRUE(Eventually([&] { return CountRunning("a-") + CountRunning("b-") == 8; }));
  EXPECT_EQ(CountRunning("a-"), 2);
  EXPECT_EQ(CountRunning("b-"), 6);
  CheckInvariants();
}

TEST_F(PolicyE2eTest, HigherPriorityJobPreemptsInItsQueue) {
  StartCluster(1, 2, Queue("q", -1) + PriorityClass("low", 40) + PriorityClass("high", 200));
  StartScheduler();
  StartBinder();
  Apply(Pod("low-0", PodSpec{.queue = "q", .priority_class = "low"}) +
        Pod("low-1", PodSpec{.queue = "q", .priority_class = "low"}));
  ASSERT_TRUE(Eventually([&] { return AllRunning({"low-0", "low-1"}); }));
  Apply(Pod("urgent", PodSpec{.queue = "q", .priority_class = "high"}));
  ASSERT_TRUE(Eventually([&] { return AllRunning({"urgent"}); }));
  // Exactly one victim: the other low-priority pod keeps running.
  EXPECT_EQ(CountRunning("low-"), 1);
  auto evicts = K({"get", "events", "-n", "team", "-o",
                   "jsonpath={.items[?(@.reason==\"Evict\")].involvedObject.name}"});
  EXPECT_TRUE(evicts.out == "low-0" || evicts.out == "low-1") << evicts.out;
  CheckInvariants();
}

TEST_F(PolicyE2eTest, QueueUnderQuotaReclaimsFromQueueOverIt) {
  // 4 GPUs; qa deserves 1, qb deserves 3.
  StartCluster(1, 4, Queue("qa", 1) + Queue("qb", 3));
  StartScheduler();
  StartBinder();
  std::string a;
  for (int i = 0; i < 4; ++i) a += Pod("a-" + std::to_string(i), PodSpec{.queue = "qa"});
  Apply(a);
  ASSERT_TRUE(Eventually([&] { return CountRunning("a-") == 4; }));  // over quota: idle GPUs
  Apply(Pod("b-0", PodSpec{.queue = "qb"}) + Pod("b-1", PodSpec{.queue = "qb"}));
  ASSERT_TRUE(Eventually([&] { return AllRunning({"b-0", "b-1"}); }));
  EXPECT_EQ(CountRunning("a-"), 2);
  auto reclaims =
      K({"get", "events", "-n", "team", "-o",
         "jsonpath={.items[?(@.reason==\"Evict\")].metadata.annotations.evictor-action-type}"});
  EXPECT_EQ(reclaims.out, "reclaim reclaim") << reclaims.out;
  CheckInvariants();
}

TEST_F(PolicyE2eTest, StaleGangIsEvictedAfterItsGracePeriod) {
  StartCluster(1, 4, Queue("q", -1));
  StartScheduler({"--default-staleness-grace-period=4s"});
  StartBinder();
  Apply(Gang("gang", "q", 3, 1, 3));
  ASSERT_TRUE(Eventually([&] { return CountRunning("gang-") == 3; }));
  // One member goes (nothing recreates a bare pod): the gang is below its minimum.
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(K({"delete", "pod", "-n", "team", "gang-0", "--wait=false"}).ok());
  ASSERT_TRUE(Eventually([&] {
    return K({"get", "podgroup", "-n", "team", "gang", "-o",
              "jsonpath={.metadata.annotations.kai\\.scheduler/stale-podgroup-timestamp}"})
               .out != "";
  }));
  ASSERT_TRUE(Eventually([&] { return Pods().empty(); }));
  auto elapsed = std::chrono::steady_clock::now() - start;
  // Not before the grace period (the stale timestamp is an RFC 3339 time in whole seconds, as
  // KAI writes it: up to 1 s early).
  EXPECT_GE(elapsed, std::chrono::seconds(3));
  auto evicts =
      K({"get", "events", "-n", "team", "-o",
         "jsonpath={.items[?(@.reason==\"Evict\")].metadata.annotations.evictor-action-type}"});
  EXPECT_NE(evicts.out.find("stalegangeviction"), std::string::npos) << evicts.out;
  CheckInvariants();
}

}  // namespace
}  // namespace kai::e2e
