// Job, task and PodSet order (reference §7.1): priority, then elastic, then creation time and
// UID; task order kubeflow > ray > taskorder > creation time; PodSet order subgrouporder > name.
#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TaskState;
using testing::TestCluster;
using testing::TestSession;

TestCluster Base() {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q"});
  return c;
}

TEST(JobOrderTest, HigherPriorityFirst) {
  TestCluster c = Base();
  c.AddJob(PendingJob("train", "q", 1, 1, 50));
  c.AddJob(PendingJob("inference", "q", 1, 1, 125));
  TestSession s(c);
  EXPECT_TRUE(s.ssn().JobOrderLess(*s.Job("inference"), *s.Job("train")));
  EXPECT_FALSE(s.ssn().JobOrderLess(*s.Job("train"), *s.Job("inference")));
}

TEST(JobOrderTest, SamePriorityOlderFirstThenUid) {
  TestCluster c = Base();
  JobSpec young = PendingJob("a-young", "q", 1);
  young.age_min = 5;
  JobSpec old = PendingJob("b-old", "q", 1);
  old.age_min = 50;
  c.AddJob(young);
  c.AddJob(old);
  JobSpec twin = PendingJob("c-twin", "q", 1);
  twin.age_min = 50;
  c.AddJob(twin);
  TestSession s(c);
  EXPECT_TRUE(s.ssn().JobOrderLess(*s.Job("b-old"), *s.Job("a-young")));
  // Same creation time: UID ("namespace/name") decides.
  EXPECT_TRUE(s.ssn().JobOrderLess(*s.Job("b-old"), *s.Job("c-twin")));
}

TEST(JobOrderTest, ElasticBelowMinimumBeforeAtMinimumBeforeAbove) {
  TestCluster c = Base();
  JobSpec above = RunningJob("above", "q", 1, "n", 2);
  above.min_member = 1;
  above.tasks.push_back({});
  above.age_min = 60;
  JobSpec at = RunningJob("at", "q", 1, "n", 1);
  at.tasks.push_back({});
  at.min_member = 1;
  at.age_min = 50;
  JobSpec below = PendingJob("below", "q", 1, 2);
  below.age_min = 10;
  c.AddJob(above);
  c.AddJob(at);
  c.AddJob(below);
  TestSession s(c);
  EXPECT_TRUE(s.ssn().JobOrderLess(*s.Job("below"), *s.Job("at")));
  EXPECT_TRUE(s.ssn().JobOrderLess(*s.Job("at"), *s.Job("above")));
  EXPECT_TRUE(s.ssn().JobOrderLess(*s.Job("below"), *s.Job("above")));
}

// The job order is memoized per job (ranks stamped with the job-state generation): every status
// change a statement makes, and its rollback, must show in the next comparison.
TEST(JobOrderTest, MemoizedOrderFollowsStatementChangesAndRollback) {
  TestCluster c = Base();
  // Both elastic jobs at their minimum (one running of min 1, one more pending): class "at".
  JobSpec a = RunningJob("a", "q", 1, "n", 1);
  a.min_member = 1;
  a.tasks.push_back({});
  a.age_min = 60;
  JobSpec b = RunningJob("b", "q", 1, "n", 1);
  b.min_member = 1;
  b.tasks.push_back({});
  b.age_min = 30;
  c.AddJob(a);
  c.AddJob(b);
  TestSession s(c);
  Session& ssn = s.ssn();
  const PodGroupInfo& ja = *s.Job("a");
  const PodGroupInfo& jb = *s.Job("b");
  auto check = [&](bool a_first) {
    EXPECT_EQ(ssn.JobOrderLess(ja, jb), a_first);
    EXPECT_EQ(ssn.JobOrderLess(jb, ja), !a_first);
    EXPECT_EQ(ssn.JobOrderLessUncached(ja, jb), a_first);
  };
  check(true);  // same class: the older job first
  auto stmt = ssn.NewStatement();
  Statement::Checkpoint start = stmt->MakeCheckpoint();
  // a grows above its minimum: b ("at") now comes first.
  ASSERT_TRUE(stmt->Allocate(s.Task(testing::PodName("a", 1)), "n").ok());
  check(false);
  ASSERT_TRUE(stmt->Rollback(start).ok());
  check(true);
  // a loses its only running pod: below its minimum, first again even after b is evicted too.
  ASSERT_TRUE(stmt->Evict(s.Task(testing::PodName("a", 0)), "msg", {}).ok());
  check(true);
  ASSERT_TRUE(stmt->Pipeline(s.Task(testing::PodName("b", 1)), "n", false).ok());
  check(true);
  stmt->Discard();
  check(true);
  ASSERT_TRUE(stmt->Pipeline(s.Task(testing::PodName("a", 1)), "n", false).ok());
  check(false);  // a pipelined pod counts as allocated: a is above its minimum
  stmt->Discard();
  check(true);
}

