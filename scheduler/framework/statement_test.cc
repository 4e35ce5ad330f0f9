// Statement semantics (reference §6.8): every operation can be rolled back to a checkpoint or
// discarded without leaving a trace in the node accounting, the tasks or the queue numbers, and
// a commit hands the decisions to the sink in operation order.
#include "scheduler/framework/statement.h"

#include <gtest/gtest.h>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::ModelFingerprint;
using testing::NodeSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TaskState;
using testing::TestCluster;
using testing::TestSession;

TestCluster TwoNodes() {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 4});
  c.AddNode(NodeSpec{.name = "node1", .gpus = 4});
  c.AddQueue({.name = "q0", .gpu_quota = 4});
  c.AddQueue({.name = "q1", .gpu_quota = 4});
  c.AddJob(RunningJob("run", "q0", 1, "node0", 2));
  c.AddJob(PendingJob("pend", "q1", 1, 2));
  c.AddJob(RunningJob("frac-run", "q0", 0.5, "node1"));
  c.AddJob(PendingJob("frac", "q1", 0.25));
  testing::JobSpec leaving = PendingJob("leaving", "q0", 1);
  leaving.tasks[0].state = TaskState::kReleasing;
  leaving.tasks[0].node = "node1";
  c.AddJob(leaving);
  return c;
}

TEST(StatementTest, DiscardAfterAllocatePipelineAndEvictLeavesNoTrace) {
  TestSession s(TwoNodes());
  const std::string before = ModelFingerprint(s.ssn());
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  ASSERT_TRUE(stmt->Pipeline(s.Task("pend-1"), "node1", false).ok());
  ASSERT_TRUE(stmt->Evict(s.Task("run-0"), "msg", {}).ok());
  ASSERT_TRUE(stmt->Evict(s.Task("frac-run-0"), "msg", {}).ok());
  EXPECT_NE(ModelFingerprint(s.ssn()), before);
  stmt->Discard();
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
  EXPECT_TRUE(stmt->empty());
}

// Deferred eviction messages are made only for committed evictions, each with its own index.
class CountingMessages final : public DeferredEvictionMessages {
 public:
  std::string Message(size_t i) const override {
    asked.push_back(i);
    return "message " + std::to_string(i);
  }
  mutable std::vector<size_t> asked;
};

TEST(StatementTest, DeferredEvictionMessagesAreMadeOnlyForCommittedEvictions) {
  TestSession s(TwoNodes());
  auto messages = std::make_shared<CountingMessages>();
  auto discarded = s.ssn().NewStatement();
  ASSERT_TRUE(discarded->Evict(s.Task("run-0"), messages, 0, {}).ok());
  ASSERT_TRUE(discarded->Evict(s.Task("run-1"), messages, 1, {}).ok());
  discarded->Discard();
  auto rolled_back = s.ssn().NewStatement();
  const Statement::Checkpoint cp = rolled_back->MakeCheckpoint();
  ASSERT_TRUE(rolled_back->Evict(s.Task("run-0"), messages, 0, {}).ok());
  ASSERT_TRUE(rolled_back->Rollback(cp).ok());
  ASSERT_TRUE(rolled_back->Evict(s.Task("run-1"), messages, 1, {}).ok());
  ASSERT_TRUE(rolled_back->Commit().ok());
  EXPECT_EQ(messages->asked, std::vector<size_t>{1});
  ASSERT_EQ(s.sink().evictions.size(), 1u);
  EXPECT_EQ(s.sink().evictions[0].pod_key, "default/run-1");
  EXPECT_EQ(s.sink().evictions[0].message, "message 1");
}

TEST(StatementTest, EvictThenPipelineOnTheSameNodeIsAnUnevict) {
  TestSession s(TwoNodes());
  const std::string before = ModelFingerprint(s.ssn());
  auto stmt = s.ssn().NewStatement();
  PodInfo* victim = s.Task("run-1");
  ASSERT_TRUE(stmt->Evict(victim, "msg", {}).ok());
  EXPECT_EQ(victim->status, PodStatus::kReleasing);
  ASSERT_TRUE(stmt->Pipeline(victim, "node0", false).ok());
  EXPECT_EQ(victim->status, PodStatus::kRunning);
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
  stmt->Discard();
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
}

