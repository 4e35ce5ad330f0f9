// ResourceFitCache: the memo of "no node has room for a task of this shape" must equal a fresh
// computation after every kind of change to the nodes' accounting (allocate, pipeline, evict,
// rollback, discard, session evictions), and tasks of one shape must share it.
#include "scheduler/framework/resource_fit_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::NodeSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

// Two full 4-GPU nodes; pending whole-GPU and fractional jobs.
TestCluster FullCluster() {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 4});
  c.AddNode(NodeSpec{.name = "node1", .gpus = 4});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddQueue({.name = "q1", .gpu_quota = 8});
  c.AddJob(RunningJob("run0", "q0", 1, "node0", 4));
  c.AddJob(RunningJob("run1", "q0", 1, "node1", 4));
  c.AddJob(PendingJob("a", "q1", 2));
  c.AddJob(PendingJob("b", "q1", 2));
  c.AddJob(PendingJob("one", "q1", 1));
  c.AddJob(PendingJob("gang", "q1", 1, 2));
  c.AddJob(PendingJob("frac", "q1", 0.5));
  return c;
}

std::map<std::string, std::vector<std::string>> Nodes(const ResourceFitCache::Result& r) {
  return r.errors == nullptr ? std::map<std::string, std::vector<std::string>>{}
                             : r.errors->ToMap();
}

// A cache that reads the nodes' versions through a table, as a Session sets it up; the nodes
// stop mirroring before the table goes.
struct MirroredCache {
  explicit MirroredCache(const NodeSet& nodes) : nodes(nodes), table(nodes.size() + 1) {
    for (NodeInfo* n : nodes) n->MirrorAccountingVersion(&table, n->name_rank());
    cache.SetNodeVersions(&table);
  }
  ~MirroredCache() {
    for (NodeInfo* n : nodes) n->MirrorAccountingVersion(nullptr, 0);
  }
  MirroredCache(const MirroredCache&) = delete;
  MirroredCache& operator=(const MirroredCache&) = delete;

  NodeSet nodes;
  VersionTable table;
  ResourceFitCache cache;
};

// The cached answer equals a fresh computation (whatever it is).
void ExpectFresh(ResourceFitCache* cache, const PodInfo& task, const NodeSet& nodes) {
  const ResourceFitCache::Result cached = cache->Check(task, nodes, false, true);
  ResourceFitCache::Result fresh = ResourceFitCache::Compute(task, nodes, false);
  EXPECT_EQ(cached.none_fits, fresh.none_fits) << task.key();
  EXPECT_EQ(Nodes(cached), Nodes(fresh)) << task.key();
  ASSERT_NE(cached.room, nullptr);
  ASSERT_EQ(cached.room->size(), nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ((*cached.room)[i], nodes[i]->IsTaskAllocatableOnReleasingOrIdle(task) ? 1 : 0)
        << task.key() << " on " << nodes[i]->name();
  }
}

TEST(ResourceFitCacheTest, TasksOfOneShapeShareTheAnswerAndTheErrors) {
  TestSession s(FullCluster());
  const NodeSet& nodes = s.cluster().node_list;
  ResourceFitCache cache;
  const ResourceFitCache::Result a = cache.Check(*s.Task("a-0"), nodes, false, true);
  ASSERT_TRUE(a.none_fits);
  ASSERT_NE(a.errors, nullptr);
  EXPECT_EQ(Nodes(a), (std::map<std::string, std::vector<std::string>>{
                          {"node0", {"node(s) didn't have enough resources: GPUs"}},
                          {"node1", {"node(s) didn't have enough resources: GPUs"}}}));
  std::shared_ptr<const NodeFitErrors> first = a.errors;
  const ResourceFitCache::Result b = cache.Check(*s.Task("b-0"), nodes, false, true);
  EXPECT_EQ(b.errors, first);  // the very same errors, shared
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 1);
  // Another shape: computed anew.
  cache.Check(*s.Task("one-0"), nodes, false, true);
  EXPECT_EQ(cache.misses(), 2);
  // Another node set of a known shape reuses the per-node answers (no node is checked again) and
  // has its own errors.
  const int64_t rechecks = cache.node_rechecks();
  NodeSet only_node1{s.Node("node1")};
  const ResourceFitCache::Result sub = cache.Check(*s.Task("a-0"), only_node1, false, true);
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_EQ(cache.node_rechecks(), rechecks);
  EXPECT_EQ(Nodes(sub).size(), 1u);
  // An equal node set built separately is the same set: the same shared errors.
  NodeSet copy(nodes.begin(), nodes.end());
  EXPECT_EQ(cache.Check(*s.Task("b-0"), copy, false, true).errors, first);
  EXPECT_EQ(cache.hits(), 3);
}

