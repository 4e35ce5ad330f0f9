#include "scheduler/plugins/proportion/reclaimable/reclaimable.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "scheduler/plugins/proportion/reclaimable/strategies.h"
#include "scheduler/plugins/proportion/testing/queue_builder.h"

namespace kai::proportion {
namespace {

using testing::MakeTable;
using testing::QueueBuilder;

using enum ResourceName;

// ---- CanReclaimResources (KAI reclaimable_test.go "Can Reclaim Resources") ----

struct CanReclaimCase {
  std::string name;
  ResourceQuantities required;
  bool preemptible;
  ResourceQuantities deserved, fair_share, allocated, allocated_np;
  bool expected;
};

class CanReclaim : public ::testing::TestWithParam<CanReclaimCase> {};

TEST_P(CanReclaim, Check) {
  const CanReclaimCase& c = GetParam();
  QueueTable t_ = MakeTable({QueueBuilder("queue1")
                                 .Deserved(c.deserved)
                                 .FairShare(c.fair_share)
                                 .Allocated(c.allocated)
                                 .AllocatedNonPreemptible(c.allocated_np)});
  ReclaimerInfo reclaimer;
  reclaimer.queue = 0;
  reclaimer.required = c.required;
  reclaimer.is_preemptible = c.preemptible;
  EXPECT_EQ(Reclaimable(1.0).CanReclaimResources(t_, reclaimer), c.expected);
}

using Q = ResourceQuantities;
INSTANTIATE_TEST_SUITE_P(
    KaiCases, CanReclaim,
    ::testing::Values(CanReclaimCase{"NoAllocationBelowFairShare",
                                     Q::Of(1000, 1000, 1),
                                     true,
                                     {},
                                     Q::Of(2000, 2000, 2),
                                     {},
                                     {},
                                     true},
                      CanReclaimCase{"SomeAllocatedBelowFairShare",
                                     Q::Of(1000, 1000, 1),
                                     true,
                                     {},
                                     Q::Of(3000, 3000, 3),
                                     Q::Of(1000, 1000, 1),
                                     {},
                                     true},
                      CanReclaimCase{"SomeAtFairShareWithJob",
                                     Q::Of(500, 1000, 0),
                                     true,
                                     {},
                                     Q::Of(2000, 2000, 2),
                                     Q::Of(1000, 1000, 1),
                                     {},
                                     true},
                      CanReclaimCase{"ExactlyAtFairShareWithJob",
                                     Q::Of(1000, 1000, 1),
                                     true,
                                     {},
                                     Q::Of(2000, 2000, 2),
                                     Q::Of(1000, 1000, 1),
                                     {},
                                     true},
                      CanReclaimCase{"PartiallyAboveFairShare",
                                     Q::Of(1, 1000, 1000),
                                     true,
                                     {},
                                     Q::Of(1500, 3000, 1),
                                     Q::Of(1000, 1000, 1),
                                     {},
                                     false},
                      CanReclaimCase{"FullyAboveFairShare",
                                     Q::Of(1, 1000, 1000),
                                     true,
                                     {},
                                     Q::Of(1500, 1500, 1),
                                     Q::Of(1000, 1000, 1),
                                     {},
                                     false},
                      CanReclaimCase{"QueueAboveFairShareWithoutJob",
                                     Q::Of(1, 1000, 1000),
                                     true,
                                     {},
                                     Q::Of(3000, 3000, 0),
                                     Q::Of(2000, 1000, 1),
                                     {},
                                     false},
                      CanReclaimCase{"NonPreemptibleBelowQuota",
                                     Q::Of(1000, 1000, 1),
                                     false,
                                     Q::Of(2000, 2000, 2),
                                     Q::Of(2000, 2000, 2),
                                     {},
                                     {},
                                     true},
                      CanReclaimCase{"NonPreemptibleExactlyAtQuota",
                                     Q::Of(1000, 1000, 1),
                                     false,
                                     Q::Of(1000, 1000, 1),
                                     Q::Of(2000, 2000, 2),
                                     {},
                                     {},
                                     true},
                      // 0.1 + 0.2 GPUs against a quota of 0.3: within tolerance.
                      CanReclaimCase{"FractionalGpuExactlyAtQuota", Q::Of(1, 1, 0.2), false,
                                     Q::Of(2, 2, 0.3), Q::Of(2, 2, 0.3), Q::Of(1, 1, 0.1),
                                     Q::Of(1, 1, 0.1), true},
                      CanReclaimCase{"NonPreemptiblePartiallyAboveQuota",
                                     Q::Of(1, 1000, 1000),
                                     false,
                                     Q::Of(1000, 500, 0),
                                     Q::Of(2000, 2000, 2),
                                     {},
                                     {},
                                     false},
                      CanReclaimCase{"NonPreemptibleSomeAllocatedBelowQuota", Q::Of(1000, 1000, 1),
                                     false, Q::Of(3000, 3000, 3), Q::Of(3000, 3000, 3),
                                     Q::Of(1000, 1000, 1), Q::Of(1000, 1000, 1), true},
                      // Only preemptible pods allocated, but the quota is 0.
                      CanReclaimCase{"NonPreemptibleZeroQuota",
                                     Q::Of(1, 1000, 1000),
                                     false,
                                     {},
                                     Q::Of(3000, 3000, 3),
                                     Q::Of(1000, 1000, 1),
                                     {},
                                     false},
                      CanReclaimCase{"NonPreemptibleFullyAboveQuota", Q::Of(1, 1000, 1000), false,
                                     Q::Of(1500, 1500, 1), Q::Of(3000, 3000, 3),
                                     Q::Of(1000, 1000, 1), Q::Of(1000, 1000, 1), false}),
    [](const ::testing::TestParamInfo<CanReclaimCase>& info) { return info.param.name; });

// ---- Reclaimable: GPU-only queue trees (KAI's buildQueues: limit unlimited, no CPU/memory) ----

struct Q3 {
  std::string parent;
  double deserved, fair_share, allocated;
};

QueueTable Build(const std::map<std::string, Q3>& data_) {
  std::vector<QueueAttributes> queues;
  for (const auto& [uid, d] : data_) {
    QueueAttributes q = QueueBuilder(uid).Parent(d.parent);
    q.share(kGpu).deserved = d.deserved;
    q.share(kGpu).fair_share = d.fair_share;
    q.share(kGpu).allocated = d.allocated;
    q.share(kGpu).max_allowed = kUnlimited;
    queues.push_back(q);
  }
  return MakeTable(queues);
}

ReclaimerInfo GpuReclaimer(const QueueTable& t_, const std::string& queue, double gpus,
                           bool preemptible = true) {
  ReclaimerInfo r;
  r.name = "reclaimer";
  r.namespace_name = "n1";
  r.queue = t_.Find(queue);
  r.is_preemptible = preemptible;
  r.required = ResourceQuantities::Gpu(gpus);
  r.involved = r.required.Positive();
  return r;
}

VictimQueueChunks GpuVictim(const QueueTable& t_, const std::string& queue,
                            const std::vector<double>& chunks) {
  VictimQueueChunks v;
  v.queue = t_.Find(queue);
  for (double g : chunks) {
    v.chunks.push_back({ResourceQuantities::Gpu(g), ResourceQuantities::Gpu(g).Positive()});
  }
  return v;
}

class SingleDepartment : public ::testing::Test {
 protected:
  std::map<std::string, Q3> data_ = {
      {"p1", {"default", 3, 3, 2}}, {"p2", {"default", 2, 2, 3}}, {"default", {"", 5, 5, 5}}};
  bool Run(bool preemptible = true) {
    QueueTable t_ = Build(data_);
    for (auto& [uid, fn] : tweaks_) fn(t_[t_.Find(uid)]);
    const std::vector<VictimQueueChunks> victims = {GpuVictim(t_, "p2", {1})};
    return Reclaimable(1.0).IsReclaimable(t_, GpuReclaimer(t_, "p1", 1, preemptible), victims);
  }
  std::vector<std::pair<std::string, std::function<void(QueueAttributes&)>>> tweaks_;
};

TEST_F(SingleDepartment, ReclaimerBelowReclaimeeAboveFairShare) { EXPECT_TRUE(Run()); }

TEST_F(SingleDepartment, ReclaimeeExactlyAtFairShare) {
  data_["p2"].allocated = 2;
  data_["default"].allocated = 4;
  EXPECT_FALSE(Run());
}

TEST_F(SingleDepartment, BothBelowFairShare) {
  data_["p2"].allocated = 1;
  data_["default"].allocated = 3;
  EXPECT_FALSE(Run());
}

TEST_F(SingleDepartment, ReclaimeeAboveDeservedWithinFairShare) {
  data_["p2"].fair_share = 3;
  EXPECT_TRUE(Run());
}

TEST_F(SingleDepartment, ReclaimerAtFairShareDepartmentBelowFairShare) {
  data_["p1"].allocated = 3;
  data_["default"] = {"", 7, 5 + (7 - 2), 6};
  EXPECT_FALSE(Run());
}

TEST_F(SingleDepartment, ReclaimerAtFairShareDepartmentAboveFairShare) {
  data_["p1"].allocated = 3;
  data_["default"].allocated = 6;
  EXPECT_FALSE(Run());
}

TEST_F(SingleDepartment, NonPreemptibleReclaimerAboveDeserved) {
  data_["p1"].deserved = 2;
  EXPECT_TRUE(Run(false));
}

TEST_F(SingleDepartment, NonPreemptibleDepartmentOnlyPreemptibleAboveDeserved) {
  data_["p1"].deserved = 2;
  data_["default"].deserved = 3;
  EXPECT_TRUE(Run(false));
}

TEST_F(SingleDepartment, NonPreemptibleDepartmentAtDeserved) {
  data_["p1"].deserved = 2;
  data_["default"].deserved = 3;
  tweaks_.push_back(
      {"default", [](QueueAttributes& q) { q.share(kGpu).allocated_not_preemptible = 3; }});
  EXPECT_FALSE(Run(false));
}

TEST_F(SingleDepartment, DepartmentAllocatedAboveFairShare) {
  data_["p1"].deserved = 2;
  data_["default"] = {"", 1, 1, 3};
  EXPECT_TRUE(Run());
}

class MultipleDepartments : public ::testing::Test {
 protected:
  std::map<std::string, Q3> data_ = {{"p1", {"d1", 3, 3, 2}},
                                     {"p2", {"d2", 2, 2, 3}},
                                     {"d1", {"", 3, 3, 2}},
                                     {"d2", {"", 2, 2, 3}}};
  bool Run() {
    QueueTable t_ = Build(data_);
    const std::vector<VictimQueueChunks> victims = {GpuVictim(t_, "p2", {1})};
    return Reclaimable(1.0).IsReclaimable(t_, GpuReclaimer(t_, "p1", 1), victims);
  }
};

TEST_F(MultipleDepartments, Sanity) { EXPECT_TRUE(Run()); }

TEST_F(MultipleDepartments, ReclaimeeDepartmentWouldGoBelowFairShare) {
  data_["p2"].allocated = 2;
  data_["d2"].allocated = 2;
  EXPECT_FALSE(Run());
}

TEST_F(MultipleDepartments, ReclaimerDepartmentBelowDeserved) {
  data_["p1"].allocated = 1;
  data_["d1"].allocated = 1;
  data_["p2"].fair_share = 4;
  data_["d2"].fair_share = 4;
  EXPECT_TRUE(Run());
}

TEST(MultipleLevels, Sanity) {
  QueueTable t_ = Build({{"left-top", {"", 1, 1, 0}},
                         {"left-mid", {"left-top", 1, 1, 0}},
                         {"left-leaf", {"left-mid", 1, 1, 0}},
                         {"right-top", {"", 1, 1, 2}},
                         {"right-mid", {"right-top", 1, 1, 2}},
                         {"right-leaf", {"right-mid", 1, 1, 2}}});
  EXPECT_TRUE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "left-leaf", 1),
                                          {{GpuVictim(t_, "right-leaf", {2})}}));
}