TEST(StatementTest, RollbackToACheckpointRestoresThatPoint) {
  TestSession s(TwoNodes());
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  const std::string at_checkpoint = ModelFingerprint(s.ssn());
  Statement::Checkpoint cp = stmt->MakeCheckpoint();
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-1"), "node1").ok());
  ASSERT_TRUE(stmt->Evict(s.Task("run-0"), "msg", {}).ok());
  ASSERT_TRUE(stmt->Pipeline(s.Task("run-0"), "node1", false).ok());
  ASSERT_TRUE(stmt->Rollback(cp).ok());
  EXPECT_EQ(ModelFingerprint(s.ssn()), at_checkpoint);
  EXPECT_EQ(stmt->num_operations(), cp);
  EXPECT_FALSE(stmt->Rollback(cp + 5).ok());
}

TEST(StatementTest, FractionalAllocationOnANewGroupIsUndone) {
  TestSession s(TwoNodes());
  const std::string before = ModelFingerprint(s.ssn());
  NodeInfo* node = s.Node("node1");
  const double idle_gpus = node->idle.gpu();
  auto stmt = s.ssn().NewStatement();
  PodInfo* frac = s.Task("frac-0");
  frac->gpu_groups = {"new-group"};
  ASSERT_TRUE(stmt->Allocate(frac, "node1").ok());
  // Opening a group takes one whole GPU from Idle (§6.5).
  EXPECT_EQ(node->idle.gpu(), idle_gpus - 1);
  EXPECT_EQ(node->allocated_shared_gpus_memory.at("new-group"), 25);
  stmt->Discard();
  frac->gpu_groups.clear();
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
}

TEST(StatementTest, MovingASharedTaskToAnotherGroupIsUndone) {
  TestSession s(TwoNodes());
  const std::string before = ModelFingerprint(s.ssn());
  auto stmt = s.ssn().NewStatement();
  PodInfo* shared = s.Task("frac-run-0");
  ASSERT_TRUE(stmt->Evict(shared, "msg", {}).ok());
  shared->gpu_groups = {"other-group"};
  ASSERT_TRUE(stmt->Pipeline(shared, "node1", false).ok());
  EXPECT_EQ(shared->status, PodStatus::kPipelined);
  stmt->Discard();
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
}

TEST(StatementTest, ConvertAllocatedToPipelinedIsUndone) {
  TestSession s(TwoNodes());
  const std::string before = ModelFingerprint(s.ssn());
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-1"), "node0").ok());
  ASSERT_TRUE(stmt->ConvertAllAllocatedToPipelined(s.Job("pend")->uid()).ok());
  EXPECT_EQ(s.Task("pend-0")->status, PodStatus::kPipelined);
  EXPECT_EQ(s.Task("pend-1")->status, PodStatus::kPipelined);
  stmt->Discard();
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
}

TEST(StatementTest, QueueAllocationFollowsOperationsAndTheirUndo) {
  TestSession s(TwoNodes());
  const QueueInfo* q1 = s.Queue("q1");
  const double before = s.ssn().QueueAllocated(*q1)->gpu;
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  EXPECT_EQ(s.ssn().QueueAllocated(*q1)->gpu, before + 1);
  stmt->Discard();
  EXPECT_EQ(s.ssn().QueueAllocated(*q1)->gpu, before);
}

TEST(StatementTest, CommitHandsDecisionsToTheSinkInOrder) {
  TestSession s(TwoNodes());
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run-0"), "evicted for a test", {.action = "preempt"}).ok());
  ASSERT_TRUE(stmt->Pipeline(s.Task("pend-1"), "node0", false).ok());
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  ASSERT_TRUE(stmt->Commit().ok());
  ASSERT_EQ(s.sink().evictions.size(), 1u);
  EXPECT_EQ(s.sink().evictions[0].pod_key, "default/run-0");
  EXPECT_EQ(s.sink().evictions[0].message, "evicted for a test");
  EXPECT_EQ(s.sink().evictions[0].metadata.action, "preempt");
  ASSERT_EQ(s.sink().pipelined.size(), 1u);
  EXPECT_EQ(s.sink().pipelined[0].message, "Pod default/pend-1 was pipelined to node node0");
  ASSERT_EQ(s.sink().binds.size(), 1u);
  EXPECT_EQ(s.sink().binds[0].pod_key, "default/pend-0");
  EXPECT_EQ(s.sink().binds[0].node, "node0");
  EXPECT_EQ(s.sink().binds[0].received_resource_type, "Regular");
  EXPECT_EQ(s.Task("pend-0")->status, PodStatus::kBinding);
  EXPECT_TRUE(stmt->empty());
}

