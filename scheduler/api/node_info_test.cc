// NodeInfo's task entries: an update in place leaves the node as removing the task and adding it
// again does (the shared-GPU groups, the releasing GPUs, the task's own accepted resources).
#include "scheduler/api/node_info.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::ModelFingerprint;
using testing::ReleasingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

TestCluster WholeAndSharedGpus() {
  TestCluster c;
  c.AddNode({.name = "node0", .gpus = 4});
  c.AddNode({.name = "node1", .gpus = 4});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("run", "q0", 1, "node0", 2));
  c.AddJob(RunningJob("half", "q0", 0.5, "node1"));
  c.AddJob(RunningJob("quarter", "q0", 0.25, "node1"));
  c.AddJob(ReleasingJob("leaving", "q0", 0.5, "node1"));
  return c;
}

TEST(NodeInfoTest, UpdateTaskInPlaceIsRemoveThenAdd) {
  const std::vector<std::pair<std::string, PodStatus>> changes = {
      {"run-0", PodStatus::kReleasing},     {"half-0", PodStatus::kReleasing},
      {"quarter-0", PodStatus::kReleasing}, {"leaving-0", PodStatus::kRunning},
      {"run-1", PodStatus::kPipelined},     {"half-0", PodStatus::kPipelined}};
  for (const auto& [name, status] : changes) {
    TestSession updated(WholeAndSharedGpus());
    TestSession readded(WholeAndSharedGpus());
    const std::string before = ModelFingerprint(updated.ssn());
    PodInfo* a = updated.Task(name);
    a->status = status;
    NodeInfo* updated_node = updated.cluster().FindNode(a->node_name);
    const uint64_t version = updated_node->accounting_version();
    const int used_shared = updated_node->NumberOfUsedSharedGpus();  // memoized before the update
    ASSERT_TRUE(updated_node->UpdateTask(a)) << name;
    // Caches keyed by the version see the change; the node's own memos are recomputed.
    EXPECT_NE(updated_node->accounting_version(), version) << name;
    PodInfo* b = readded.Task(name);
    b->status = status;
    NodeInfo* node = readded.cluster().FindNode(b->node_name);
    ASSERT_TRUE(node->RemoveTask(*b)) << name;
    ASSERT_TRUE(node->AddTask(b)) << name;
    EXPECT_NE(ModelFingerprint(updated.ssn()), before) << name;
    EXPECT_EQ(ModelFingerprint(updated.ssn()), ModelFingerprint(readded.ssn())) << name;
    EXPECT_EQ(updated_node->NumberOfUsedSharedGpus(), node->NumberOfUsedSharedGpus())
        << name << " (before the update: " << used_shared << ")";
  }
}

// The fair-share totals skip nodes without another scheduler's pod: the node counts those
// entries through every way an entry comes and goes.
TEST(NodeInfoTest, CountsTheEntriesOfOtherSchedulersPods) {
  TestSession s(WholeAndSharedGpus());
  NodeInfo* node = s.cluster().FindNode("node0");
  EXPECT_FALSE(node->HasOtherSchedulerTasks());
  EXPECT_FALSE(s.cluster().FindNode("node1")->HasOtherSchedulerTasks());
  PodInfo* task = s.Task("run-0");
  task->of_other_scheduler = true;
  ASSERT_TRUE(node->UpdateTask(task));
  EXPECT_TRUE(node->HasOtherSchedulerTasks());
  ASSERT_TRUE(node->RemoveTask(*task));
  EXPECT_FALSE(node->HasOtherSchedulerTasks());
  ASSERT_TRUE(node->AddTask(task));
  EXPECT_TRUE(node->HasOtherSchedulerTasks());
  NodeInfo copy = *node;
  EXPECT_TRUE(copy.HasOtherSchedulerTasks());
  task->of_other_scheduler = false;
  ASSERT_TRUE(node->UpdateTask(task));
  EXPECT_FALSE(node->HasOtherSchedulerTasks());
}

