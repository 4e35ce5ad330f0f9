// JobsOrderByQueues (reference §7.1, §9.4): jobs are popped queue by queue in the proportion
// plugin's queue order and within a queue in job order; in victim mode the order is reversed.
#include "scheduler/actions/common/job_order.h"

#include <gtest/gtest.h>

#include "scheduler/actions/common/victims.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

std::vector<std::string> PopAll(JobsOrderByQueues* q) {
  std::vector<std::string> out;
  while (!q->empty()) {
    PodGroupInfo* j = q->PopNextJob();
    if (j == nullptr) break;
    out.push_back(j->name());
  }
  return out;
}

TEST(JobsOrderByQueuesTest, UnderServedQueueFirstThenJobOrder) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 2, .gpu_weight = 0});
  c.AddJob(RunningJob("q0-running", "q0", 3, "n"));  // q0 is over its fair share
  c.AddJob(PendingJob("q0-a", "q0", 1, 1, 50));
  c.AddJob(PendingJob("q1-low", "q1", 1, 1, 50));
  c.AddJob(PendingJob("q1-high", "q1", 1, 1, 125));
  TestSession s(c);
  JobsOrderOptions opts;
  opts.filter_non_pending = true;
  JobsOrderByQueues q(&s.ssn(), opts);
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(q.size(), 3);
  // q1 (nothing allocated) first; inside q1 the higher priority; q0 last.
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"q1-high", "q1-low", "q0-a"}));
}

TEST(JobsOrderByQueuesTest, DrfWithTheJobBreaksTiesBetweenEqualQueues) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  // Equal allocation (1 each); q1's candidate is smaller, so its dominant share with the job
  // is lower (§9.4 rule 5).
  c.AddJob(RunningJob("r0", "q0", 1, "n"));
  c.AddJob(RunningJob("r1", "q1", 1, "n"));
  c.AddJob(PendingJob("big", "q0", 2));
  c.AddJob(PendingJob("small", "q1", 1));
  TestSession s(c);
  JobsOrderOptions opts;
  opts.filter_non_pending = true;
  JobsOrderByQueues q(&s.ssn(), opts);
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"small", "big"}));
}

TEST(JobsOrderByQueuesTest, FiltersUnreadyAndNonPendingJobs) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("done", "q", 1, "n"));
  JobSpec unready = PendingJob("unready", "q", 1, 1);
  unready.min_member = 2;
  c.AddJob(unready);
  c.AddJob(PendingJob("ok", "q", 1));
  TestSession s(c);
  JobsOrderOptions opts;
  opts.filter_non_pending = true;
  opts.filter_unready = true;
  JobsOrderByQueues q(&s.ssn(), opts);
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"ok"}));
}

TEST(JobsOrderByQueuesTest, JobsOfAMissingOrNonLeafQueueAreDropped) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "parent"});
  c.AddQueue({.name = "leaf", .parent = "parent"});
  c.AddJob(PendingJob("on-parent", "parent", 1));
  c.AddJob(PendingJob("on-missing", "no-such-queue", 1));
  c.AddJob(PendingJob("on-leaf", "leaf", 1));
  TestSession s(c);
  JobsOrderByQueues q(&s.ssn(), JobsOrderOptions{});
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"on-leaf"}));
}

TEST(JobsOrderByQueuesTest, PushedBackJobCompetesAgain) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(PendingJob("a", "q0", 1));
  c.AddJob(PendingJob("b", "q1", 1));
  TestSession s(c);
  JobsOrderByQueues q(&s.ssn(), JobsOrderOptions{});
  q.InitializeWithJobs(AllJobs(s.ssn()));
  PodGroupInfo* first = q.PopNextJob();
  ASSERT_NE(first, nullptr);
  q.PushJob(first);
  EXPECT_EQ(q.size(), 2);
  // Nothing changed in the queues' allocation, so the same job comes first again.
  EXPECT_EQ(q.PopNextJob(), first);
}

TEST(VictimsQueueTest, MostOverServedQueueLowestPriorityJobFirst) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(RunningJob("q0-high", "q0", 2, "n", 1, 75));
  c.AddJob(RunningJob("q0-low", "q0", 2, "n", 1, 50));
  c.AddJob(RunningJob("q1-low", "q1", 1, "n", 1, 50));
  TestSession s(c);
  auto q = GetVictimsQueue(s.ssn(), nullptr);
  // q0 uses 4 of a fair share of 1 (the most over-served): its lowest-priority job goes first,
  // then, with that job counted as a victim, the queues are compared again.
  std::vector<std::string> order = PopAll(q.get());
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], "q0-low");
}

}  // namespace
}  // namespace kai::scheduler
