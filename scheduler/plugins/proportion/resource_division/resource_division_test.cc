#include "scheduler/plugins/proportion/resource_division/resource_division.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "scheduler/plugins/proportion/testing/queue_builder.h"

namespace kai::proportion {
namespace {

using testing::GpuFairShare;
using testing::MakeTable;
using testing::QueueBuilder;

using enum ResourceName;

DivisionOptions NoUsage() {
  DivisionOptions o;
  o.k_value = 0;
  return o;
}

// Divides `total` GPUs among all queues of the table (one sibling set).
double DivideGpus(QueueTable& t_, double total, const DivisionOptions& o = NoUsage()) {
  std::vector<QueueIndex> all;
  all.reserve(t_.size());
  for (QueueIndex i = 0; i < t_.size(); ++i) all.push_back(i);
  return SetResourceShare(t_, all, kGpu, total, o);
}

double OverQuotaGpus(QueueTable& t_, double total, const DivisionOptions& o = NoUsage()) {
  std::vector<QueueIndex> all;
  all.reserve(t_.size());
  for (QueueIndex i = 0; i < t_.size(); ++i) all.push_back(i);
  return DivideOverQuotaResource(t_, all, kGpu, total, o);
}

// ---- KAI's setResourceShare unit cases (resource_division_test.go), GPU ----

class SingleQueueWithinQuota : public ::testing::Test {
 protected:
  QueueTable t_ = MakeTable({QueueBuilder("1").Gpu(3, 0, kUnlimited, 2)});
  ResourceShare& gpu() { return t_[0].share(kGpu); }
};

TEST_F(SingleQueueWithinQuota, GivesRequestedNoRemaining) {
  EXPECT_EQ(DivideGpus(t_, 2), 0);
  EXPECT_EQ(gpu().fair_share, 2);
}
TEST_F(SingleQueueWithinQuota, GivesRequestedWithRemaining) {
  EXPECT_EQ(DivideGpus(t_, 3), 1);
  EXPECT_EQ(gpu().fair_share, 2);
}
TEST_F(SingleQueueWithinQuota, DoesNotGiveMoreThanAllowed) {
  gpu().max_allowed = 2;
  EXPECT_EQ(DivideGpus(t_, 3), 1);
  EXPECT_EQ(gpu().fair_share, 2);
}
TEST_F(SingleQueueWithinQuota, GivesUpToDeservedWhenOversubscribed) {
  EXPECT_EQ(DivideGpus(t_, 1), 0);
  EXPECT_EQ(gpu().fair_share, 2);
}
TEST_F(SingleQueueWithinQuota, GivesUpToFullQuota) {
  gpu().request = 5;
  EXPECT_EQ(DivideGpus(t_, 7), 4);
  EXPECT_EQ(gpu().fair_share, 3);
}
TEST_F(SingleQueueWithinQuota, FractionalDeserved) {
  gpu().deserved = 1.5;
  EXPECT_EQ(DivideGpus(t_, 2), 0.5);
  EXPECT_EQ(gpu().fair_share, 1.5);
}
TEST_F(SingleQueueWithinQuota, FractionalRequest) {
  gpu().request = 1.5;
  EXPECT_EQ(DivideGpus(t_, 2), 0.5);
  EXPECT_EQ(gpu().fair_share, 1.5);
}
TEST_F(SingleQueueWithinQuota, ZeroDeservedGetsNothingWithoutWeight) {
  gpu().deserved = 0;
  EXPECT_EQ(DivideGpus(t_, 2), 2);
  EXPECT_EQ(gpu().fair_share, 0);
}

class SingleQueueOverQuota : public ::testing::Test {
 protected:
  QueueTable t_ = MakeTable({QueueBuilder("1").Gpu(3, 1, kUnlimited, 5)});
  void SetUp() override { gpu().fair_share = 3; }
  ResourceShare& gpu() { return t_[0].share(kGpu); }
};

TEST_F(SingleQueueOverQuota, GivesRequestedNoRemaining) {
  EXPECT_EQ(OverQuotaGpus(t_, 2), 0);
  EXPECT_EQ(gpu().fair_share, 5);
}
TEST_F(SingleQueueOverQuota, GivesRequestedWithRemaining) {
  EXPECT_EQ(OverQuotaGpus(t_, 3), 1);
  EXPECT_EQ(gpu().fair_share, 5);
}
TEST_F(SingleQueueOverQuota, DoesNotGiveMoreThanAllowed) {
  gpu().max_allowed = 4;
  EXPECT_EQ(OverQuotaGpus(t_, 2), 1);
  EXPECT_EQ(gpu().fair_share, 4);
}
TEST_F(SingleQueueOverQuota, NoOverQuotaWithZeroWeight) {
  gpu().over_quota_weight = 0;
  EXPECT_EQ(OverQuotaGpus(t_, 2), 2);
  EXPECT_EQ(gpu().fair_share, 3);
}
TEST_F(SingleQueueOverQuota, GivesFractionIfRequested) {
  gpu().request = 4.5;
  EXPECT_EQ(OverQuotaGpus(t_, 2), 0.5);
  EXPECT_EQ(gpu().fair_share, 4.5);
}
TEST_F(SingleQueueOverQuota, GivesRemainderFraction) {
  EXPECT_EQ(OverQuotaGpus(t_, 0.5), 0);
  EXPECT_EQ(gpu().fair_share, 3.5);
}
TEST_F(SingleQueueOverQuota, GivesWhenDeservedIsZero) {
  gpu().deserved = 0;
  gpu().fair_share = 0;
  EXPECT_EQ(OverQuotaGpus(t_, 6), 1);
  EXPECT_EQ(gpu().fair_share, 5);
}
TEST_F(SingleQueueOverQuota, NothingToDivide) {
  EXPECT_EQ(OverQuotaGpus(t_, 0), 0);
  EXPECT_EQ(gpu().fair_share, 3);
}

TEST(TwoQueuesOverQuota, ZeroWeightQueueGetsNoOverQuota) {
  QueueTable t_ = MakeTable(
      {QueueBuilder("1").Gpu(3, 0, kUnlimited, 5), QueueBuilder("2").Gpu(3, 1, kUnlimited, 3)});
  t_[t_.Find("1")].share(kGpu).fair_share = 3;
  t_[t_.Find("2")].share(kGpu).fair_share = 3;
  EXPECT_EQ(OverQuotaGpus(t_, 10), 10);
  EXPECT_EQ(GpuFairShare(t_, "1"), 3);
}

struct TwoQueueCase {
  std::string name;
  double total;
  std::map<std::string, double> request;
  std::map<std::string, double> max_allowed;
  std::map<std::string, double> weight;
  std::map<std::string, int> priority;
  double expected_remaining;
  std::map<std::string, double> expected;
};

class TwoQueues : public ::testing::TestWithParam<TwoQueueCase> {};

TEST_P(TwoQueues, Divide) {
  const TwoQueueCase& c = GetParam();
  std::vector<QueueAttributes> queues = {
      QueueBuilder("1").Created(1).Priority(0).Gpu(2, 2, kUnlimited, 6),
      QueueBuilder("2").Created(2).Priority(0).Gpu(2, 2, kUnlimited, 6)};
  for (QueueAttributes& q : queues) {
    ResourceShare& s = q.share(kGpu);
    if (c.request.count(q.uid)) s.request = c.request.at(q.uid);
    if (c.max_allowed.count(q.uid)) s.max_allowed = c.max_allowed.at(q.uid);
    if (c.weight.count(q.uid)) s.over_quota_weight = c.weight.at(q.uid);
    if (c.priority.count(q.uid)) q.priority = c.priority.at(q.uid);
  }
  QueueTable t_ = MakeTable(queues);
  EXPECT_EQ(DivideGpus(t_, c.total), c.expected_remaining);
  for (const auto& [uid, share] : c.expected) EXPECT_EQ(GpuFairShare(t_, uid), share) << uid;
}

INSTANTIATE_TEST_SUITE_P(
    KaiCases, TwoQueues,
    ::testing::Values(
        TwoQueueCase{"ManyAvailable", 15, {}, {}, {}, {}, 3, {{"1", 6}, {"2", 6}}},
        TwoQueueCase{"ExactRequested", 12, {}, {}, {}, {}, 0, {{"1", 6}, {"2", 6}}},
        TwoQueueCase{"Proportional", 8, {}, {}, {{"1", 1}, {"2", 3}}, {}, 0, {{"1", 3}, {"2", 5}}},
        TwoQueueCase{"NotMoreThanAllowed", 12, {}, {{"1", 5}}, {}, {}, 1, {{"1", 5}, {"2", 6}}},
        // 7 over quota split 1:4 = 1.4 / 5.6; floors 1 / 5, the last GPU to the larger remainder.
        TwoQueueCase{"RemainderByLargestRemaining",
                     11,
                     {{"1", 10}, {"2", 10}},
                     {},
                     {{"1", 1}, {"2", 4}},
                     {},
                     0,
                     {{"1", 3}, {"2", 8}}},
        TwoQueueCase{"RemainderByCreationTime", 11, {}, {}, {}, {}, 0, {{"1", 6}, {"2", 5}}},
        TwoQueueCase{"PriorityDoesNotAffectDeserved",
                     4,
                     {},
                     {},
                     {},
                     {{"1", 1}, {"2", 2}},
                     0,
                     {{"1", 2}, {"2", 2}}},
        TwoQueueCase{"PriorityAffectsOverQuota",
                     6,
                     {},
                     {},
                     {},
                     {{"1", 1}, {"2", 2}},
                     0,
                     {{"1", 2}, {"2", 4}}},
        TwoQueueCase{"PriorityBeatsWeight",
                     6,
                     {},
                     {},
                     {{"1", 100}, {"2", 1}},
                     {{"1", 1}, {"2", 2}},
                     0,
                     {{"1", 2}, {"2", 4}}}),
    [](const ::testing::TestParamInfo<TwoQueueCase>& info) { return info.param.name; });

TEST(ResourceDivision, DividesRemainderWithPriorities) {
  QueueTable t_ = MakeTable({QueueBuilder("1").Created(1).Priority(2).Gpu(2, 2, kUnlimited, 5),
                             QueueBuilder("2").Created(2).Priority(2).Gpu(2, 2, kUnlimited, 5),
                             QueueBuilder("3").Created(3).Priority(1).Gpu(1, 2, kUnlimited, 0)});
  EXPECT_EQ(DivideGpus(t_, 5), 0);
  EXPECT_EQ(GpuFairShare(t_, "1"), 3);
  EXPECT_EQ(GpuFairShare(t_, "2"), 2);
  EXPECT_EQ(GpuFairShare(t_, "3"), 0);
}

// Reference behaviour: leftovers are handed out after every priority group ran its rounds, so
// the low-priority queue takes a whole GPU in its round while the high-priority queues still
// hold fractional remainders.
TEST(ResourceDivision, LeftoversAfterAllPriorityGroupsByDefault) {
  auto make = [] {
    std::vector<QueueAttributes> qs = {
        QueueBuilder("high-1").Created(1).Priority(2).Gpu(1, 1, kUnlimited, 5),
        QueueBuilder("high-2").Created(2).Priority(2).Gpu(1, 1, kUnlimited, 5),
        QueueBuilder("low-1").Created(3).Priority(1).Gpu(1, 1, kUnlimited, 5)};
    QueueTable t_ = MakeTable(qs);
    for (QueueIndex i = 0; i < t_.size(); ++i) t_[i].share(kGpu).fair_share = 1;
    return t_;
  };
  QueueTable reference = make();
  EXPECT_EQ(OverQuotaGpus(reference, 3), 0);
  EXPECT_EQ(GpuFairShare(reference, "high-1"), 2);
  EXPECT_EQ(GpuFairShare(reference, "high-2"), 2);
  EXPECT_EQ(GpuFairShare(reference, "low-1"), 2);

  // Later upstream behaviour: each group settles its leftovers before the next group.
  QueueTable per_group = make();
  DivisionOptions o = NoUsage();
  o.leftovers_per_priority_group = true;
  EXPECT_EQ(OverQuotaGpus(per_group, 3, o), 0);
  EXPECT_EQ(GpuFairShare(per_group, "high-1"), 3);  // older queue wins the tie
  EXPECT_EQ(GpuFairShare(per_group, "high-2"), 2);
  EXPECT_EQ(GpuFairShare(per_group, "low-1"), 1);
}

// ---- CPU and memory (same algorithm, other units) ----

TEST(ResourceDivisionCpu, OneQueue) {
  QueueTable t_ = MakeTable({QueueBuilder("1").Res(kCpu, 3000, 3000, kUnlimited, 2000)});
  std::vector<QueueIndex> all = {0};
  EXPECT_EQ(SetResourceShare(t_, all, kCpu, 3000, NoUsage()), 1000);
  EXPECT_EQ(t_[0].share(kCpu).fair_share, 2000);

  QueueTable t2 = MakeTable({QueueBuilder("1").Res(kCpu, 3000, 3000, kUnlimited, 2000)});
  EXPECT_EQ(SetResourceShare(t2, all, kCpu, 1000, NoUsage()), 0);
  EXPECT_EQ(t2[0].share(kCpu).fair_share, 2000);
}

TEST(ResourceDivisionCpu, QueueWithoutDeservedLosesEverything) {
  QueueAttributes q2 = QueueBuilder("2").Res(kCpu, 0, 0, kUnlimited, 5000);
  q2.share(kCpu).allocated = 5000;
  QueueTable t_ = MakeTable({QueueBuilder("1").Res(kCpu, 5000, 5000, kUnlimited, 10000), q2});
  std::vector<QueueIndex> all = {0, 1};
  EXPECT_EQ(SetResourceShare(t_, all, kCpu, 10000, NoUsage()), 0);
  EXPECT_EQ(t_[t_.Find("1")].share(kCpu).fair_share, 10000);
  EXPECT_EQ(t_[t_.Find("2")].share(kCpu).fair_share, 0);
}

struct ThreeCpuCase {
  std::string name;
  double r1, r2, r3;
  double max1;
  double e1, e2, e3;
};

class ThreeQueuesCpu : public ::testing::TestWithParam<ThreeCpuCase> {};

TEST_P(ThreeQueuesCpu, Divide) {
  const ThreeCpuCase& c = GetParam();
  QueueTable t_ = MakeTable({QueueBuilder("1").Created(1).Res(kCpu, 5000, 5000, c.max1, c.r1),
                             QueueBuilder("2").Created(2).Res(kCpu, 5000, 5000, kUnlimited, c.r2),
                             QueueBuilder("3").Created(3).Res(kCpu, 5000, 5000, kUnlimited, c.r3)});
  std::vector<QueueIndex> all = {0, 1, 2};
  const double total = c.r1 == 6000 ? 18000 : 10000;
  EXPECT_EQ(SetResourceShare(t_, all, kCpu, total, NoUsage()), 0);
  EXPECT_EQ(t_[t_.Find("1")].share(kCpu).fair_share, c.e1);
  EXPECT_EQ(t_[t_.Find("2")].share(kCpu).fair_share, c.e2);
  EXPECT_EQ(t_[t_.Find("3")].share(kCpu).fair_share, c.e3);
}

INSTANTIATE_TEST_SUITE_P(
    KaiCases, ThreeQueuesCpu,
    ::testing::Values(
        ThreeCpuCase{"Oversubscribed", 5000, 5000, 5000, kUnlimited, 5000, 5000, 5000},
        ThreeCpuCase{"AllOverQuota", 6000, 6000, 6000, kUnlimited, 6000, 6000, 6000},
        ThreeCpuCase{"OneOverQuota", 7000, 2000, 2000, kUnlimited, 6000, 2000, 2000},
        ThreeCpuCase{"OneOverQuotaTwoAtQuota", 7000, 5000, 2000, kUnlimited, 5000, 5000, 2000},
        ThreeCpuCase{"OneOverQuotaWithLimit", 7000, 2000, 2000, 7000, 6000, 2000, 2000}),
    [](const ::testing::TestParamInfo<ThreeCpuCase>& info) { return info.param.name; });

TEST(ResourceDivisionMemory, OneQueue) {
  QueueTable t_ = MakeTable({QueueBuilder("1").Res(kMemory, 3000, 3000, kUnlimited, 2000)});
  std::vector<QueueIndex> all = {0};
  EXPECT_EQ(SetResourceShare(t_, all, kMemory, 3000, NoUsage()), 1000);
  EXPECT_EQ(t_[0].share(kMemory).fair_share, 2000);
}

// ---- Reference §9.3 worked examples ----

TEST(WorkedExample, ThreeQueuesTenGpus) {
  QueueTable t_ = MakeTable({QueueBuilder("A").Created(1).Gpu(2, 1, kUnlimited, 8),
                             QueueBuilder("B").Created(2).Gpu(3, 2, kUnlimited, 4),
                             QueueBuilder("C").Created(3).Gpu(0, 1, kUnlimited, 6)});
  SetFairShare(t_, ResourceQuantities::Gpu(10), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "A"), 4);
  EXPECT_EQ(GpuFairShare(t_, "B"), 4);
  EXPECT_EQ(GpuFairShare(t_, "C"), 2);
  EXPECT_EQ(t_[t_.Find("A")].share(kGpu).AllocatableShare(), 4);
  EXPECT_EQ(t_[t_.Find("B")].share(kGpu).AllocatableShare(), 4);
  EXPECT_EQ(t_[t_.Find("C")].share(kGpu).AllocatableShare(), 2);
}

TEST(WorkedExample, Hierarchy) {
  QueueTable t_ = MakeTable({QueueBuilder("A").Created(1).Gpu(2, 1, kUnlimited, 8),
                             QueueBuilder("B").Created(2).Gpu(3, 2, kUnlimited, 4),
                             QueueBuilder("C").Created(3).Gpu(0, 1, kUnlimited, 6),
                             QueueBuilder("A1").Parent("A").Created(4).Gpu(1, 1, kUnlimited, 5),
                             QueueBuilder("A2").Parent("A").Created(5).Gpu(1, 1, kUnlimited, 3)});
  SetFairShare(t_, ResourceQuantities::Gpu(10), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "A"), 4);
  EXPECT_EQ(GpuFairShare(t_, "A1"), 2);
  EXPECT_EQ(GpuFairShare(t_, "A2"), 2);
}