// Each victim scenario asks about a node set of its own: only the recent sets are kept, and a
// set asked about again after it was forgotten is answered from the nodes as they are.
TEST(ResourceFitCacheTest, OnlyTheRecentNodeSetsAreKept) {
  TestCluster c;
  for (int i = 0; i < 10; ++i) {
    const std::string node = "node" + std::to_string(i);
    c.AddNode(NodeSpec{.name = node, .gpus = 4});
    c.AddJob(RunningJob("run" + std::to_string(i), "q0", 1, node, 4));
  }
  c.AddQueue({.name = "q0", .gpu_quota = 40});
  c.AddQueue({.name = "q1", .gpu_quota = 40});
  c.AddJob(PendingJob("a", "q1", 2));
  TestSession s(c);
  const NodeSet& all = s.cluster().node_list;
  auto subset = [&all](unsigned mask) {
    NodeSet out;
    for (size_t i = 0; i < all.size(); ++i) {
      if ((mask >> i) & 1U) out.push_back(all[i]);
    }
    return out;
  };
  ResourceFitCache cache;
  const PodInfo& task = *s.Task("a-0");
  const std::shared_ptr<const NodeFitErrors> first =
      cache.Check(task, subset(1), false, true).errors;
  ASSERT_NE(first, nullptr);
  const unsigned last = ResourceFitCache::kRecentSets + 40;
  std::shared_ptr<const NodeFitErrors> recent;
  for (unsigned mask = 2; mask <= last; ++mask) {
    const ResourceFitCache::Result r = cache.Check(task, subset(mask), false, true);
    if (mask == last - 1) recent = r.errors;
    EXPECT_LE(cache.interned_sets(), ResourceFitCache::kRecentSets);
  }
  EXPECT_EQ(cache.interned_sets(), ResourceFitCache::kRecentSets);
  // A recent set keeps its errors; the first one was forgotten and is computed again, the same.
  EXPECT_EQ(cache.Check(task, subset(last - 1), false, true).errors, recent);
  const ResourceFitCache::Result again = cache.Check(task, subset(1), false, true);
  EXPECT_NE(again.errors, first);
  EXPECT_EQ(Nodes(again), first->ToMap());
  ExpectFresh(&cache, task, subset(1));
  // A node that changes is read again in a set asked about after it was forgotten.
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run0-0"), "msg", {}).ok());
  ASSERT_TRUE(stmt->Evict(s.Task("run0-1"), "msg", {}).ok());
  for (unsigned mask = 2; mask <= last; ++mask) cache.Check(task, subset(mask), false, true);
  EXPECT_FALSE(cache.Check(task, subset(1), false, true).none_fits);
  ExpectFresh(&cache, task, subset(1));
  stmt->Discard();
}

TEST(ResourceFitCacheTest, EvictionRollbackAndDiscardInvalidate) {
  TestSession s(FullCluster());
  const NodeSet& nodes = s.cluster().node_list;
  ResourceFitCache cache;
  PodInfo* one = s.Task("one-0");
  ASSERT_TRUE(cache.Check(*one, nodes, false, true).none_fits);

  auto stmt = s.ssn().NewStatement();
  Statement::Checkpoint cp = stmt->MakeCheckpoint();
  ASSERT_TRUE(stmt->Evict(s.Task("run0-0"), "msg", {}).ok());
  // One GPU is releasing on node0: the task fits there (counting releasing resources).
  EXPECT_FALSE(cache.Check(*one, nodes, false, true).none_fits);
  ExpectFresh(&cache, *one, nodes);
  ASSERT_TRUE(stmt->Pipeline(one, "node0", false).ok());
  ExpectFresh(&cache, *s.Task("a-0"), nodes);
  ASSERT_TRUE(stmt->Rollback(cp).ok());
  EXPECT_TRUE(cache.Check(*one, nodes, false, true).none_fits);
  ExpectFresh(&cache, *one, nodes);

  ASSERT_TRUE(stmt->Evict(s.Task("run1-0"), "msg", {}).ok());
  ASSERT_TRUE(stmt->Evict(s.Task("run1-1"), "msg", {}).ok());
  EXPECT_FALSE(cache.Check(*s.Task("a-0"), nodes, false, true).none_fits);
  stmt->Discard();
  EXPECT_TRUE(cache.Check(*s.Task("a-0"), nodes, false, true).none_fits);
  ExpectFresh(&cache, *s.Task("a-0"), nodes);
}

TEST(ResourceFitCacheTest, OnlyChangedNodesAreCheckedAgainAndUnchangedErrorsStayShared) {
  TestSession s(FullCluster());
  const NodeSet& nodes = s.cluster().node_list;
  ResourceFitCache cache;
  PodInfo* a = s.Task("a-0");
  const ResourceFitCache::Result first = cache.Check(*a, nodes, false, true);
  ASSERT_TRUE(first.none_fits);
  EXPECT_EQ(cache.node_rechecks(), 2);
  auto stmt = s.ssn().NewStatement();
  // node1 gets one releasing GPU: still no room for two, and the same reason.
  ASSERT_TRUE(stmt->Evict(s.Task("run1-0"), "msg", {}).ok());
  const ResourceFitCache::Result second = cache.Check(*a, nodes, false, true);
  EXPECT_TRUE(second.none_fits);
  EXPECT_EQ(cache.node_rechecks(), 3);
  EXPECT_EQ(second.errors, first.errors);
  // node1 gets a second releasing GPU: room, counting releasing resources.
  ASSERT_TRUE(stmt->Evict(s.Task("run1-1"), "msg", {}).ok());
  EXPECT_FALSE(cache.Check(*a, nodes, false, true).none_fits);
  EXPECT_EQ(cache.node_rechecks(), 4);
  stmt->Discard();
  const ResourceFitCache::Result after = cache.Check(*a, nodes, false, true);
  EXPECT_TRUE(after.none_fits);
  EXPECT_EQ(Nodes(after), Nodes(first));
  // An entry made without errors (a simulation) computes them when first asked.
  PodInfo* one = s.Task("one-0");
  EXPECT_EQ(cache.Check(*one, nodes, false, false).errors, nullptr);
  EXPECT_EQ(Nodes(cache.Check(*one, nodes, false, true)).size(), 2u);
}

