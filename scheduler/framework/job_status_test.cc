// What is reported for pending jobs at session close (reference §21.2), checked on sessions
// that ran the allocate action over small clusters.
#include "scheduler/framework/job_status.h"

#include <gtest/gtest.h>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TaskState;
using testing::TestCluster;
using testing::TestSession;

JobStatusReport Report(TestSession& s, const std::string& job) {
  return BuildJobStatusReport(*s.Job(job), "default");
}

TEST(JobStatusTest, IncompleteGangIsNotReady) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 4});
  c.AddQueue({.name = "q"});
  JobSpec j = PendingJob("short", "q", 1, 2);
  j.min_member = 3;
  j.tasks[1].state = TaskState::kGated;
  c.AddJob(j);
  TestSession s(c);
  s.Run({"allocate"});
  JobStatusReport r = Report(s, "short");
  EXPECT_TRUE(r.has_pending);
  EXPECT_EQ(r.not_ready_message,
            "Job is not ready for scheduling. Waiting for 3 pods, currently 2 exist, 1 are gated");
  EXPECT_EQ(r.Explanation(), r.not_ready_message);
  EXPECT_TRUE(r.pod_messages.empty());
  EXPECT_FALSE(r.set_condition);
}

TEST(JobStatusTest, NotReadySubGroupIsNamed) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 4});
  c.AddQueue({.name = "q"});
  JobSpec j = PendingJob("sg", "q", 1, 2);
  j.subgroups = {{.name = "workers", .min_member = 2}, {.name = "leader", .min_member = 1}};
  j.tasks[0].subgroup = "workers";
  j.tasks[1].subgroup = "leader";
  c.AddJob(j);
  TestSession s(c);
  JobStatusReport r = Report(s, "sg");
  EXPECT_EQ(r.not_ready_message,
            "Job is not ready for scheduling. Waiting for 2 pods for SubGroup workers, currently 1 "
            "exist, 0 are gated.");
}

TEST(JobStatusTest, GangThatDoesNotFitExplainsHowManyPodsFit) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("gang", "q", 1, 3));
  TestSession s(c);
  s.Run({"allocate"});
  JobStatusReport r = Report(s, "gang");
  const std::string inner =
      "Resources were found for 2 pods while 3 are required for gang scheduling. Additional "
      "pods cannot be scheduled due to: no nodes with enough resources were found: 1 node(s) "
      "didn't have enough resources: GPUs.";
  EXPECT_EQ(r.podgroup_message, "PodSchedulingErrors: " + inner + ".");
  EXPECT_TRUE(r.set_condition);
  ASSERT_EQ(r.reasons.size(), 1u);
  EXPECT_EQ(r.reasons[0].reason, "PodSchedulingErrors");
  EXPECT_EQ(r.reasons[0].message, inner);
  // The pods that fitted carry the job's message, the one that did not its own fit error.
  ASSERT_EQ(r.pod_messages.size(), 3u);
  EXPECT_EQ(r.pod_messages[0].message, r.podgroup_message);
  EXPECT_EQ(r.pod_messages[2].message,
            "no nodes with enough resources were found: 1 node(s) didn't have enough resources: "
            "GPUs.");
}

TEST(JobStatusTest, SinglePodThatDoesNotFitNamesThePod) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 1});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("big", "q", 2));
  TestSession s(c);
  s.Run({"allocate"});
  // MaxNodePoolResources rejects it before any node is tried.
  EXPECT_EQ(Report(s, "big").podgroup_message,
            "PodSchedulingErrors: Resources were not found for pod default/big-0 due to: "
            "Scheduling conditions were not met for pod default/big-0:\nThe pod default/big-0 "
            "requires GPU: 2, CPU: 1 (cores), memory: 1 (GB). Max GPU resources available in a "
            "single node in the default node-pool is topped at 1..");
}

TEST(JobStatusTest, QueueLimitIsReportedWithTheQueueNumbers) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 4});
  c.AddQueue({.name = "q", .gpu_quota = 1, .gpu_limit = 1});
  c.AddJob(PendingJob("job", "q", 2));
  TestSession s(c);
  s.Run({"allocate"});
  JobStatusReport r = Report(s, "job");
  EXPECT_EQ(r.podgroup_message,
            "OverLimit: q quota has reached the allowable limit of GPUs. Limit is 1 GPUs, "
            "currently 0 GPUs allocated and workload requested 2 GPUs.");
  ASSERT_EQ(r.reasons.size(), 1u);
  ASSERT_TRUE(r.reasons[0].details.has_value());
  EXPECT_EQ(r.reasons[0].details->limits.at("gpu"), 1);
}

TEST(JobStatusTest, NodePoolPrefixWithSchedulingBackoff) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 1});
  c.AddQueue({.name = "q", .gpu_quota = 0, .gpu_limit = 0});
  JobSpec j = PendingJob("job", "q", 1);
  j.scheduling_backoff = 1;
  j.mark_unschedulable = false;
  c.AddJob(j);
  TestSession s(c);
  s.Run({"allocate"});
  JobStatusReport r = BuildJobStatusReport(*s.Job("job"), "pool-a");
  EXPECT_EQ(r.podgroup_message.rfind("Node-Pool 'pool-a': OverLimit: ", 0), 0u)
      << r.podgroup_message;
  ASSERT_EQ(r.pod_messages.size(), 1u);
  EXPECT_EQ(r.pod_messages[0].message.rfind("Node-Pool 'pool-a': ", 0), 0u);
  EXPECT_FALSE(r.pod_messages[0].update_condition);
}

TEST(JobStatusTest, PartlyRunningJobGetsNoCondition) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 1});
  c.AddQueue({.name = "q"});
  JobSpec j = RunningJob("elastic", "q", 1, "n", 2);
  j.min_member = 1;
  j.tasks[1] = {};
  c.AddJob(j);
  TestSession s(c);
  s.Run({"allocate"});
  JobStatusReport r = Report(s, "elastic");
  EXPECT_TRUE(r.has_pending);
  EXPECT_FALSE(r.set_condition);
  EXPECT_EQ(r.podgroup_message.rfind("PodSchedulingErrors: Resources were not found for pod "
                                     "default/elastic-1",
                                     0),
            0u)
      << r.podgroup_message;
}

TEST(JobStatusTest, NothingPendingNothingReported) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 1});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("done", "q", 1, "n"));
  TestSession s(c);
  JobStatusReport r = Report(s, "done");
  EXPECT_FALSE(r.has_pending);
  EXPECT_EQ(r.Explanation(), "");
}

TEST(JobStatusTest, StaleJobEventCountsActivePods) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 2});
  c.AddQueue({.name = "q"});
  JobSpec j = RunningJob("stale", "q", 1, "n", 2);
  j.tasks[1] = {};  // one pod lost: 1 active of minMember 2
  j.tasks[1].state = TaskState::kSucceeded;
  j.tasks[1].state = TaskState::kPending;
  j.stale_sec = 120;
  c.AddJob(j);
  c.SetArg("default-staleness-grace-period", "60s");
  TestSession s(c);
  s.Run({"stalegangeviction"});
  JobStatusReport r = Report(s, "stale");
  EXPECT_EQ(r.stale_message, "Job is stale. 1 pods are active, minMember is 2");
}

}  // namespace
}  // namespace kai::scheduler