TEST(WorkedExample, LeftoverGoesToOlderQueue) {
  QueueTable t_ = MakeTable({QueueBuilder("late").Created(2).Gpu(0, 1, kUnlimited, 10),
                             QueueBuilder("early").Created(1).Gpu(0, 1, kUnlimited, 10)});
  SetFairShare(t_, ResourceQuantities::Gpu(3), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "early"), 2);
  EXPECT_EQ(GpuFairShare(t_, "late"), 1);
}

TEST(WorkedExample, LeftoverTieOnCreationTimeGoesToSmallerUid) {
  QueueTable t_ = MakeTable({QueueBuilder("b").Created(1).Gpu(0, 1, kUnlimited, 10),
                             QueueBuilder("a").Created(1).Gpu(0, 1, kUnlimited, 10)});
  SetFairShare(t_, ResourceQuantities::Gpu(3), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "a"), 2);
  EXPECT_EQ(GpuFairShare(t_, "b"), 1);
}

// Time-based variant: w = .5 / .5, u_X = .6, u_Y = 0, k = 1 -> s = .4 / 1.0, so X gets 2/7 of
// the over-quota pool and Y 5/7.
TEST(WorkedExample, HistoricalUsageShiftsOverQuota) {
  QueueTable t_ =
      MakeTable({QueueBuilder("X").Created(1).Gpu(0, 1, kUnlimited, 100).Usage(kGpu, 0.6),
                 QueueBuilder("Y").Created(2).Gpu(0, 1, kUnlimited, 100)});
  SetFairShare(t_, ResourceQuantities::Gpu(14), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "X"), 4);
  EXPECT_EQ(GpuFairShare(t_, "Y"), 10);

  // kValue 0 switches usage off: an even split.
  DivisionOptions no_usage;
  no_usage.k_value = 0;
  SetFairShare(t_, ResourceQuantities::Gpu(14), no_usage);
  EXPECT_EQ(GpuFairShare(t_, "X"), 7);
  EXPECT_EQ(GpuFairShare(t_, "Y"), 7);
}

