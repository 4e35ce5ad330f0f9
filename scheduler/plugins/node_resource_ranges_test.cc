// NodeResourceRanges must answer as a pass over the nodes would, whatever changed in between,
// and read only the nodes that changed.
#include "scheduler/plugins/node_resource_ranges.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::NodeSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

// node0..node3 with 4 GPUs, node<i> running i one-GPU pods; "cpu" has no GPU.
TestCluster Cluster() {
  TestCluster c;
  c.AddQueue({.name = "q", .gpu_quota = 64});
  for (int i = 0; i < 4; ++i) {
    const std::string node = "node" + std::to_string(i);
    c.AddNode(NodeSpec{.name = node, .gpus = 4});
    if (i > 0) c.AddJob(RunningJob("run" + std::to_string(i), "q", 1, node, i));
  }
  c.AddNode(NodeSpec{.name = "cpu", .gpus = 0});
  c.AddJob(PendingJob("pend", "q", 1));
  return c;
}

using Range = NodeResourceRanges::Range;

TEST(NodeResourceRangesTest, AnswersLikeAPassOverTheNodesAndReadsOnlyChangedOnes) {
  TestSession s(Cluster());
  const NodeSet& all = s.cluster().node_list;
  NodeResourceRanges ranges;
  // The CPU-only node has no GPU: left out of the GPU range.
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.node_reads(), 5);
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.node_reads(), 5);  // nothing written: nothing read

  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run3-0"), "msg", {}).ok());  // releasing counts as free
  ASSERT_TRUE(stmt->Evict(s.Task("run3-1"), "msg", {}).ok());
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  EXPECT_EQ(ranges.Of(kGpuIndex, all), NodeResourceRanges::Compute(kGpuIndex, all));
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{2, 3}));
  EXPECT_EQ(ranges.node_reads(), 7);  // node0 and node3 again
  stmt->Discard();
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.node_reads(), 9);  // the rollback wrote node0 and node3 again

  // A subset, then the whole set again: values already known are not read again.
  const NodeSet two{s.Node("node1"), s.Node("node2")};
  const int64_t reads = ranges.node_reads();
  EXPECT_EQ(ranges.Of(kGpuIndex, two), (Range{2, 3}));
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.node_reads(), reads);

  // A node assigned a copy of itself with a pod removed (as a recycled snapshot does).
  NodeInfo* node1 = s.Node("node1");
  NodeInfo freed(*node1);
  ASSERT_TRUE(freed.RemoveTask(*s.Task("run1-0")));
  const NodeInfo before(*node1);
  *node1 = freed;
  EXPECT_EQ(ranges.Of(kGpuIndex, two), (Range{2, 4}));
  *node1 = before;
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));

  // CPU is a separate range: every node has CPU.
  EXPECT_EQ(ranges.Of(kCpuIndex, all), NodeResourceRanges::Compute(kCpuIndex, all));
}

TEST(NodeResourceRangesTest, EmptySetsNodesWithoutTheResourceAndForeignNodes) {
  TestSession s(Cluster());
  NodeResourceRanges ranges;
  const Range empty{std::numeric_limits<double>::max(), 0};
  EXPECT_EQ(ranges.Of(kGpuIndex, NodeSet{}), empty);
  EXPECT_EQ(ranges.Of(kGpuIndex, NodeSet{s.Node("cpu")}), empty);
  // Copies do not mirror into the session's table: read directly, every time.
  NodeInfo copy(*s.Node("node2"));
  ASSERT_EQ(copy.accounting_version_table(), nullptr);
  const NodeSet mixed{s.Node("node0"), &copy};
  EXPECT_EQ(ranges.Of(kGpuIndex, mixed), (Range{2, 4}));
  EXPECT_EQ(ranges.Of(kGpuIndex, NodeSet{&copy, s.Node("node0")}), (Range{2, 4}));
}

TEST(NodeResourceRangesTest, MoreWritesThanTheLogKeepsForgetsEverything) {
  TestSession s(Cluster());
  const NodeSet& all = s.cluster().node_list;
  NodeResourceRanges ranges;
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  for (int i = 0; i < 200; ++i) s.Node("node2")->MarkAccountingChanged();
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 3}));
  stmt->Discard();
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
}

// The ends are adjusted by each change to a node of the set; the set is read again only when the
// last node holding an end moved away from it.
TEST(NodeResourceRangesTest, ChangesAdjustTheEndsUntilNoNodeHoldsOne) {
  TestSession s(Cluster());  // idle GPUs: node0 4, node1 3, node2 2, node3 1
  const NodeSet& all = s.cluster().node_list;
  NodeResourceRanges ranges;
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.set_passes(), 1);
  const int64_t reads = ranges.node_reads();
  auto stmt = s.ssn().NewStatement();
  // node2: 2 -> 3, inside the range: node2 read, no pass.
  ASSERT_TRUE(stmt->Evict(s.Task("run2-0"), "msg", {}).ok());
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.node_reads(), reads + 1);
  EXPECT_EQ(ranges.set_passes(), 1);
  // node3: 1 -> 2, the only node at the low end: a pass (over values already known).
  ASSERT_TRUE(stmt->Evict(s.Task("run3-0"), "msg", {}).ok());
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{2, 4}));
  EXPECT_EQ(ranges.node_reads(), reads + 2);
  EXPECT_EQ(ranges.set_passes(), 2);
  // node1: 3 -> 4, up to the high end node0 holds: no pass.
  ASSERT_TRUE(stmt->Evict(s.Task("run1-0"), "msg", {}).ok());
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{2, 4}));
  EXPECT_EQ(ranges.set_passes(), 2);
  // node0: 4 -> 3, node1 still holds the high end: no pass.
  ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{2, 4}));
  EXPECT_EQ(ranges.set_passes(), 2);
  stmt->Discard();
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
}