// With a version table (what a Session gives its cache), mirrored nodes are compared through the
// table: a slot that moved is enough to check that node again, and every change of a node,
// including an assignment over it (a recycled snapshot), reaches its slot.
TEST(ResourceFitCacheTest, MirroredNodesAreComparedThroughTheVersionTable) {
  TestSession s(FullCluster());
  const NodeSet& nodes = s.cluster().node_list;
  MirroredCache mirrored(nodes);
  ResourceFitCache& cache = mirrored.cache;
  VersionTable& table = mirrored.table;
  PodInfo* a = s.Task("a-0");
  ExpectFresh(&cache, *a, nodes);
  EXPECT_EQ(cache.node_rechecks(), 2);
  ExpectFresh(&cache, *a, nodes);
  EXPECT_EQ(cache.node_rechecks(), 2);  // nothing moved: no node read again
  const int rank0 = s.Node("node0")->name_rank();
  table.Write(rank0, table[rank0] + 1000);
  ExpectFresh(&cache, *a, nodes);
  EXPECT_EQ(cache.node_rechecks(), 3);

  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run1-0"), "msg", {}).ok());
  ExpectFresh(&cache, *a, nodes);
  EXPECT_EQ(cache.node_rechecks(), 4);
  stmt->Discard();
  ExpectFresh(&cache, *a, nodes);
  EXPECT_EQ(cache.node_rechecks(), 5);

  // node1 assigned a copy of itself with two GPUs freed: room for a-0.
  NodeInfo* node1 = s.Node("node1");
  NodeInfo freed(*node1);
  ASSERT_TRUE(freed.RemoveTask(*s.Task("run1-0")));
  ASSERT_TRUE(freed.RemoveTask(*s.Task("run1-1")));
  const NodeInfo before(*node1);
  *node1 = freed;
  EXPECT_EQ(table[node1->name_rank()], freed.accounting_version());
  EXPECT_FALSE(cache.Check(*a, nodes, false, true).none_fits);
  ExpectFresh(&cache, *a, nodes);
  *node1 = before;
  ExpectFresh(&cache, *a, nodes);
  EXPECT_TRUE(cache.Check(*a, nodes, false, true).none_fits);
}

TEST(ResourceFitCacheTest, SessionEvictionAndAllocationInvalidate) {
  TestSession s(FullCluster());
  const NodeSet& nodes = s.cluster().node_list;
  ResourceFitCache cache;
  PodInfo* frac = s.Task("frac-0");
  ASSERT_TRUE(cache.Check(*frac, nodes, false, true).none_fits);
  ASSERT_TRUE(s.ssn().Evict(s.Task("run1-3"), "stale", {}).ok());
  EXPECT_FALSE(cache.Check(*frac, nodes, false, true).none_fits);
  ExpectFresh(&cache, *frac, nodes);

  // A fractional task pipelined onto the releasing GPU, then a second one of the same shape
  // asks again: the answer follows the new accounting.
  auto stmt = s.ssn().NewStatement();
  std::vector<std::string> groups{"g1"};
  ASSERT_TRUE(stmt->Pipeline(frac, "node1", false, &groups).ok());
  ExpectFresh(&cache, *frac, nodes);
  ExpectFresh(&cache, *s.Task("one-0"), nodes);
  stmt->Discard();
  ExpectFresh(&cache, *frac, nodes);
}

TEST(ResourceFitCacheTest, SharedErrorsAreCopiedOnWrite) {
  TestSession s(FullCluster());
  ResourceFitCache cache;
  const ResourceFitCache::Result r =
      cache.Check(*s.Task("a-0"), s.cluster().node_list, false, true);
  ASSERT_NE(r.errors, nullptr);
  TaskFitErrors x, y;
  x.AddNodeErrors(r.errors);
  y.AddNodeErrors(r.errors);
  x.AddNodeError({"node0", {"other reason"}});
  x.AddNodeError({"node9", {"node(s) had untolerated taint {a: b}"}});
  EXPECT_EQ(r.errors->ToMap().at("node0"),
            std::vector<std::string>{"node(s) didn't have enough resources: GPUs"});
  EXPECT_EQ(y.Message(),
            "no nodes with enough resources were found: 2 node(s) didn't have enough resources: "
            "GPUs.");
  EXPECT_EQ(x.Message(),
            "no nodes with enough resources were found: 1 node(s) didn't have enough resources: "
            "GPUs. \n1 node(s) had untolerated taint {a: b}. \n1 other reason.");
  // Merging into errors that already exist overwrites per node, as node-by-node recording does.
  TaskFitErrors z;
  z.AddNodeError({"node1", {"stale"}});
  z.AddNodeError({"node7", {"kept"}});
  z.AddNodeErrors(r.errors);
  EXPECT_EQ(z.num_nodes(), 3u);
  EXPECT_EQ(z.Message(),
            "no nodes with enough resources were found: 1 kept. \n2 node(s) didn't have enough "
            "resources: GPUs.");
}