TEST(WorkedExample, UsageAboveDoubleWeightGetsNothing) {
  // s_X = max(0, .5 + 2 (.5 - .9)) = 0: X is excluded from over-quota while Y still wants more.
  QueueTable t_ =
      MakeTable({QueueBuilder("X").Created(1).Gpu(1, 1, kUnlimited, 100).Usage(kGpu, 0.9),
                 QueueBuilder("Y").Created(2).Gpu(1, 1, kUnlimited, 100)});
  DivisionOptions o;
  o.k_value = 2;
  SetFairShare(t_, ResourceQuantities::Gpu(10), o);
  EXPECT_EQ(GpuFairShare(t_, "X"), 1);
  EXPECT_EQ(GpuFairShare(t_, "Y"), 9);
}

TEST(ResourceDivision, KValueClamp) {
  EXPECT_EQ(ClampKValue(-3), 0);
  EXPECT_EQ(ClampKValue(0), 0);
  EXPECT_EQ(ClampKValue(0.5), 0.5);
}

// ---- KAI proportion_test.go: hierarchies through SetFairShare ----

TEST(Hierarchy, SingleTopQueue) {
  QueueTable t_ = MakeTable({QueueBuilder("top").Gpu(3, 0, kUnlimited, 3),
                             QueueBuilder("mid").Parent("top").Gpu(3, 0, kUnlimited, 3),
                             QueueBuilder("leaf-1").Parent("mid").Gpu(2, 0, kUnlimited, 2),
                             QueueBuilder("leaf-2").Parent("mid").Gpu(1, 0, kUnlimited, 1)});
  SetFairShare(t_, ResourceQuantities::Gpu(3), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "top"), 3);
  EXPECT_EQ(GpuFairShare(t_, "mid"), 3);
  EXPECT_EQ(GpuFairShare(t_, "leaf-1"), 2);
  EXPECT_EQ(GpuFairShare(t_, "leaf-2"), 1);
}