TEST(MultipleLevels, ReclaimerTopQueueWouldGoOverFairShare) {
  QueueTable t_ = Build({{"left-top", {"", 1, 1, 1}},
                         {"left-top-oq-leaf", {"left-top", 0, 0, 1}},
                         {"left-mid", {"left-top", 1, 1, 0}},
                         {"left-leaf", {"left-mid", 1, 1, 0}},
                         {"right-top", {"", 1, 1, 2}},
                         {"right-mid", {"right-top", 1, 1, 2}},
                         {"right-leaf", {"right-mid", 1, 1, 2}}});
  EXPECT_FALSE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "left-leaf", 1),
                                           {{GpuVictim(t_, "right-leaf", {2})}}));
}

class SameBranch : public ::testing::Test {
 protected:
  QueueTable t_ = Build({{"top", {"", 2, 2, 2}},
                         {"mid1", {"top", 1, 1, 0.5}},
                         {"mid2", {"top", 1, 1, 1.5}},
                         {"left-leaf1", {"mid1", 1, 1, 0}},
                         {"left-leaf2", {"mid1", 0, 0, 0.5}},
                         {"right-leaf", {"mid2", 1, 1, 1.5}}});
};

TEST_F(SameBranch, WouldGoOverFairShare) {
  EXPECT_FALSE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "left-leaf1", 1),
                                           {{GpuVictim(t_, "right-leaf", {1.5})}}));
}

