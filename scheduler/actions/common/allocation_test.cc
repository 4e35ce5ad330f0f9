// Tasks to allocate (reference §7.2), gang all-or-nothing placement (§7.3) and the tasks taken
// from a victim job (§7.6).
#include "scheduler/actions/common/allocation.h"

#include <gtest/gtest.h>

#include "scheduler/framework/job_state_generation.h"
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

std::vector<std::string> Names(const std::vector<PodInfo*>& tasks) {
  std::vector<std::string> out;
  out.reserve(tasks.size());
  for (const PodInfo* t : tasks) out.push_back(t->name());
  return out;
}

TestCluster Base(double gpus = 8) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = gpus});
  c.AddQueue({.name = "q"});
  return c;
}

TEST(TasksToAllocateTest, GangTakesExactlyTheMissingMinimum) {
  TestCluster c = Base();
  JobSpec j = PendingJob("job", "q", 1, 5);
  j.min_member = 3;
  j.tasks[0] = {.state = TaskState::kRunning, .node = "n"};
  c.AddJob(j);
  TestSession s(c);
  // 1 active of 3: two more, in task order.
  EXPECT_EQ(Names(GetTasksToAllocate(s.ssn(), *s.Job("job"), true)),
            (std::vector<std::string>{"job-1", "job-2"}));
}

TEST(TasksToAllocateTest, SatisfiedElasticJobGrowsOnePodAtATime) {
  TestCluster c = Base();
  JobSpec j = RunningJob("job", "q", 1, "n", 2);
  j.min_member = 2;
  j.tasks.push_back({});
  j.tasks.push_back({});
  c.AddJob(j);
  TestSession s(c);
  EXPECT_EQ(Names(GetTasksToAllocate(s.ssn(), *s.Job("job"), true)),
            (std::vector<std::string>{"job-2"}));
}

TEST(TasksToAllocateTest, EveryUnsatisfiedSubGroupContributesItsMinimum) {
  TestCluster c = Base();
  JobSpec j = PendingJob("sg", "q", 1, 5);
  j.subgroups = {{.name = "leader", .min_member = 1}, {.name = "workers", .min_member = 3}};
  j.tasks[0].subgroup = "leader";
  for (int i = 1; i < 5; ++i) j.tasks[i].subgroup = "workers";
  c.AddJob(j);
  TestSession s(c);
  std::vector<std::string> tasks = Names(GetTasksToAllocate(s.ssn(), *s.Job("sg"), true));
  // Both PodSets are below their minimum: 1 leader + 3 workers (PodSet order: the lower
  // allocation ratio first, then name).
  EXPECT_EQ(tasks.size(), 4u);
  EXPECT_EQ(std::count(tasks.begin(), tasks.end(), "sg-0"), 1);
}

TEST(TasksToAllocateTest, SimulationsAlsoConsiderVirtuallyEvictedTasks) {
  TestCluster c = Base();
  c.AddJob(RunningJob("job", "q", 1, "n", 2));
  TestSession s(c);
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("job-0"), "x", {}).ok());
  ASSERT_TRUE(stmt->Evict(s.Task("job-1"), "x", {}).ok());
  EXPECT_TRUE(GetTasksToAllocate(s.ssn(), *s.Job("job"), true).empty());
  EXPECT_EQ(Names(GetTasksToAllocate(s.ssn(), *s.Job("job"), false)),
            (std::vector<std::string>{"job-0", "job-1"}));
  stmt->Discard();
}

TEST(TasksToAllocateTest, InitResourceConvertsGpuMemoryWithTheMinimalNodeMemory) {
  TestCluster c = Base();
  JobSpec j = PendingJob("mem", "q", 0, 2);
  j.gpu_memory_mib = 2000;
  c.AddJob(j);
  TestSession s(c);
  // §24.1: MinNodeGPUMemory is effectively 100 MiB, so 2 x 2000 MiB count as 40 GPUs.
  EXPECT_DOUBLE_EQ(GetTasksToAllocateInitResource(s.ssn(), *s.Job("mem"), true).gpu(), 40);
}

