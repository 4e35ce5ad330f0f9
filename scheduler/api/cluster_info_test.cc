// ClusterInfo's session links: the dense queue indexes and parent links, and the per-task job
// memo, are set for the session that has the snapshot and never trusted in another.
#include "scheduler/api/cluster_info.h"

#include <gtest/gtest.h>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

TEST(ClusterInfoTest, TheSessionIndexesQueuesInNameOrderAndLinksTheirParents) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "dept-b"});
  c.AddQueue({.name = "dept-a"});
  c.AddQueue({.name = "team-2", .parent = "dept-a"});
  c.AddQueue({.name = "team-1", .parent = "dept-b"});
  c.AddJob(PendingJob("j", "team-1", 1));
  TestSession s(c);
  const ClusterInfo& cluster = s.cluster();
  ASSERT_TRUE(cluster.queues_indexed);
  int expected = 0;
  for (const auto& [name, q] : cluster.queues) {
    EXPECT_EQ(q->session_index(), expected++) << name;
    const QueueInfo* parent = cluster.ParentOf(*q);
    if (q->parent().empty()) {
      EXPECT_EQ(parent, nullptr) << name;
    } else {
      EXPECT_EQ(parent, cluster.FindQueue(q->parent())) << name;
      ASSERT_NE(parent, nullptr) << name;
    }
  }
  EXPECT_EQ(cluster.ParentOf(*s.Queue("team-1")), s.Queue("dept-b"));
  EXPECT_EQ(cluster.ParentOf(*s.Queue("team-2")), s.Queue("dept-a"));
}

TEST(ClusterInfoTest, ParentOfAnUnindexedClusterLooksTheParentUp) {
  ClusterInfo c;
  c.queues["root"] = std::make_unique<QueueInfo>("root", "", QueueQuota{}, 0);
  c.queues["leaf"] = std::make_unique<QueueInfo>("leaf", "root", QueueQuota{}, 0);
  c.queues["orphan"] = std::make_unique<QueueInfo>("orphan", "missing", QueueQuota{}, 0);
  // Links a session of another cluster left behind are not read.
  c.queues["leaf"]->set_session_links(0, c.queues["orphan"].get());
  EXPECT_EQ(c.ParentOf(*c.queues["leaf"]), c.queues["root"].get());
  EXPECT_EQ(c.ParentOf(*c.queues["orphan"]), nullptr);
  c.IndexQueues();
  EXPECT_EQ(c.ParentOf(*c.queues["leaf"]), c.queues["root"].get());
  EXPECT_EQ(c.ParentOf(*c.queues["orphan"]), nullptr);
  EXPECT_EQ(c.ParentOf(*c.queues["root"]), nullptr);
}

TEST(ClusterInfoTest, JobOfIsTheSessionsJobAndAMemoOfAnotherSessionIsNotTrusted) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("a", "q", 1));
  c.AddJob(RunningJob("b", "q", 1, "n"));
  TestSession first(c);
  TestSession second(c);
  PodInfo* task = first.Task(testing::PodName("a", 0));
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(first.cluster().JobOf(*task), first.Job("a"));
  EXPECT_EQ(first.cluster().JobOf(*first.Task(testing::PodName("b", 0))), first.Job("b"));
  // The same task read through another session's snapshot (as a recycled snapshot's copies
  // would carry it): that session's job, not the memo's.
  EXPECT_NE(first.cluster().session_epoch, second.cluster().session_epoch);
  EXPECT_EQ(second.cluster().JobOf(*task), second.Job("a"));
  EXPECT_EQ(first.cluster().JobOf(*task), first.Job("a"));
  // A task whose job changes forgets the memo.
  task->set_job(second.Job("b")->uid());
  EXPECT_EQ(first.cluster().JobOf(*task), first.Job("b"));
}

// FindNode answers from the session's hash of node names, and only for that session: a cluster
// the next session takes over (a recycled snapshot) or a moved one looks nodes up in its map
// until it is indexed again.
TEST(ClusterInfoTest, FindNodeUsesTheSessionsIndexAndNoOther) {
  TestCluster c;
  c.AddNode({.name = "n1", .gpus = 8});
  c.AddNode({.name = "n2", .gpus = 8});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("a", "q", 1));
  TestSession s(c);
  ClusterInfo& cluster = s.cluster();
  ASSERT_NE(cluster.session_epoch, 0u);
  for (const auto& [name, node] : cluster.nodes) EXPECT_EQ(cluster.FindNode(name), node.get());
  EXPECT_EQ(cluster.FindNode("n3"), nullptr);

  // A node added under a new session epoch (as a recycled snapshot's model may): found before the
  // index is rebuilt and after.
  const uint64_t epoch = cluster.session_epoch;
  cluster.session_epoch = epoch + 1000;
  auto extra = std::make_unique<NodeInfo>(*cluster.nodes.at("n1"));
  NodeInfo* added = extra.get();
  cluster.nodes.emplace("n3", std::move(extra));
  EXPECT_EQ(cluster.FindNode("n3"), added);
  cluster.IndexNodes();
  EXPECT_EQ(cluster.FindNode("n3"), added);
  EXPECT_EQ(cluster.FindNode("n1"), cluster.nodes.at("n1").get());

  // A moved cluster keeps its nodes, not the index viewing the old map's keys (moved back after,
  // for the session).
  ClusterInfo moved = std::move(cluster);
  EXPECT_EQ(moved.FindNode("n3"), added);
  EXPECT_EQ(moved.FindNode("n2"), moved.nodes.at("n2").get());
  EXPECT_EQ(moved.FindNode("missing"), nullptr);
  cluster = std::move(moved);
  EXPECT_EQ(cluster.FindNode("n3"), added);
  cluster.nodes.erase("n3");
  cluster.session_epoch = epoch;
  cluster.IndexNodes();
}

TEST(ClusterInfoTest, FindTaskFindsReservationPodsAndTheOthersInTheirTwoRuns) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.SetReservationPods(true);
  c.AddQueue({.name = "q"});
  // Keys on both sides of the reservation pods' namespace, so that one search over all the tasks
  // (reservation pods first) would miss some.
  testing::JobSpec before = RunningJob("half", "q", 0.5, "n");
  before.ns = "aaa";
  c.AddJob(before);
  testing::JobSpec after = PendingJob("p", "q", 1, 2);
  after.ns = "zzz";
  c.AddJob(after);
  TestSession s(c);
  const ClusterInfo& cluster = s.cluster();
  ASSERT_EQ(cluster.num_reservation_tasks, 1u);
  ASSERT_EQ(cluster.tasks.size(), 4u);
  EXPECT_TRUE(cluster.tasks[0]->is_reservation);
  EXPECT_EQ(cluster.tasks[0]->namespace_(), "kai-resource-reservation");
  for (const auto& t : cluster.tasks) EXPECT_EQ(cluster.FindTask(t->key()), t.get()) << t->key();
  for (const char* missing : {"", "a/x", "kai-resource-reservation/none",
                              "kai-resource-reservation/zzz", "zzz/p-9", "zzzz/x"}) {
    EXPECT_EQ(cluster.FindTask(missing), nullptr) << missing;
  }
}

}  // namespace
}  // namespace kai::scheduler