TEST_F(SameBranch, Reclaim) {
  const std::vector<VictimQueueChunks> victims = {GpuVictim(t_, "right-leaf", {1.5}),
                                                  GpuVictim(t_, "left-leaf2", {0.5})};
  EXPECT_TRUE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "left-leaf1", 1), victims));
}

TEST(Saturation, ReclaimerOverOneButBelowReclaimee) {
  QueueTable t_ = Build({{"d1", {"", 4, 4, 4}},
                         {"d1-project-1", {"d1", 3, 1, 0}},
                         {"d1-project-2", {"d1", 1, 3, 4}},
                         {"d2", {"", 3, 3, 7}},
                         {"d2-project-1", {"d2", 3, 3, 7}}});
  EXPECT_TRUE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "d1-project-1", 1),
                                          {{GpuVictim(t_, "d2-project-1", {1})}}));
}

TEST(Saturation, UninvolvedResourcesAreIgnored) {
  QueueTable t_ = Build({{"d1", {"", 4, 4, 4}},
                         {"d1-project-1", {"d1", 1, 1, 1}},
                         {"d2", {"", 3, 3, 7}},
                         {"d2-project-1", {"d2", 3, 3, 7}}});
  // d1 runs at 3x its CPU fair share, d2 at 1x; the reclaim only involves GPUs.
  t_[t_.Find("d1")].share(kCpu).allocated = 3000;
  t_[t_.Find("d1")].share(kCpu).fair_share = 1000;
  t_[t_.Find("d2")].share(kCpu).allocated = 1000;
  t_[t_.Find("d2")].share(kCpu).fair_share = 1000;
  EXPECT_TRUE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "d1-project-1", 1),
                                          {{GpuVictim(t_, "d2-project-1", {1})}}));

  // The same CPU imbalance decides once the reclaimer also asks for CPU.
  ReclaimerInfo with_cpu = GpuReclaimer(t_, "d1-project-1", 1);
  with_cpu.required[kCpu] = 100;
  with_cpu.involved = with_cpu.required.Positive();
  EXPECT_FALSE(Reclaimable().IsReclaimable(t_, with_cpu, {{GpuVictim(t_, "d2-project-1", {1})}}));
}