// A job-order function registered without a rank turns the memo off: it is consulted on every
// comparison, in registration order.
TEST(JobOrderTest, FunctionWithoutRankIsAlwaysCalled) {
  TestCluster c = Base();
  c.AddJob(PendingJob("low", "q", 1, 1, 50));
  c.AddJob(PendingJob("high", "q", 1, 1, 125));
  TestSession s(c);
  Session& ssn = s.ssn();
  EXPECT_TRUE(ssn.JobOrderLess(*s.Job("high"), *s.Job("low")));
  int calls = 0;
  // Registered after priority and elastic, so it only decides their ties; still called.
  ssn.AddJobOrderFn([&calls](const PodGroupInfo&, const PodGroupInfo&) {
    ++calls;
    return 0;
  });
  EXPECT_TRUE(ssn.JobOrderLess(*s.Job("high"), *s.Job("low")));
  EXPECT_FALSE(ssn.JobOrderLess(*s.Job("low"), *s.Job("high")));
  EXPECT_EQ(calls, 0);  // priority decided before the new function was reached
  EXPECT_FALSE(ssn.JobOrderLess(*s.Job("high"), *s.Job("high")));
  EXPECT_EQ(calls, 1);  // a tie on priority and elastic reaches it
}

TEST(TaskOrderTest, LeadersThenTaskPriorityThenCreation) {
  TestCluster c = Base();
  JobSpec j = PendingJob("job", "q", 1, 5);
  j.tasks[0].task_priority = 1;
  j.tasks[1].task_priority = 7;
  j.tasks[2].labels = {{"training.kubeflow.org/job-role", "master"}};
  j.tasks[3].labels = {{"ray.io/node-type", "head"}};
  j.tasks[4].labels = {{"kai.scheduler/task-priority", "not-a-number"}};
  c.AddJob(j);
  TestSession s(c);
  auto less = [&](int a, int b) {
    return s.ssn().TaskOrderLess(*s.Task(testing::PodName("job", a)),
                                 *s.Task(testing::PodName("job", b)));
  };
  EXPECT_TRUE(less(2, 3));  // kubeflow master before ray head (kubeflow is registered first)
  EXPECT_TRUE(less(3, 1));  // ray head before any task priority
  EXPECT_TRUE(less(1, 0));  // task-priority 7 before 1
  EXPECT_TRUE(less(0, 4));  // an unparsable task priority sorts last
}