// The memo is trusted without re-reading its key while the job-state generation stands still:
// every statement change and rollback, and a partial job's minimums (set by the victim solver,
// which then bumps the generation), must show in the next answer.
TEST(TasksToAllocateTest, MemoFollowsStatementChangesRollbackAndMinimums) {
  TestCluster c = Base();
  JobSpec j = PendingJob("job", "q", 1, 4);
  j.min_member = 2;
  c.AddJob(j);
  TestSession s(c);
  Session& ssn = s.ssn();
  const PodGroupInfo& job = *s.Job("job");
  auto tasks = [&] { return Names(GetTasksToAllocate(ssn, job, true)); };
  using V = std::vector<std::string>;
  EXPECT_EQ(tasks(), (V{"job-0", "job-1"}));
  EXPECT_EQ(tasks(), (V{"job-0", "job-1"}));  // memo hit
  EXPECT_EQ(GetTasksToAllocateInitResource(ssn, job, true).gpu(), 2);
  auto stmt = ssn.NewStatement();
  const uint64_t version = job.status_version;
  EXPECT_NE(version, 0u);  // a job of the session's map
  ASSERT_TRUE(stmt->Allocate(s.Task("job-0"), "n").ok());
  EXPECT_GT(job.status_version, version);
  EXPECT_EQ(tasks(), (V{"job-1"}));
  EXPECT_EQ(GetTasksToAllocateInitResource(ssn, job, true).gpu(), 1);
  ASSERT_TRUE(stmt->Allocate(s.Task("job-1"), "n").ok());
  EXPECT_EQ(tasks(), (V{"job-2"}));  // gang satisfied: one more elastic pod
  stmt->Discard();
  EXPECT_EQ(tasks(), (V{"job-0", "job-1"}));
  EXPECT_EQ(GetTasksToAllocateInitResource(ssn, job, true).gpu(), 2);

  // A partial copy (as the victim solver makes) with a lower minimum.
  PodGroupInfo partial(job, {s.Task("job-0"), s.Task("job-1"), s.Task("job-2")});
  EXPECT_EQ(Names(GetTasksToAllocate(ssn, partial, true)), (V{"job-0", "job-1"}));
  partial.FindPodSet(std::string(kDefaultSubGroup))->set_min_available(3);
  BumpJobStructure();
  EXPECT_EQ(Names(GetTasksToAllocate(ssn, partial, true)), (V{"job-0", "job-1", "job-2"}));
  // The copy (no status version of its own) shares job-0 with the session job: a status change
  // through a statement shows in its memo too.
  EXPECT_EQ(partial.status_version, 0u);
  ASSERT_TRUE(stmt->Allocate(s.Task("job-0"), "n").ok());
  EXPECT_EQ(Names(GetTasksToAllocate(ssn, partial, true)), (V{"job-1", "job-2"}));
  stmt->Discard();
  EXPECT_EQ(Names(GetTasksToAllocate(ssn, partial, true)), (V{"job-0", "job-1", "job-2"}));
}

TEST(TasksToEvictTest, SinglePodAboveTheMinimumOtherwiseTheWholeGang) {
  TestCluster c = Base();
  JobSpec elastic = RunningJob("elastic", "q", 1, "n", 3);
  elastic.min_member = 1;
  c.AddJob(elastic);
  c.AddJob(RunningJob("gang", "q", 1, "n", 3));
  TestSession s(c);
  auto [elastic_tasks, more] = GetTasksToEvict(s.ssn(), *s.Job("elastic"));
  // Reverse task order: the last pod first.
  EXPECT_EQ(Names(elastic_tasks), (std::vector<std::string>{"elastic-2"}));
  EXPECT_TRUE(more);
  auto [gang_tasks, gang_more] = GetTasksToEvict(s.ssn(), *s.Job("gang"));
  EXPECT_EQ(gang_tasks.size(), 3u);
  EXPECT_FALSE(gang_more);
}

TEST(AllocateJobTest, GangIsAllOrNothing) {
  TestCluster c = Base(2);
  c.AddJob(PendingJob("gang", "q", 1, 3));
  TestSession s(c);
  const std::string before = testing::ModelFingerprint(s.ssn());
  auto stmt = s.ssn().NewStatement();
  EXPECT_FALSE(AllocateJob(&s.ssn(), stmt.get(), s.cluster().node_list, s.Job("gang"), false));
  // The two pods that fitted were rolled back.
  EXPECT_EQ(testing::ModelFingerprint(s.ssn()), before);
  stmt->Discard();
}