TEST(Saturation, MultiplierProtectsTheReclaimee) {
  // Reclaimer side ends at 5/4 = 1.25 of its fair share; the sibling is at 8/6 = 1.33.
  QueueTable t_ = Build({{"a", {"", 2, 4, 4}}, {"b", {"", 2, 6, 9}}});
  const std::vector<VictimQueueChunks> victims = {GpuVictim(t_, "b", {1})};
  EXPECT_TRUE(Reclaimable(1.0).IsReclaimable(t_, GpuReclaimer(t_, "a", 1), victims));
  // 1.25 * 1.1 = 1.375 >= 1.33: invalid.
  EXPECT_FALSE(Reclaimable(1.1).IsReclaimable(t_, GpuReclaimer(t_, "a", 1), victims));
  // Values below 1 are raised to 1.
  EXPECT_EQ(Reclaimable(0.5).saturation_multiplier(), 1.0);
}

TEST(Saturation, RatioEdgeCases) {
  EXPECT_EQ(Reclaimable::FairShareSaturationRatio(0, 0), 0);
  EXPECT_TRUE(std::isinf(Reclaimable::FairShareSaturationRatio(1, 0)));
  EXPECT_EQ(Reclaimable::FairShareSaturationRatio(5, kUnlimited), 0);
  EXPECT_EQ(Reclaimable::FairShareSaturationRatio(3, 2), 1.5);
}