// Nodes that fail a shape alike point at one reason list, and every list spells exactly what
// NodeInfo::FittingError says for its node.
TEST(ResourceFitCacheTest, NodesFailingAlikeShareOneReasonList) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 4});
  c.AddNode(NodeSpec{.name = "node1", .gpus = 4});
  c.AddNode(NodeSpec{.name = "node2", .gpus = 4, .cpu = "6"});
  c.AddQueue({.name = "q0", .gpu_quota = 12});
  c.AddQueue({.name = "q1", .gpu_quota = 12});
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    c.AddJob(RunningJob("run" + n, "q0", 1, "node" + n, 4));
  }
  JobSpec big = PendingJob("big", "q1", 2);
  big.cpu = "4";
  c.AddJob(big);
  TestSession s(c);
  const NodeSet& nodes = s.cluster().node_list;
  ASSERT_EQ(nodes.size(), 3u);
  const PodInfo& task = *s.Task("big-0");
  ResourceFitCache cache;
  const ResourceFitCache::Result r = cache.Check(task, nodes, false, true);
  ASSERT_TRUE(r.none_fits);
  ASSERT_NE(r.errors, nullptr);
  EXPECT_EQ(r.errors->dense_at(0), r.errors->dense_at(1));
  EXPECT_NE(r.errors->dense_at(0), r.errors->dense_at(2));
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::optional<NodeFitError> fe = nodes[i]->FittingError(task, false);
    ASSERT_TRUE(fe.has_value()) << nodes[i]->name();
    ASSERT_NE(r.errors->dense_at(i), nullptr);
    EXPECT_EQ(*r.errors->dense_at(i), fe->reasons) << nodes[i]->name();
  }
  EXPECT_EQ(*r.errors->dense_at(2),
            (std::vector<std::string>{"node(s) didn't have enough resources: GPUs",
                                      "node(s) didn't have enough resources: CPU cores"}));
}

// A shared GPU group whose reservation pod the binder has not created yet takes a pod slot, both
// from Idle and from Idle+Releasing; a releasing pod frees its slot only for the latter.
TEST(ResourceFitCacheTest, PodSlotsOfMissingReservationPodsAreTakenOff) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 2, .pods = 3});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("half", "q0", 0.5, "node0"));
  JobSpec leaving = RunningJob("leaving", "q0", 0, "node0");
  leaving.tasks[0].state = testing::TaskState::kReleasing;
  c.AddJob(leaving);
  c.AddJob(PendingJob("one", "q0", 1));
  TestSession s(c);
  const NodeInfo& n = *s.Node("node0");
  ASSERT_EQ(n.NumGroupsWithoutReservationPod(), 1);
  ASSERT_EQ(n.idle.pods(), 1);
  ASSERT_EQ(n.releasing.pods(), 1);
  const PodInfo& one = *s.Task("one-0");
  EXPECT_FALSE(n.IsTaskAllocatable(one));  // 1 idle slot, taken by the reservation pod
  EXPECT_TRUE(n.IsTaskAllocatableOnReleasingOrIdle(one));
  ResourceFitCache cache;
  EXPECT_FALSE(cache.Check(one, s.cluster().node_list, false, true).none_fits);
}

// A new whole-GPU or CPU-only shape is answered from the views' columns (room and fit errors of
// every node in one pass per resource): they must equal the node-by-node answers on nodes in every
// state (full, short of CPU, memory or pod slots, releasing, with a reservation pod missing), and
// follow a node that changes.
TEST(ResourceFitCacheTest, NewShapesReadTheColumnsLikeTheNodes) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "full", .gpus = 2});
  c.AddNode(NodeSpec{.name = "cpu-short", .gpus = 4, .cpu = "3"});
  c.AddNode(NodeSpec{.name = "mem-short", .gpus = 4, .memory = "3G"});
  c.AddNode(NodeSpec{.name = "slots", .gpus = 4, .pods = 2});
  c.AddNode(NodeSpec{.name = "shared", .gpus = 2, .pods = 2});
  c.AddNode(NodeSpec{.name = "releasing", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 32});
  c.AddJob(RunningJob("run-full", "q0", 1, "full", 2));
  c.AddJob(RunningJob("run-cpu", "q0", 1, "cpu-short", 1));
  c.AddJob(RunningJob("run-mem", "q0", 1, "mem-short", 1));
  c.AddJob(RunningJob("run-slots", "q0", 0, "slots", 1));
  c.AddJob(RunningJob("half", "q0", 0.5, "shared"));  // no reservation pod: one missing
  JobSpec leaving = RunningJob("leaving", "q0", 1, "releasing", 2);
  leaving.tasks[0].state = testing::TaskState::kReleasing;
  c.AddJob(leaving);
  std::vector<std::string> shapes;
  for (int gpus : {0, 1, 2, 3}) {
    for (const char* cpu : {"1", "2500m", "4"}) {
      for (const char* memory : {"1G", "2500M", "4G"}) {
        JobSpec j = PendingJob("p" + std::to_string(shapes.size()), "q0", gpus);
        j.cpu = cpu;
        j.memory = memory;
        shapes.push_back(j.name + "-0");
        c.AddJob(j);
      }
    }
  }
  // Shapes first seen after a node changed.
  for (const char* cpu : {"1500m", "30"}) {
    JobSpec j = PendingJob(std::string("late-") + cpu, "q0", 1);
    j.cpu = cpu;
    c.AddJob(j);
  }
  TestSession s(c);
  const NodeSet& nodes = s.cluster().node_list;
  ASSERT_EQ(s.Node("shared")->NumGroupsWithoutReservationPod(), 1);
  MirroredCache mirrored(nodes);
  ResourceFitCache& cache = mirrored.cache;
  for (const std::string& t : shapes) ExpectFresh(&cache, *s.Task(t), nodes);
  EXPECT_GE(cache.column_passes(), static_cast<int64_t>(shapes.size()));
  EXPECT_EQ(cache.misses(), static_cast<int64_t>(shapes.size()));

  // A GPU on the full node is released: new shapes see the node as it is now.
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run-full-0"), "msg", {}).ok());
  const int64_t passes = cache.column_passes();
  ExpectFresh(&cache, *s.Task("p4-0"), nodes);  // a known shape: the per-node memo
  EXPECT_EQ(cache.column_passes(), passes);
  for (const char* t : {"late-1500m-0", "late-30-0"}) ExpectFresh(&cache, *s.Task(t), nodes);
  EXPECT_GT(cache.column_passes(), passes);
  stmt->Discard();
  for (const std::string& t : shapes) ExpectFresh(&cache, *s.Task(t), nodes);
}