TEST(AllocateJobTest, PipelineOnlyModePipelinesEvenOnIdleResources) {
  TestCluster c = Base(2);
  c.AddJob(PendingJob("job", "q", 1, 2));
  TestSession s(c);
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(AllocateJob(&s.ssn(), stmt.get(), s.cluster().node_list, s.Job("job"), true));
  EXPECT_EQ(s.Task("job-0")->status, PodStatus::kPipelined);
  EXPECT_EQ(s.Task("job-1")->status, PodStatus::kPipelined);
  stmt->Discard();
}

TEST(AllocateJobTest, QueueLimitFailsTheJobBeforeAnyNodeIsTried) {
  TestCluster c = Base();
  c.AddQueue({.name = "limited", .gpu_quota = 1, .gpu_limit = 1});
  c.AddJob(PendingJob("job", "limited", 1, 2));
  TestSession s(c);
  auto stmt = s.ssn().NewStatement();
  EXPECT_FALSE(AllocateJob(&s.ssn(), stmt.get(), s.cluster().node_list, s.Job("job"), false));
  EXPECT_TRUE(stmt->empty());
  ASSERT_EQ(s.Job("job")->job_fit_errors.size(), 1u);
  EXPECT_EQ(s.Job("job")->job_fit_errors[0].reason, "OverLimit");
}

}  // namespace
}  // namespace kai::scheduler

namespace kai::scheduler {
namespace {

// New shared-GPU groups are named from the session's seed, the pod and the node, not drawn from
// the random stream: a placement made and discarded first (as every victim simulation does)
// leaves the name of the placement that is kept as it would have been.
TEST(GpuGroupNamesTest, ADiscardedPlacementLeavesLaterNamesAsTheyWere) {
  TestCluster c = Base(2);
  c.AddJob(PendingJob("half", "q", 0.5));
  c.AddJob(PendingJob("other", "q", 0.5));
  auto place = [](TestSession* s, const char* job, bool discard_first) {
    Session& ssn = s->ssn();
    if (discard_first) {
      auto trial = ssn.NewStatement();
      EXPECT_TRUE(AllocateJob(&ssn, trial.get(), ssn.cluster().node_list, s->Job("other"), false));
      trial->Discard();
    }
    auto stmt = ssn.NewStatement();
    EXPECT_TRUE(AllocateJob(&ssn, stmt.get(), ssn.cluster().node_list, s->Job(job), false));
    std::vector<std::string> groups = s->Task(std::string(job) + "-0")->gpu_groups;
    stmt->Commit().IgnoreError();
    return groups;
  };
  TestSession plain(c), after_trial(c);
  const std::vector<std::string> kept = place(&plain, "half", false);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(place(&after_trial, "half", true), kept);
  // Another seed, other names.
  TestSession other_seed(c, {}, 2);
  EXPECT_NE(place(&other_seed, "half", false), kept);
}

// The name a pod would get on a node is passed over while the node still holds a group of that
// name (the pod moved off it and released nothing yet, say); once the group is gone it is given
// again.
TEST(GpuGroupNamesTest, ANameTheNodeStillHoldsIsNotGivenAgain) {
  TestCluster c = Base(2);
  c.AddJob(PendingJob("half", "q", 0.5));
  TestSession s(c);
  Session& ssn = s.ssn();
  PodInfo* task = s.Task("half-0");
  const NodeInfo& node = *s.Node("n");
  const std::string name = ssn.NewGpuGroupName(*task, node, 0, {});
  EXPECT_EQ(ssn.NewGpuGroupName(*task, node, 0, {}), name);
  EXPECT_NE(ssn.NewGpuGroupName(*task, node, 0, {name}), name);
  auto stmt = ssn.NewStatement();
  ASSERT_TRUE(AllocateJob(&ssn, stmt.get(), ssn.cluster().node_list, s.Job("half"), false));
  ASSERT_EQ(task->gpu_groups, std::vector<std::string>{name});
  ASSERT_TRUE(node.KnowsGpuGroup(name));
  const std::string next = ssn.NewGpuGroupName(*task, node, 0, {});
  EXPECT_NE(next, name);
  EXPECT_EQ(ssn.NewGpuGroupName(*task, node, 0, {}), next);
  stmt->Discard();
  EXPECT_FALSE(node.KnowsGpuGroup(name));
  EXPECT_EQ(ssn.NewGpuGroupName(*task, node, 0, {}), name);
}

}  // namespace
}  // namespace kai::scheduler