TEST(Chunks, EachChunkMustFitBeforeItIsTaken) {
  // p2 holds 4 with fair share 2: taking 1 and 1 leaves it at its share (each chunk was taken
  // while above it), a third chunk would not be.
  QueueTable t_ = Build({{"p1", {"", 0, 4, 0}}, {"p2", {"", 0, 2, 4}}});
  EXPECT_TRUE(
      Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "p1", 1), {{GpuVictim(t_, "p2", {1, 1})}}));
  EXPECT_FALSE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "p1", 1),
                                           {{GpuVictim(t_, "p2", {1, 1, 1})}}));
  // One gang chunk of 3 is checked once, before it is taken.
  EXPECT_TRUE(
      Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "p1", 1), {{GpuVictim(t_, "p2", {3})}}));
}

TEST(Strategies, GuaranteeDeservedQuota) {
  QueueAttributes reclaimer =
      QueueBuilder("r").Deserved(ResourceQuantities::Gpu(2)).Allocated(ResourceQuantities::Gpu(1));
  QueueAttributes reclaimee =
      QueueBuilder("e")
          .Deserved(ResourceQuantities::Gpu(1))
          .FairShare(ResourceQuantities::Gpu(5))
          .MaxAllowed(ResourceQuantities::Of(kUnlimited, kUnlimited, kUnlimited));
  // Reclaimee within its fair share but above quota; reclaimer within quota with the job.
  EXPECT_FALSE(FitsMaintainFairShare(reclaimee, ResourceQuantities::Gpu(3)));
  EXPECT_TRUE(FitsGuaranteeDeservedQuota(ResourceQuantities::Gpu(1), reclaimer, reclaimee,
                                         ResourceQuantities::Gpu(3)));
  EXPECT_FALSE(FitsGuaranteeDeservedQuota(ResourceQuantities::Gpu(2), reclaimer, reclaimee,
                                          ResourceQuantities::Gpu(3)));
  EXPECT_FALSE(FitsGuaranteeDeservedQuota(ResourceQuantities::Gpu(1), reclaimer, reclaimee,
                                          ResourceQuantities::Gpu(1)));
  EXPECT_TRUE(FitsReclaimStrategy(ResourceQuantities::Gpu(1), reclaimer, reclaimee,
                                  ResourceQuantities::Gpu(3)));
}

TEST(LeveledQueues, SiblingsUnderLowestCommonAncestor) {
  QueueTable t_ = Build({{"top", {"", 0, 0, 0}},
                         {"mid1", {"top", 0, 0, 0}},
                         {"mid2", {"top", 0, 0, 0}},
                         {"a", {"mid1", 0, 0, 0}},
                         {"b", {"mid1", 0, 0, 0}},
                         {"c", {"mid2", 0, 0, 0}},
                         {"other", {"", 0, 0, 0}}});
  auto names = [&](std::pair<QueueIndex, QueueIndex> p) {
    return t_[p.first].uid + "/" + t_[p.second].uid;
  };
  EXPECT_EQ(names(Reclaimable::LeveledQueues(t_, t_.Find("a"), t_.Find("b"))), "a/b");
  EXPECT_EQ(names(Reclaimable::LeveledQueues(t_, t_.Find("a"), t_.Find("c"))), "mid1/mid2");
  EXPECT_EQ(names(Reclaimable::LeveledQueues(t_, t_.Find("a"), t_.Find("other"))), "top/other");
  EXPECT_EQ(Reclaimable::LeveledQueues(t_, kNoQueue, t_.Find("a")).first, kNoQueue);
}

TEST(Reclaimable, UnknownQueuesAreNotReclaimable) {
  QueueTable t_ = Build({{"p1", {"", 0, 4, 0}}});
  ReclaimerInfo r;
  EXPECT_FALSE(Reclaimable().CanReclaimResources(t_, r));
  EXPECT_FALSE(Reclaimable().IsReclaimable(t_, r, {}));
  VictimQueueChunks v;
  EXPECT_FALSE(Reclaimable().IsReclaimable(t_, GpuReclaimer(t_, "p1", 1), {{v}}));
}

}  // namespace
}  // namespace kai::proportion