TEST(Hierarchy, TwoTopParents) {
  QueueTable t_ = MakeTable({QueueBuilder("top-1").Gpu(2, 0, kUnlimited, 2),
                             QueueBuilder("c1").Parent("top-1").Gpu(1, 0, kUnlimited, 1),
                             QueueBuilder("c2").Parent("top-1").Gpu(1, 0, kUnlimited, 1),
                             QueueBuilder("top-2").Gpu(2, 0, kUnlimited, 2),
                             QueueBuilder("c3").Parent("top-2").Gpu(0, 0, kUnlimited, 0),
                             QueueBuilder("c4").Parent("top-2").Gpu(1, 1, kUnlimited, 2)});
  SetFairShare(t_, ResourceQuantities::Gpu(4), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "top-1"), 2);
  EXPECT_EQ(GpuFairShare(t_, "c1"), 1);
  EXPECT_EQ(GpuFairShare(t_, "c2"), 1);
  EXPECT_EQ(GpuFairShare(t_, "top-2"), 2);
  EXPECT_EQ(GpuFairShare(t_, "c3"), 0);
  EXPECT_EQ(GpuFairShare(t_, "c4"), 2);
}

struct DepartmentCase {
  std::string name;
  double total;
  std::map<std::string, double> deserved;
  std::map<std::string, double> weight;
  std::map<std::string, int> priority;
  std::map<std::string, double> expected;
};