// Victim searches keep only nodes with an idle or a releasing GPU; an over-committed node's idle
// GPUs are negative, so their sum with the releasing ones does not tell.
TEST(NodeInfoTest, HasIdleOrReleasingGpusFollowsTheNodeAndItsParts) {
  TestCluster c;
  c.AddNode({.name = "full", .gpus = 2});
  c.AddNode({.name = "over", .gpus = 2});
  c.AddNode({.name = "free", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("fill", "q0", 1, "full", 2));
  c.AddJob(RunningJob("crowd", "q0", 1, "over", 2));
  c.AddJob(ReleasingJob("going", "q0", 1, "over"));
  TestSession s(c);
  const NodeInfo* full = s.cluster().FindNode("full");
  const NodeInfo* over = s.cluster().FindNode("over");
  ASSERT_LT(over->SumOfIdleGpus().first, 0);
  ASSERT_EQ(over->SumOfIdleGpus().first + over->SumOfReleasingGpus().first, 0);
  EXPECT_FALSE(full->HasIdleOrReleasingGpus());
  EXPECT_TRUE(over->HasIdleOrReleasingGpus());
  EXPECT_TRUE(s.cluster().FindNode("free")->HasIdleOrReleasingGpus());
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("fill-0"), "test", EvictionMetadata{}).ok());
  EXPECT_TRUE(full->HasIdleOrReleasingGpus());
  stmt->Discard();
  EXPECT_FALSE(full->HasIdleOrReleasingGpus());
}

// FindEntry answers through the task's hint only while the map's entries stay where they were:
// not after the task's entry was removed, not on another node, not on a copy.
TEST(NodeInfoTest, FindEntryAnswersWhatTheMapHolds) {
  TestSession s(WholeAndSharedGpus());
  NodeInfo* node = s.cluster().FindNode("node1");
  PodInfo* half = s.Task("half-0");
  auto held = [](const NodeInfo& n, const PodInfo& t) -> const NodeInfo::Entry* {
    auto it = n.tasks().find(t.key());
    return it == n.tasks().end() ? nullptr : &it->second;
  };
  ASSERT_NE(node->FindEntry(*half), nullptr);
  EXPECT_EQ(node->FindEntry(*half), held(*node, *half));
  EXPECT_EQ(node->FindEntry(*half)->task, half);
  EXPECT_EQ(s.cluster().FindNode("node0")->FindEntry(*half), nullptr);
  ASSERT_TRUE(node->RemoveTask(*half));
  EXPECT_EQ(node->FindEntry(*half), nullptr);
  ASSERT_TRUE(node->AddTask(half));
  EXPECT_EQ(node->FindEntry(*half), held(*node, *half));
  // Other tasks added or removed move no entry of a std::map, but the hint is not trusted then.
  PodInfo* quarter = s.Task("quarter-0");
  ASSERT_TRUE(node->RemoveTask(*quarter));
  EXPECT_EQ(node->FindEntry(*half), held(*node, *half));
  NodeInfo copy = *node;
  EXPECT_EQ(copy.FindEntry(*half), held(copy, *half));
  EXPECT_NE(copy.FindEntry(*half), node->FindEntry(*half));
  EXPECT_EQ(copy.FindEntry(*quarter), nullptr);
}

TEST(NodeInfoTest, UpdatingATaskTheNodeDoesNotHoldChangesNothing) {
  TestSession s(WholeAndSharedGpus());
  const std::string before = ModelFingerprint(s.ssn());
  NodeInfo* node1 = s.cluster().FindNode("node1");
  const uint64_t version = node1->accounting_version();
  EXPECT_FALSE(node1->UpdateTask(s.Task("run-0")));
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
  EXPECT_EQ(node1->accounting_version(), version);  // nothing changed: caches stay valid
}

}  // namespace
}  // namespace kai::scheduler