TEST(StatementTest, FailedBindUndoesItAndEveryLaterOperation) {
  // A gang's first BindRequest is refused: none of its pods is placed in the session afterwards
  // (KAI leaves the later ones Allocated, and later actions take them for placed pods).
  TestSession s(TwoNodes());
  const std::string before = ModelFingerprint(s.ssn());
  s.sink().fail_binds.insert("default/pend-0");
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-1"), "node0").ok());
  EXPECT_FALSE(stmt->Commit().ok());
  EXPECT_TRUE(s.sink().binds.empty());
  EXPECT_EQ(s.Task("pend-0")->status, PodStatus::kPending);
  EXPECT_EQ(s.Task("pend-1")->status, PodStatus::kPending);
  EXPECT_EQ(s.Task("pend-1")->node_name, "");
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
  EXPECT_TRUE(stmt->empty());
}

TEST(StatementTest, FailedBindKeepsWhatWasWrittenBeforeIt) {
  // Evict (written), allocate the preemptor (refused), re-place the victim (never written): the
  // session ends with the victim releasing where it was and nothing else.
  TestSession evicted_only(TwoNodes());
  ASSERT_TRUE(evicted_only.ssn().NewStatement()->Evict(evicted_only.Task("run-0"), "m", {}).ok());
  const std::string expected = ModelFingerprint(evicted_only.ssn());

  TestSession s(TwoNodes());
  s.sink().fail_binds.insert("default/pend-0");
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run-0"), "m", {}).ok());
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  ASSERT_TRUE(stmt->Pipeline(s.Task("run-0"), "node1", false).ok());
  EXPECT_FALSE(stmt->Commit().ok());
  ASSERT_EQ(s.sink().evictions.size(), 1u);
  EXPECT_TRUE(s.sink().pipelined.empty());
  EXPECT_EQ(s.Task("run-0")->status, PodStatus::kReleasing);
  EXPECT_EQ(s.Task("run-0")->node_name, "node0");
  EXPECT_EQ(s.Task("pend-0")->status, PodStatus::kPending);
  EXPECT_EQ(ModelFingerprint(s.ssn()), expected);
}

TEST(StatementTest, FailedEvictionThenFailedBindLeaveNoTrace) {
  // Both writes fail (the API server is gone): the session is back where it started, including
  // the node's GPU counters (the failed allocation's saved counters still had the eviction).
  TestSession s(TwoNodes());
  const std::string before = ModelFingerprint(s.ssn());
  s.sink().fail_evictions.insert("default/run-0");
  s.sink().fail_binds.insert("default/pend-0");
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run-0"), "m", {}).ok());
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  EXPECT_FALSE(stmt->Commit().ok());
  EXPECT_TRUE(s.sink().evictions.empty());
  EXPECT_EQ(s.Task("run-0")->status, PodStatus::kRunning);
  EXPECT_EQ(ModelFingerprint(s.ssn()), before);
}

TEST(StatementTest, EvictingATaskPipelinedEarlierInTheSessionWritesNothing) {
  // A pipelined decision was never written (the pod is Pending in the cluster): a later statement
  // that moves it must not delete the pod.
  TestSession s(TwoNodes());
  auto first = s.ssn().NewStatement();
  ASSERT_TRUE(first->Pipeline(s.Task("pend-0"), "node0", false).ok());
  ASSERT_TRUE(first->Commit().ok());
  ASSERT_EQ(s.Task("pend-0")->status, PodStatus::kPipelined);
  auto second = s.ssn().NewStatement();
  ASSERT_TRUE(second->Evict(s.Task("pend-0"), "moved", {.action = "consolidation"}).ok());
  ASSERT_TRUE(second->Pipeline(s.Task("pend-0"), "node1", false).ok());
  ASSERT_TRUE(second->Commit().ok());
  EXPECT_TRUE(s.sink().evictions.empty());
  EXPECT_EQ(s.sink().pipelined.size(), 2u);
  EXPECT_EQ(s.Task("pend-0")->status, PodStatus::kPipelined);
  EXPECT_EQ(s.Task("pend-0")->node_name, "node1");
}

}  // namespace
}  // namespace kai::scheduler