class TwoDepartments : public ::testing::TestWithParam<DepartmentCase> {};

// d1/q1 and d2/q2, every queue quota 2, weight 1, requesting 100 GPUs, priority 0.
TEST_P(TwoDepartments, Divide) {
  const DepartmentCase& c = GetParam();
  std::vector<QueueAttributes> queues = {
      QueueBuilder("d1").Priority(0).Gpu(2, 1, kUnlimited, 100),
      QueueBuilder("q1").Parent("d1").Priority(0).Gpu(2, 1, kUnlimited, 100),
      QueueBuilder("d2").Priority(0).Gpu(2, 1, kUnlimited, 100),
      QueueBuilder("q2").Parent("d2").Priority(0).Gpu(2, 1, kUnlimited, 100)};
  for (QueueAttributes& q : queues) {
    if (c.deserved.count(q.uid)) q.share(kGpu).deserved = c.deserved.at(q.uid);
    if (c.weight.count(q.uid)) q.share(kGpu).over_quota_weight = c.weight.at(q.uid);
    if (c.priority.count(q.uid)) q.priority = c.priority.at(q.uid);
  }
  QueueTable t_ = MakeTable(queues);
  SetFairShare(t_, ResourceQuantities::Gpu(c.total), DivisionOptions{});
  for (const auto& [uid, share] : c.expected) EXPECT_EQ(GpuFairShare(t_, uid), share) << uid;
}

