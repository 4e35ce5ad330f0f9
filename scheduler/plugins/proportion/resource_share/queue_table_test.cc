#include "scheduler/plugins/proportion/resource_share/queue_table.h"

#include <gtest/gtest.h>

#include "scheduler/plugins/proportion/testing/queue_builder.h"

namespace kai::proportion {
namespace {

using testing::MakeTable;
using testing::QueueBuilder;

TEST(QueueTable, OrdersByCreationTimeThenUid) {
  QueueTable t = MakeTable(
      {QueueBuilder("c").Created(1), QueueBuilder("b").Created(2), QueueBuilder("a").Created(2)});
  ASSERT_EQ(t.size(), 3);
  EXPECT_EQ(t[0].uid, "c");
  EXPECT_EQ(t[1].uid, "a");
  EXPECT_EQ(t[2].uid, "b");
  ASSERT_EQ(t.top_level().size(), 3u);
  EXPECT_EQ(t[t.top_level()[0]].uid, "c");
}

TEST(QueueTable, ResolvesHierarchy) {
  QueueTable t =
      MakeTable({QueueBuilder("leaf-b").Parent("dep").Created(3), QueueBuilder("dep").Created(1),
                 QueueBuilder("leaf-a").Parent("dep").Created(2)});
  const QueueIndex dep = t.Find("dep");
  const QueueIndex a = t.Find("leaf-a");
  const QueueIndex b = t.Find("leaf-b");
  EXPECT_EQ(t.parent(a), dep);
  EXPECT_EQ(t.parent(dep), kNoQueue);
  ASSERT_EQ(t.children(dep).size(), 2u);
  EXPECT_EQ(t.children(dep)[0], a);
  EXPECT_EQ(t.children(dep)[1], b);
  EXPECT_TRUE(t.IsLeaf(a));
  EXPECT_FALSE(t.IsLeaf(dep));
  EXPECT_EQ(t.depth(b), 1);
  EXPECT_EQ(t.PathFromRoot(b), (std::vector<QueueIndex>{dep, b}));
  EXPECT_EQ(t.Find("nope"), kNoQueue);
}

TEST(QueueTable, RejectsDuplicateAndEmptyUids) {
  EXPECT_FALSE(QueueTable::Build({QueueBuilder("a"), QueueBuilder("a")}).ok());
  EXPECT_FALSE(QueueTable::Build({QueueBuilder("")}).ok());
  EXPECT_TRUE(QueueTable::Build({}).ok());
}

TEST(QueueTable, OrphansKeepLinksButLeaveTheTree) {
  QueueTable t = MakeTable({QueueBuilder("top"), QueueBuilder("lost").Parent("missing"),
                            QueueBuilder("lost-child").Parent("lost")});
  const QueueIndex lost = t.Find("lost");
  const QueueIndex child = t.Find("lost-child");
  EXPECT_TRUE(t.IsOrphan(lost));
  EXPECT_TRUE(t.IsOrphan(child));
  EXPECT_FALSE(t.IsOrphan(t.Find("top")));
  EXPECT_EQ(t.parent(child), lost);  // as KAI: walks up stop at the missing parent
  ASSERT_EQ(t.top_level().size(), 1u);
  EXPECT_EQ(t[t.top_level()[0]].uid, "top");
}

TEST(QueueTable, CyclesAreOrphanedAndWalksTerminate) {
  QueueTable t = MakeTable({QueueBuilder("x").Parent("y"), QueueBuilder("y").Parent("x"),
                            QueueBuilder("z").Parent("x"), QueueBuilder("self").Parent("self")});
  for (const char* uid : {"x", "y", "z", "self"}) EXPECT_TRUE(t.IsOrphan(t.Find(uid))) << uid;
  EXPECT_TRUE(t.top_level().empty());
  int steps = 0;
  t.ForSelfAndAncestors(t.Find("z"), [&](QueueIndex) { ++steps; });
  EXPECT_LE(steps, 3);
}

TEST(QueueTable, AccountingPropagatesToAncestors) {
  QueueTable t = MakeTable({QueueBuilder("dep"), QueueBuilder("leaf").Parent("dep"),
                            QueueBuilder("other").Parent("dep")});
  const QueueIndex dep = t.Find("dep");
  const QueueIndex leaf = t.Find("leaf");
  const QueueIndex other = t.Find("other");
  t.AddAllocatedTask(leaf, ResourceQuantities::Of(1000, 1e9, 1), /*non_preemptible=*/true);
  t.AddPendingTask(leaf, ResourceQuantities::Of(500, 0, 2));
  t.AddAllocatedTask(other, ResourceQuantities::Of(0, 0, 3), /*non_preemptible=*/false);
  EXPECT_EQ(t[leaf].Allocated(), ResourceQuantities::Of(1000, 1e9, 1));
  EXPECT_EQ(t[leaf].AllocatedNonPreemptible(), ResourceQuantities::Of(1000, 1e9, 1));
  EXPECT_EQ(t[leaf].Request(), ResourceQuantities::Of(1500, 1e9, 3));
  EXPECT_EQ(t[dep].Allocated(), ResourceQuantities::Of(1000, 1e9, 4));
  EXPECT_EQ(t[dep].AllocatedNonPreemptible(), ResourceQuantities::Of(1000, 1e9, 1));
  EXPECT_EQ(t[dep].Request(), ResourceQuantities::Of(1500, 1e9, 6));

  t.AddAllocated(other, ResourceQuantities::Gpu(2), /*non_preemptible=*/false);
  t.SubAllocated(leaf, ResourceQuantities::Of(1000, 1e9, 1), /*non_preemptible=*/true);
  EXPECT_EQ(t[dep].Allocated(), ResourceQuantities::Gpu(5));
  EXPECT_EQ(t[dep].AllocatedNonPreemptible(), ResourceQuantities{});
  EXPECT_EQ(t[other].Allocated(), ResourceQuantities::Gpu(5));
}

TEST(QueueTable, CopyIsAnIndependentClone) {
  QueueTable t = MakeTable({QueueBuilder("q")});
  QueueTable clone = t;
  clone.AddAllocated(0, ResourceQuantities::Gpu(1), false);
  EXPECT_EQ(t[0].Allocated().gpu(), 0);
  EXPECT_EQ(clone[0].Allocated().gpu(), 1);
  EXPECT_EQ(clone.Find("q"), 0);
}

TEST(QueueAttributes, DominantResourceShare) {
  QueueAttributes q = QueueBuilder("q")
                          .Deserved(ResourceQuantities::Of(kUnlimited, 0, 4))
                          .MaxAllowed(ResourceQuantities::Of(kUnlimited, kUnlimited, kUnlimited))
                          .Allocated(ResourceQuantities::Of(5000, 0, 2));
  const ResourceQuantities total = ResourceQuantities::Of(10000, 1e9, 8);
  // cpu: 5000 / total 10000 = .5 (allocatable unlimited -> total); gpu: 2 / 4 = .5.
  EXPECT_DOUBLE_EQ(q.DominantResourceShare(total), 0.5);
  // memory has no allocatable share: allocated * 1000.
  q.share(ResourceName::kMemory).allocated = 1;
  EXPECT_DOUBLE_EQ(q.DominantResourceShare(total), 1000);
}

TEST(QueueAttributes, OverUtilizedNeedsEveryResourceAbove) {
  QueueAttributes q = QueueBuilder("q")
                          .FairShare(ResourceQuantities::Of(1, 1, 1))
                          .Allocated(ResourceQuantities::Of(2, 2, 1));
  EXPECT_FALSE(q.FairShareLessThanAllocated());
  q.share(ResourceName::kGpu).allocated = 2;
  EXPECT_TRUE(q.FairShareLessThanAllocated());
}

}  // namespace
}  // namespace kai::proportion