// New fractional shapes take the columns too, counting each node's shared GPU groups only where
// whole idle GPUs do not suffice: room and fit errors as node by node, on a full node, a full
// shared GPU, a shared GPU with a quarter left and a node with a whole GPU but little CPU.
TEST(ResourceFitCacheTest, NewFractionalShapesReadTheColumnsLikeTheNodes) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "full", .gpus = 2});
  c.AddNode(NodeSpec{.name = "shared-full", .gpus = 1});
  c.AddNode(NodeSpec{.name = "shared-quarter", .gpus = 1});
  c.AddNode(NodeSpec{.name = "cpu-short", .gpus = 2, .cpu = "1500m"});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("run-full", "q0", 1, "full", 2));
  JobSpec halves = RunningJob("halves", "q0", 0.5, "shared-full", 2);
  for (testing::TaskSpec& t : halves.tasks) t.gpu_groups = {"g-full"};
  c.AddJob(halves);
  JobSpec most = RunningJob("most", "q0", 0.75, "shared-quarter");
  most.tasks[0].gpu_groups = {"g-quarter"};
  c.AddJob(most);
  c.AddJob(RunningJob("run-cpu", "q0", 1, "cpu-short"));
  std::vector<std::string> shapes;
  for (double gpus : {0.5, 0.25}) {
    for (const char* cpu : {"1", "400m"}) {
      JobSpec j = PendingJob("f" + std::to_string(shapes.size()), "q0", gpus);
      j.cpu = cpu;
      shapes.push_back(j.name + "-0");
      c.AddJob(j);
    }
  }
  TestSession s(c);
  const NodeSet& nodes = s.cluster().node_list;
  MirroredCache mirrored(nodes);
  ResourceFitCache& cache = mirrored.cache;
  for (const std::string& t : shapes) ExpectFresh(&cache, *s.Task(t), nodes);
  // Half a GPU with a whole CPU fits nowhere: its errors came from the columns too.
  EXPECT_TRUE(cache.Check(*s.Task("f0-0"), nodes, false, true).none_fits);
  EXPECT_EQ(cache.column_passes(), static_cast<int64_t>(shapes.size()) + 1);
  // A quarter fits the shared GPU with a quarter left, counted through its groups.
  EXPECT_FALSE(
      cache.Check(*s.Task("f2-0"), NodeSet{s.Node("shared-quarter")}, false, true).none_fits);
}