INSTANTIATE_TEST_SUITE_P(
    KaiCases, TwoDepartments,
    ::testing::Values(
        DepartmentCase{"Sanity", 4, {}, {}, {}, {{"d1", 2}, {"q1", 2}, {"d2", 2}, {"q2", 2}}},
        // q2 keeps its own quota of 2 under d2's fair share of 1: oversubscription.
        DepartmentCase{"DeservedDepartmentQuota",
                       4,
                       {{"d1", 3}, {"d2", 1}},
                       {},
                       {},
                       {{"d1", 3}, {"q1", 3}, {"d2", 1}, {"q2", 2}}},
        DepartmentCase{"OverQuota",
                       12,
                       {{"d1", 3}, {"d2", 1}},
                       {},
                       {},
                       {{"d1", 7}, {"q1", 7}, {"d2", 5}, {"q2", 5}}},
        // cases/proportion/006-two-top-parent-queues-over-quota-weight
        DepartmentCase{"OverQuotaWeight",
                       12,
                       {{"d1", 3}, {"d2", 1}},
                       {{"d1", 1}, {"d2", 7}},
                       {},
                       {{"d1", 4}, {"q1", 4}, {"d2", 8}, {"q2", 8}}},
        DepartmentCase{"OverQuotaWeightReversed",
                       12,
                       {{"d1", 3}, {"d2", 1}},
                       {{"d1", 7}, {"d2", 1}},
                       {},
                       {{"d1", 10}, {"q1", 10}, {"d2", 2}, {"q2", 2}}},
        // cases/proportion/008-two-top-parent-queues-priority
        DepartmentCase{"Priority",
                       12,
                       {{"d1", 1}, {"q1", 1}, {"d2", 1}, {"q2", 1}},
                       {{"d1", 7}, {"d2", 1}},
                       {{"d1", 1}, {"d2", 2}},
                       {{"d1", 1}, {"q1", 1}, {"d2", 11}, {"q2", 11}}},
        DepartmentCase{"PriorityReversed",
                       12,
                       {{"d1", 1}, {"q1", 1}, {"d2", 1}, {"q2", 1}},
                       {{"d1", 1}, {"d2", 7}},
                       {{"d1", 2}, {"d2", 1}},
                       {{"d1", 11}, {"q1", 11}, {"d2", 1}, {"q2", 1}}}),
    [](const ::testing::TestParamInfo<DepartmentCase>& info) { return info.param.name; });