// A victim simulation evicts from the node holding an end and rolls back: the next value takes the
// end's place and the rollback makes the old end the next again, without reading the set.
TEST(NodeResourceRangesTest, AnEndVacatedAndRestoredNeedsNoPass) {
  TestSession s(Cluster());  // idle GPUs: node0 4, node1 3, node2 2, node3 1
  const NodeSet& all = s.cluster().node_list;
  NodeResourceRanges ranges;
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  for (int round = 0; round < 3; ++round) {
    auto stmt = s.ssn().NewStatement();
    // node3: 1 -> 2, the only node at the low end; node2 holds the next value, 2.
    ASSERT_TRUE(stmt->Evict(s.Task("run3-0"), "msg", {}).ok());
    EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{2, 4}));
    // node0: 4 -> 3, the only node at the high end; node1 holds 3.
    ASSERT_TRUE(stmt->Allocate(s.Task("pend-0"), "node0").ok());
    EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{2, 3}));
    stmt->Discard();
    EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  }
  EXPECT_EQ(ranges.set_passes(), 1);
}

// The set with one node taken out or put back (a victim search adds a victim's node to the
// feasible nodes for one node try): the ends are adjusted, the set is not read again.
TEST(NodeResourceRangesTest, ANodeAddedOrRemovedNeedsNoPass) {
  TestSession s(Cluster());  // idle GPUs: node0 4, node1 3, node2 2, node3 1
  const NodeSet& all = s.cluster().node_list;
  auto without = [&all](const NodeInfo* gone) {
    NodeSet out;
    for (NodeInfo* n : all) {
      if (n != gone) out.push_back(n);
    }
    return out;
  };
  NodeResourceRanges ranges;
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  // node3 holds the low end alone: node2's 2 takes its place, and is the next value again once
  // node3 is back.
  EXPECT_EQ(ranges.Of(kGpuIndex, without(s.Node("node3"))), (Range{2, 4}));
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.Of(kGpuIndex, without(s.Node("node2"))), (Range{1, 4}));
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.Of(kGpuIndex, without(s.Node("node0"))), (Range{1, 3}));
  EXPECT_EQ(ranges.set_passes(), 1);
  // The low end's next value left with node2: node3 leaving now needs a pass.
  EXPECT_EQ(ranges.Of(kGpuIndex, all), (Range{1, 4}));
  EXPECT_EQ(ranges.Of(kGpuIndex, without(s.Node("node3"))), (Range{2, 4}));
  EXPECT_EQ(ranges.set_passes(), 2);
  // A set naming a node twice is read directly, before and after a change.
  const NodeSet twice{s.Node("node3"), s.Node("node1"), s.Node("node3")};
  EXPECT_EQ(ranges.Of(kGpuIndex, twice), (Range{1, 3}));
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("run3-0"), "msg", {}).ok());
  EXPECT_EQ(ranges.Of(kGpuIndex, twice), (Range{2, 3}));
  stmt->Discard();
}

// Whatever a random sequence of evictions, placements and rollbacks does, the range is the pass
// over the nodes.
TEST(NodeResourceRangesTest, RandomChangesAnswerLikeAPass) {
  TestSession s(Cluster());
  const NodeSet& all = s.cluster().node_list;
  const NodeSet some{s.Node("node1"), s.Node("node2"), s.Node("node3")};
  // Sets one node away from each other, and one naming a node twice.
  const std::vector<NodeSet> sets{
      all,
      some,
      {s.Node("node2"), s.Node("node3")},
      {s.Node("node1"), s.Node("node3")},
      {s.Node("node0"), s.Node("node1"), s.Node("node2"), s.Node("node3")},
      {s.Node("node1"), s.Node("node1"), s.Node("node3")}};
  NodeResourceRanges ranges;
  const std::vector<std::string> running = {"run1-0", "run2-0", "run2-1",
                                            "run3-0", "run3-1", "run3-2"};
  uint32_t seed = 5;
  auto next = [&seed](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
  };
  for (int round = 0; round < 200; ++round) {
    auto stmt = s.ssn().NewStatement();
    for (int step = 0; step < 4; ++step) {
      if (next(3) == 0) {
        const std::string node = "node" + std::to_string(next(4));
        (void)stmt->Allocate(s.Task("pend-0"), node);
      } else {
        (void)stmt->Evict(s.Task(running[next(running.size())]), "msg", {});
      }
      const NodeSet& set = sets[next(sets.size())];
      ASSERT_EQ(ranges.Of(kGpuIndex, set), NodeResourceRanges::Compute(kGpuIndex, set))
          << round << "/" << step;
    }
    stmt->Discard();
    ASSERT_EQ(ranges.Of(kGpuIndex, all), NodeResourceRanges::Compute(kGpuIndex, all)) << round;
  }
}

}  // namespace
}  // namespace kai::scheduler