// A shape checked again on a set of mirrored nodes reads only the nodes the table's log names:
// its room and fit errors must stay those of a fresh computation when a node gains room, when a
// node's reasons change (short of CPU too), when a node is written twice, when another node set
// of the same shape is checked in between, and when the log no longer reaches back (a pass over
// the set instead).
TEST(ResourceFitCacheTest, TheTablesLogBringsAnswersUpToDate) {
  TestCluster c;
  c.AddQueue({.name = "q0", .gpu_quota = 64});
  for (int i = 0; i < 12; ++i) {
    const std::string node = "node" + std::to_string(i);
    c.AddNode(NodeSpec{.name = node, .gpus = 2});
    c.AddJob(RunningJob("run" + std::to_string(i), "q0", 1, node, 2));
  }
  c.AddJob(PendingJob("one", "q0", 1));
  c.AddJob(PendingJob("two", "q0", 2));
  JobSpec hog = PendingJob("hog", "q0", 0);
  hog.cpu = "17500m";  // leaves a node less CPU than one task of "two" asks
  c.AddJob(hog);
  TestSession s(c);
  const NodeSet& nodes = s.cluster().node_list;
  MirroredCache mirrored(nodes);
  ResourceFitCache& cache = mirrored.cache;
  const PodInfo& one = *s.Task("one-0");
  const PodInfo& two = *s.Task("two-0");
  ExpectFresh(&cache, one, nodes);
  ExpectFresh(&cache, two, nodes);
  int64_t updates = cache.log_updates();
  ExpectFresh(&cache, one, nodes);  // nothing written: the last answer as it was
  EXPECT_GT(cache.log_updates(), updates);

  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run3-0"), "msg", {}).ok());
  updates = cache.log_updates();
  const int64_t rechecks = cache.node_rechecks();
  ExpectFresh(&cache, one, nodes);  // node3 has room now
  EXPECT_GT(cache.log_updates(), updates);
  EXPECT_EQ(cache.node_rechecks(), rechecks + 1);
  ExpectFresh(&cache, two, nodes);
  // node8 also runs short of CPU: its errors for "two" change.
  ASSERT_TRUE(stmt->Allocate(s.Task("hog-0"), "node8").ok());
  ExpectFresh(&cache, two, nodes);
  ExpectFresh(&cache, one, nodes);

  // node5 changes; a subset's check brings the shape's memo of node5 up to date first.
  ASSERT_TRUE(stmt->Evict(s.Task("run5-0"), "msg", {}).ok());
  ASSERT_TRUE(stmt->Evict(s.Task("run5-1"), "msg", {}).ok());
  ExpectFresh(&cache, two, NodeSet{s.Node("node5"), s.Node("node6")});
  ExpectFresh(&cache, two, nodes);
  ExpectFresh(&cache, one, nodes);

  stmt->Discard();
  ExpectFresh(&cache, one, nodes);
  ExpectFresh(&cache, two, nodes);
  // More writes than the log keeps: a pass over the set.
  for (int i = 0; i < 200; ++i) s.Node("node7")->MarkAccountingChanged();
  ExpectFresh(&cache, one, nodes);
  ExpectFresh(&cache, two, nodes);
}

// FitsInIdle answers IsTaskAllocatable for every node: through the views the fit errors of
// a task that fits nowhere left behind, and for a node changed since, through the node itself.
TEST(ResourceFitCacheTest, FitsInIdleAnswersLikeTheNodesBeforeAndAfterAChange) {
  // Without a version table through the views; with one, whole-GPU tasks through the columns a
  // new shape's pass left.
  for (const bool with_table : {false, true}) {
    TestCluster c;
    c.AddNode(NodeSpec{.name = "node0", .gpus = 4});
    c.AddNode(NodeSpec{.name = "node1", .gpus = 4});
    c.AddQueue({.name = "q0", .gpu_quota = 8});
    c.AddJob(RunningJob("run1", "q0", 1, "node1", 4));
    c.AddJob(RunningJob("run0", "q0", 1, "node0", 2));
    c.AddJob(PendingJob("three", "q0", 3));
    c.AddJob(PendingJob("two", "q0", 2));
    c.AddJob(PendingJob("one", "q0", 1));
    TestSession s(c);
    const NodeSet& nodes = s.cluster().node_list;
    std::optional<MirroredCache> mirrored;
    ResourceFitCache plain;
    if (with_table) mirrored.emplace(nodes);
    ResourceFitCache& cache = with_table ? mirrored->cache : plain;
    auto expect_like_nodes = [&](const char* when) {
      for (const char* t : {"three-0", "two-0", "one-0"}) {
        const PodInfo& task = *s.Task(t);
        std::vector<uint8_t> fits(nodes.size());
        cache.FitsInIdle(task, std::span<const NodeInfo* const>(nodes.data(), nodes.size()), fits);
        for (size_t i = 0; i < nodes.size(); ++i) {
          EXPECT_EQ(fits[i], nodes[i]->IsTaskAllocatable(task) ? 1 : 0)
              << t << " on " << nodes[i]->name() << " " << when << " table " << with_table;
        }
      }
    };
    expect_like_nodes("before any view");
    // A task that fits nowhere records every node's errors, building their views (and columns).
    ASSERT_TRUE(cache.Check(*s.Task("three-0"), nodes, false, true).none_fits);
    EXPECT_EQ(cache.column_passes() > 0, with_table);
    expect_like_nodes("through the views");
    // "two" fits node0's Idle until "one" takes a GPU there: the view of node0 is then stale.
    EXPECT_EQ(s.Node("node0")->IsTaskAllocatable(*s.Task("two-0")), true);
    auto stmt = s.ssn().NewStatement();
    ASSERT_TRUE(stmt->Allocate(s.Task("one-0"), "node0").ok());
    EXPECT_EQ(s.Node("node0")->IsTaskAllocatable(*s.Task("two-0")), false);
    expect_like_nodes("after node0 changed");
    stmt->Discard();
    expect_like_nodes("after the discard");
  }
}