TEST(Hierarchy, OrphanGetsNoFairShare) {
  QueueTable t_ = MakeTable({QueueBuilder("top").Gpu(kUnlimited, 1, kUnlimited, 4),
                             QueueBuilder("orphan").Parent("missing").Gpu(2, 1, kUnlimited, 4)});
  SetFairShare(t_, ResourceQuantities::Gpu(8), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "top"), 4);
  EXPECT_EQ(GpuFairShare(t_, "orphan"), 0);
}

TEST(Hierarchy, SetFairShareIsIdempotent) {
  QueueTable t_ = MakeTable({QueueBuilder("A").Created(1).Gpu(2, 1, kUnlimited, 8),
                             QueueBuilder("B").Created(2).Gpu(3, 2, kUnlimited, 4)});
  SetFairShare(t_, ResourceQuantities::Gpu(10), DivisionOptions{});
  const double a = GpuFairShare(t_, "A");
  SetFairShare(t_, ResourceQuantities::Gpu(10), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "A"), a);
}

TEST(Hierarchy, UnlimitedDeservedTakesWholeTotal) {
  // The scenarios' synthetic "default" parent: quota -1 for GPUs.
  QueueTable t_ =
      MakeTable({QueueBuilder("default").Gpu(kUnlimited, kUnlimited, kUnlimited, 3),
                 QueueBuilder("q0").Parent("default").Created(1).Gpu(1, 0, kUnlimited, 2),
                 QueueBuilder("q1").Parent("default").Created(2).Gpu(1, 0, kUnlimited, 1)});
  SetFairShare(t_, ResourceQuantities::Gpu(4), DivisionOptions{});
  EXPECT_EQ(GpuFairShare(t_, "default"), 3);
  EXPECT_EQ(GpuFairShare(t_, "q0"), 1);
  EXPECT_EQ(GpuFairShare(t_, "q1"), 1);
}

}  // namespace
}  // namespace kai::proportion
