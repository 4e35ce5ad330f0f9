// The AccumulatedIdleGpus filter (reference §9.3): nodes ordered by idle + releasing GPUs, and a
// scenario passes only when its pending tasks' GPUs can be matched greedily to those nodes plus
// what its victims free.
#include "scheduler/actions/common/idle_gpus_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

TestCluster ThreeNodes() {
  TestCluster c;
  for (const char* n : {"n0", "n1", "n2"}) c.AddNode({.name = n, .gpus = 4});
  c.AddQueue({.name = "q", .gpu_quota = 12});
  c.AddJob(RunningJob("r0", "q", 4, "n0"));
  c.AddJob(RunningJob("r1", "q", 2, "n1"));
  c.AddJob(RunningJob("r2", "q", 2, "n2"));
  c.AddJob(PendingJob("p", "q", 3, 2));
  return c;
}

TEST(NodeGpuCapacitiesTest, OrdersByCapacityThenName) {
  TestSession s(ThreeNodes());
  const NodeGpuCapacities caps(s.cluster());
  ASSERT_EQ(caps.size(), 3u);
  EXPECT_EQ(caps.capacities(), (std::vector<double>{0, 2, 2}));
  EXPECT_EQ(caps.by_capacity(), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(caps.Find("n2"), 2u);
  EXPECT_EQ(caps.Find("n9"), std::nullopt);
  EXPECT_TRUE(caps == NodeGpuCapacities(s.cluster()));
  // Only the top nodes a search's tasks can use are ordered; every capacity is kept.
  const NodeGpuCapacities top2(s.cluster(), 2);
  EXPECT_EQ(top2.by_capacity(), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(top2.capacities(), caps.capacities());
  EXPECT_EQ(NodeGpuCapacities(s.cluster(), 1).by_capacity(), (std::vector<size_t>{1}));
  EXPECT_EQ(NodeGpuCapacities(s.cluster(), 0).by_capacity(), (std::vector<size_t>{}));
  EXPECT_EQ(NodeGpuCapacities(s.cluster(), 7).by_capacity(), caps.by_capacity());
}

// Each node's capacity is memoized per accounting version: evictions and their rollback show in the
// next capacities, and a cluster whose node list is not the session's (unranked nodes) is read
// through its node map with the same result.
TEST(NodeGpuCapacitiesTest, FollowsEveryChangeOfTheNodes) {
  TestSession s(ThreeNodes());
  EXPECT_EQ(NodeGpuCapacities(s.cluster()).capacities(), (std::vector<double>{0, 2, 2}));
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("r0-0"), "msg", {}).ok());
  EXPECT_EQ(NodeGpuCapacities(s.cluster()).capacities(), (std::vector<double>{4, 2, 2}));
  ASSERT_TRUE(stmt->Evict(s.Task("r2-0"), "msg", {}).ok());
  const NodeGpuCapacities changed(s.cluster());
  EXPECT_EQ(changed.capacities(), (std::vector<double>{4, 2, 4}));
  EXPECT_EQ(changed.by_capacity(), (std::vector<size_t>{0, 2, 1}));
  stmt->Discard();
  EXPECT_EQ(NodeGpuCapacities(s.cluster()).capacities(), (std::vector<double>{0, 2, 2}));

  std::reverse(s.cluster().node_list.begin(), s.cluster().node_list.end());
  const NodeGpuCapacities from_map(s.cluster());
  EXPECT_EQ(from_map.capacities(), (std::vector<double>{0, 2, 2}));
  EXPECT_EQ(from_map.Find("n0"), 0u);
  std::reverse(s.cluster().node_list.begin(), s.cluster().node_list.end());
  EXPECT_TRUE(from_map == NodeGpuCapacities(s.cluster()));
}

TEST(IdleGpusFilterTest, PassesOnceTheVictimsFreeEnoughGpusOnTheBestNodes) {
  TestSession s(ThreeNodes());
  auto caps = std::make_shared<const NodeGpuCapacities>(s.cluster());
  const std::vector<PodInfo*> pending{s.Task("p-0"), s.Task("p-1")};
  IdleGpusFilter filter(caps, pending.size());
  std::vector<PodInfo*> recorded;
  EXPECT_FALSE(filter.Filter(pending, recorded, {}));  // 2 + 2 idle GPUs, 3 + 3 needed
  recorded.push_back(s.Task("r1-0"));
  EXPECT_FALSE(filter.Filter(pending, recorded, {}));  // n1 has 4: one task fits
  const std::vector<PodInfo*> potential{s.Task("r2-0")};
  EXPECT_TRUE(filter.Filter(pending, recorded, potential));
  // Each victim counts once, however often the growing lists are passed again.
  EXPECT_TRUE(filter.Filter(pending, recorded, potential));
  EXPECT_EQ(caps->capacities(), (std::vector<double>{0, 2, 2}));  // shared table untouched
}

}  // namespace
}  // namespace kai::scheduler