// NodeInfo keeps its count of used shared GPUs (which every fit error reads) between
// accounting changes: after pipelining a fractional task onto a new GPU group, evicting and
// rolling back, it equals a fresh count of the shared-GPU map, and the memo's errors follow.
TEST(ResourceFitCacheTest, UsedSharedGpuCountFollowsTheSharedAccounting) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("half", "q0", 0.5, "node0"));
  c.AddJob(RunningJob("whole", "q0", 1, "node0"));
  c.AddJob(PendingJob("frac", "q0", 0.5));
  c.AddJob(PendingJob("two", "q0", 2));
  TestSession s(c);
  NodeInfo* n = s.Node("node0");
  auto fresh = [n] {
    int k = 0;
    for (const auto& [g, m] : n->used_shared_gpus_memory) k += m > 0 ? 1 : 0;
    return k;
  };
  const NodeSet& nodes = s.cluster().node_list;
  ResourceFitCache cache;
  const int before = n->NumberOfUsedSharedGpus();
  EXPECT_EQ(before, fresh());
  ExpectFresh(&cache, *s.Task("two-0"), nodes);

  auto stmt = s.ssn().NewStatement();
  Statement::Checkpoint cp = stmt->MakeCheckpoint();
  std::vector<std::string> groups{"gnew"};
  ASSERT_TRUE(stmt->Pipeline(s.Task("frac-0"), "node0", false, &groups).ok());
  EXPECT_EQ(n->NumberOfUsedSharedGpus(), before + 1);
  EXPECT_EQ(n->NumberOfUsedSharedGpus(), fresh());
  ExpectFresh(&cache, *s.Task("two-0"), nodes);
  ASSERT_TRUE(stmt->Evict(s.Task("half-0"), "msg", {}).ok());
  EXPECT_EQ(n->NumberOfUsedSharedGpus(), fresh());
  ExpectFresh(&cache, *s.Task("two-0"), nodes);
  ASSERT_TRUE(stmt->Rollback(cp).ok());
  EXPECT_EQ(n->NumberOfUsedSharedGpus(), before);
  EXPECT_EQ(n->NumberOfUsedSharedGpus(), fresh());
  ExpectFresh(&cache, *s.Task("two-0"), nodes);
  stmt->Discard();
  EXPECT_EQ(n->NumberOfUsedSharedGpus(), fresh());
}

// The per-node room answer says which nodes a simulation orders: exactly the nodes where the task
// fits on Idle+Releasing, and in the order every node would have been visited in.
TEST(ResourceFitCacheTest, RoomSelectsTheNodesOfTheFullOrderThatHaveRoom) {
  TestCluster c;
  for (int i = 0; i < 5; ++i) c.AddNode(NodeSpec{.name = "node" + std::to_string(i), .gpus = 4});
  c.AddQueue({.name = "q0", .gpu_quota = 20});
  c.AddQueue({.name = "q1", .gpu_quota = 20});
  c.AddJob(RunningJob("full1", "q0", 1, "node1", 4));
  c.AddJob(RunningJob("full3", "q0", 1, "node3", 4));
  c.AddJob(RunningJob("part4", "q0", 1, "node4", 2));
  c.AddJob(PendingJob("two", "q1", 2));
  TestSession s(c);
  const NodeSet& nodes = s.cluster().node_list;
  PodInfo* task = s.Task("two-0");
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("full3-0"), "msg", {}).ok());
  ASSERT_TRUE(stmt->Evict(s.Task("full3-1"), "msg", {}).ok());
  const std::vector<uint8_t>* room = nullptr;
  ASSERT_FALSE(s.ssn().NoNodeHasRoom(*task, s.Job("two"), nodes, false, &room));
  ASSERT_NE(room, nullptr);
  // node1 is full; node3 has two releasing GPUs; node4 two idle ones.
  EXPECT_EQ(*room, (std::vector<uint8_t>{1, 0, 1, 1, 1}));
  std::vector<std::string> expected;
  for (const NodeInfo* n : s.ssn().OrderedNodesByTask(nodes, *task)) {
    if (n->name() != "node1") expected.push_back(n->name());
  }
  Session::NodeOrder order = s.ssn().LazyOrderedNodesByTask(nodes, *task, room);
  std::vector<std::string> got;
  for (NodeInfo* n = order.Next(); n != nullptr; n = order.Next()) got.push_back(n->name());
  EXPECT_EQ(got, expected);
  // node4 fits in Idle (node availability); node3 only on releasing GPUs.
  EXPECT_EQ(got.front(), "node4");
  EXPECT_EQ(got.size(), 4u);
  stmt->Discard();
}

// The nodes with room are picked from anywhere in a longer set (the scan skips eight answers at
// a time): at the ends of eight-node words, across them and in the tail.
TEST(ResourceFitCacheTest, RoomPicksItsNodesFromAnywhereInTheSet) {
  TestCluster c;
  for (int i = 0; i < 21; ++i) c.AddNode(NodeSpec{.name = "node" + std::to_string(i), .gpus = 4});
  c.AddQueue({.name = "q0", .gpu_quota = 100});
  c.AddJob(PendingJob("one", "q0", 1));
  TestSession s(c);
  const NodeSet& nodes = s.cluster().node_list;
  ASSERT_EQ(nodes.size(), 21u);
  const PodInfo& task = *s.Task("one-0");
  std::vector<uint8_t> room(nodes.size(), 0);
  std::set<std::string> expected;
  for (size_t i : {0, 7, 8, 15, 16, 20}) {
    room[i] = 1;
    expected.insert(nodes[i]->name());
  }
  Session::NodeOrder order = s.ssn().LazyOrderedNodesByTask(nodes, task, &room);
  std::vector<std::string> got;
  for (NodeInfo* n = order.Next(); n != nullptr; n = order.Next()) got.push_back(n->name());
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), expected);
  EXPECT_EQ(got.size(), expected.size());
  // In the order of the whole set's.
  std::vector<std::string> full;
  for (const NodeInfo* n : s.ssn().OrderedNodesByTask(nodes, task)) {
    if (expected.count(n->name()) != 0) full.push_back(n->name());
  }
  EXPECT_EQ(got, full);
}