// Sorts read ranks once per task; the order must be the one sorting with TaskOrderLess gives,
// both ways, with ties and the extreme priorities (~p, not -p, for INT64_MIN).
TEST(TaskOrderTest, SortTasksEqualsSortingWithTaskOrderLess) {
  TestCluster c = Base();
  JobSpec j = PendingJob("job", "q", 1, 10);
  j.tasks[0].labels = {{"kai.scheduler/task-priority", "-9223372036854775808"}};
  j.tasks[1].labels = {{"kai.scheduler/task-priority", "9223372036854775807"}};
  j.tasks[2].labels = {{"kai.scheduler/task-priority", "-3"}};
  j.tasks[3].labels = {{"kai.scheduler/task-priority", "-3"}};
  j.tasks[4].labels = {{"training.kubeflow.org/job-role", "launcher"}};
  j.tasks[5].labels = {{"ray.io/node-type", "head"}, {"kai.scheduler/task-priority", "2"}};
  j.tasks[6].labels = {{"kai.scheduler/task-priority", "9223372036854775808"}};  // out of range
  j.tasks[7].labels = {{"kai.scheduler/task-priority", "0"}};
  c.AddJob(j);
  TestSession s(c);
  Session& ssn = s.ssn();
  std::vector<PodInfo*> tasks;
  for (int i = 9; i >= 0; --i) tasks.push_back(s.Task(testing::PodName("job", i)));
  for (bool reverse : {false, true}) {
    std::vector<PodInfo*> expected = tasks;
    std::sort(expected.begin(), expected.end(), [&](PodInfo* l, PodInfo* r) {
      return reverse ? ssn.TaskOrderLess(*r, *l) : ssn.TaskOrderLess(*l, *r);
    });
    std::vector<PodInfo*> sorted = tasks;
    ssn.SortTasks(&sorted, reverse);
    EXPECT_EQ(sorted, expected) << "reverse " << reverse;
  }
  std::vector<PodInfo*> sorted = tasks;
  ssn.SortTasks(&sorted, false);
  EXPECT_EQ(sorted[0]->name(), testing::PodName("job", 4));  // the kubeflow launcher
  EXPECT_EQ(sorted[1]->name(), testing::PodName("job", 5));  // the ray head
  EXPECT_EQ(sorted[2]->name(), testing::PodName("job", 1));  // the highest priority
  EXPECT_EQ(sorted[6]->name(), testing::PodName("job", 0));  // the lowest priority

  // A plain comparison function turns the ranked sort off; the order still follows every
  // function.
  ssn.AddTaskOrderFn([](const PodInfo& l, const PodInfo& r) {
    return l.name() < r.name() ? 1 : (r.name() < l.name() ? -1 : 0);
  });
  std::vector<PodInfo*> expected = tasks;
  std::sort(expected.begin(), expected.end(),
            [&](PodInfo* l, PodInfo* r) { return ssn.TaskOrderLess(*l, *r); });
  sorted = tasks;
  ssn.SortTasks(&sorted, false);
  EXPECT_EQ(sorted, expected);
}

TEST(PodSetOrderTest, UnsatisfiedFirstThenLowerAllocationRatio) {
  TestCluster c = Base();
  JobSpec j = PendingJob("sg", "q", 1, 5);
  j.subgroups = {{.name = "a", .min_member = 1},
                 {.name = "b", .min_member = 2},
                 {.name = "c", .min_member = 1}};
  j.tasks[0] = {.state = TaskState::kRunning, .node = "n", .subgroup = "a"};
  j.tasks[1] = {.state = TaskState::kRunning, .node = "n", .subgroup = "a"};
  j.tasks[2] = {.state = TaskState::kRunning, .node = "n", .subgroup = "b"};
  j.tasks[3] = {.subgroup = "b"};
  j.tasks[4] = {.state = TaskState::kRunning, .node = "n", .subgroup = "c"};
  c.AddJob(j);
  TestSession s(c);
  const PodGroupInfo& job = *s.Job("sg");
  const PodSet& a = *job.FindPodSet("a");   // 2 of 1: ratio 2
  const PodSet& b = *job.FindPodSet("b");   // 1 of 2: unsatisfied
  const PodSet& cc = *job.FindPodSet("c");  // 1 of 1: ratio 1
  EXPECT_TRUE(s.ssn().SubGroupOrderLess(b, cc));
  EXPECT_TRUE(s.ssn().SubGroupOrderLess(cc, a));
  EXPECT_TRUE(s.ssn().SubGroupOrderLess(b, a));
}

}  // namespace
}  // namespace kai::scheduler