// The fitting-group count is memoized per node until its accounting changes: it must follow every
// change of the shared-GPU maps (an uncached walk, FittingGpuGroups, is the reference).
TEST(ResourceFitCacheTest, FittingGroupCountFollowsTheSharedAccounting) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("half", "q0", 0.5, "node0"));
  c.AddJob(RunningJob("quarter", "q0", 0.25, "node0"));
  c.AddJob(PendingJob("frac", "q0", 0.5));
  c.AddJob(PendingJob("big", "q0", 0.75));
  TestSession s(c);
  NodeInfo* n = s.Node("node0");
  auto expect_fresh = [&](const char* when) {
    for (const char* t : {"frac-0", "big-0"}) {
      const PodInfo& task = *s.Task(t);
      const int all = static_cast<int>(n->FittingGpuGroups(task).size());
      EXPECT_EQ(n->CountFittingGpuGroups(task, -1), all) << t << " " << when;
      EXPECT_EQ(n->CountFittingGpuGroups(task, 1), std::min(all, 1)) << t << " " << when;
      EXPECT_EQ(n->CountFittingGpuGroups(task, -1), all) << t << " " << when << " (memo)";
    }
  };
  expect_fresh("at open");
  const int frac_before = n->CountFittingGpuGroups(*s.Task("frac-0"), -1);
  auto stmt = s.ssn().NewStatement();
  Statement::Checkpoint cp = stmt->MakeCheckpoint();
  ASSERT_TRUE(stmt->Evict(s.Task("half-0"), "msg", {}).ok());
  expect_fresh("after evicting half");
  std::vector<std::string> groups = s.Task("quarter-0")->gpu_groups;
  ASSERT_TRUE(stmt->Pipeline(s.Task("frac-0"), "node0", false, &groups).ok());
  expect_fresh("after pipelining frac onto quarter's group");
  ASSERT_TRUE(stmt->Rollback(cp).ok());
  expect_fresh("after rollback");
  EXPECT_EQ(n->CountFittingGpuGroups(*s.Task("frac-0"), -1), frac_before);
  stmt->Discard();
  expect_fresh("after discard");
}

// A simulated placement on a new GPU group, rolled back, leaves the node's per-group maps as they
// were: no empty group stays behind for every later walk to step over.
TEST(ResourceFitCacheTest, RolledBackNewGpuGroupLeavesNoEmptyEntry) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 2});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("half", "q0", 0.5, "node0"));
  c.AddJob(PendingJob("frac", "q0", 0.5));
  TestSession s(c);
  NodeInfo* n = s.Node("node0");
  const auto used = n->used_shared_gpus_memory;
  const auto allocated = n->allocated_shared_gpus_memory;
  const auto releasing = n->releasing_shared_gpus_memory;
  ASSERT_EQ(used.size(), 1u);
  for (int i = 0; i < 3; ++i) {
    auto stmt = s.ssn().NewStatement();
    std::vector<std::string> groups{"new-group-" + std::to_string(i)};
    ASSERT_TRUE(stmt->Pipeline(s.Task("frac-0"), "node0", false, &groups).ok());
    EXPECT_EQ(n->used_shared_gpus_memory.size(), 2u);
    stmt->Discard();
    EXPECT_EQ(n->used_shared_gpus_memory, used);
    EXPECT_EQ(n->allocated_shared_gpus_memory, allocated);
    EXPECT_EQ(n->releasing_shared_gpus_memory, releasing);
  }
  // Evicting the running pod and undoing it keeps its group: it is still used.
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("half-0"), "msg", {}).ok());
  stmt->Discard();
  EXPECT_EQ(n->used_shared_gpus_memory, used);
  EXPECT_EQ(n->allocated_shared_gpus_memory, allocated);
}

// Allocate on a full cluster records the same per-task errors whether or not the memo answered:
// the gang's explanation names both nodes, and the memo was used for the second job of a shape.
TEST(ResourceFitCacheTest, AllocateRecordsEveryNodesErrorThroughTheMemo) {
  TestSession s(FullCluster());
  s.Run({"allocate"});
  EXPECT_GT(s.ssn().resource_fit_cache().hits(), 0);
  for (const char* job : {"a", "b"}) {
    PodGroupInfo* j = s.Job(job);
    ASSERT_EQ(j->task_fit_errors.size(), 1u) << job;
    EXPECT_EQ(j->task_fit_errors.begin()->second.Message(),
              "no nodes with enough resources were found: 2 node(s) didn't have enough "
              "resources: GPUs.");
  }
  EXPECT_EQ(s.sink().binds.size(), 0u);
}

}  // namespace
}  // namespace kai::scheduler
