#include "scheduler/plugins/proportion/queue_order/queue_order.h"

#include <gtest/gtest.h>

#include <vector>

#include "scheduler/plugins/proportion/testing/queue_builder.h"

namespace kai::proportion {
namespace {

using testing::QueueBuilder;

using enum ResourceName;

// GPU-only queue: deserved, fair share, allocated, request; limit unlimited, weight 1.
QueueAttributes GpuQueue(const std::string& uid, int priority, double deserved, double fair_share,
                         double allocated, double request) {
  QueueAttributes q = QueueBuilder(uid).Priority(priority).Gpu(deserved, 1, kUnlimited, request);
  q.share(kGpu).fair_share = fair_share;
  q.share(kGpu).allocated = allocated;
  return q;
}

int Compare(const QueueAttributes& l, const QueueAttributes& r, const ResourceQuantities& l_job,
            const ResourceQuantities& r_job, const ResourceQuantities& total = {}) {
  return CompareQueues({&l, &l_job, {}}, {&r, &r_job, {}}, total);
}

const ResourceQuantities kNoJob{};

// ---- KAI queue_order_test.go ----

TEST(QueueOrder, StarvedQueueFirst) {
  QueueAttributes l = GpuQueue("l", 0, 2, 99, 20, 99);
  QueueAttributes r = GpuQueue("r", 0, 2, 2, 0, 2);
  EXPECT_EQ(Compare(l, r, kNoJob, kNoJob), kRightQueueFirst);
}

TEST(QueueOrder, StarvationBeatsPriority) {
  QueueAttributes l = GpuQueue("l", 1, 2, 99, 20, 99);
  QueueAttributes r = GpuQueue("r", 0, 2, 2, 0, 2);
  EXPECT_EQ(Compare(l, r, kNoJob, kNoJob), kRightQueueFirst);
}

TEST(QueueOrder, PriorityWhenBothSatisfied) {
  QueueAttributes l = GpuQueue("l", 1, 2, 99, 20, 99);
  QueueAttributes r = GpuQueue("r", 0, 2, 2, 3, 99);
  // r is over-utilized in GPUs only; CPU and memory (0 / 0) keep it "not over-utilized".
  EXPECT_EQ(Compare(l, r, kNoJob, kNoJob), kLeftQueueFirst);
  QueueAttributes r2 = GpuQueue("r", 0, 2, 80, 3, 99);
  EXPECT_EQ(Compare(l, r2, kNoJob, kNoJob), kLeftQueueFirst);
}

// GPU-memory jobs: 2 x 5000 MiB and 2 x 10000 MiB on 10000 MiB GPUs count as 1 and 2 GPUs.
TEST(QueueOrder, SmallerJobWinsDrf) {
  QueueAttributes l = GpuQueue("l", 0, 50, 50, 40, 50);
  QueueAttributes r = GpuQueue("r", 0, 50, 50, 40, 50);
  const ResourceQuantities total = ResourceQuantities::Gpu(100);
  EXPECT_EQ(Compare(l, r, ResourceQuantities::Gpu(1), ResourceQuantities::Gpu(2), total),
            kLeftQueueFirst);
  EXPECT_EQ(Compare(l, r, ResourceQuantities::Gpu(3.2), ResourceQuantities::Gpu(0.8), total),
            kRightQueueFirst);
}

// ---- Each rule in isolation ----

TEST(QueueOrder, UnderUtilizedBeforeOverUtilized) {
  QueueAttributes over = QueueBuilder("over")
                             .Deserved(ResourceQuantities::Of(0, 0, 0))
                             .MaxAllowed(ResourceQuantities::Of(kUnlimited, kUnlimited, kUnlimited))
                             .FairShare(ResourceQuantities::Of(1, 1, 1))
                             .Allocated(ResourceQuantities::Of(2, 2, 2));
  QueueAttributes under =
      QueueBuilder("under").Priority(0).Allocated(ResourceQuantities::Of(0, 0, 5));
  EXPECT_EQ(Compare(over, under, kNoJob, kNoJob), kRightQueueFirst);
  EXPECT_EQ(Compare(under, over, kNoJob, kNoJob), kLeftQueueFirst);
}

TEST(QueueOrder, StarvationCountsTheJob) {
  QueueAttributes l = GpuQueue("l", 0, 2, 4, 1, 4);
  QueueAttributes r = GpuQueue("r", 0, 2, 4, 1, 4);
  // With a 1-GPU job l stays within quota, with a 2-GPU job r does not.
  EXPECT_EQ(Compare(l, r, ResourceQuantities::Gpu(1), ResourceQuantities::Gpu(2)), kLeftQueueFirst);
}

TEST(QueueOrder, ZeroSharePenalty) {
  // Both over quota, same priority; l would use GPUs it has no allocatable share of.
  QueueAttributes l = GpuQueue("l", 0, 0, 0, 0, 1);
  QueueAttributes r = GpuQueue("r", 0, 0, 1, 3, 10);
  l.share(kGpu).max_allowed = 0;
  EXPECT_EQ(Compare(l, r, ResourceQuantities::Gpu(1), ResourceQuantities::Gpu(1)),
            kRightQueueFirst);
}

TEST(QueueOrder, DrfWithoutJobBreaksDrfTie) {
  QueueAttributes l = GpuQueue("l", 0, 0, 4, 2, 10);
  QueueAttributes r = GpuQueue("r", 0, 0, 4, 1, 10);
  // With the jobs both reach 3/4; without, l has 2/4 and r 1/4.
  EXPECT_EQ(Compare(l, r, ResourceQuantities::Gpu(1), ResourceQuantities::Gpu(2)),
            kRightQueueFirst);
}

TEST(QueueOrder, SmallerAllocatableShareThenCreationTimeThenUid) {
  QueueAttributes l = GpuQueue("l", 0, 0, 2, 0, 10);
  QueueAttributes r = GpuQueue("r", 0, 0, 4, 0, 10);
  EXPECT_EQ(Compare(l, r, kNoJob, kNoJob), kLeftQueueFirst);
  EXPECT_EQ(Compare(r, l, kNoJob, kNoJob), kRightQueueFirst);

  QueueAttributes a = GpuQueue("a", 0, 0, 2, 0, 10);
  QueueAttributes b = GpuQueue("b", 0, 0, 2, 0, 10);
  a.creation_time = testing::Minute(2);
  b.creation_time = testing::Minute(1);
  EXPECT_EQ(Compare(a, b, kNoJob, kNoJob), kRightQueueFirst);
  b.creation_time = a.creation_time;
  EXPECT_EQ(Compare(a, b, kNoJob, kNoJob), kLeftQueueFirst);
  EXPECT_EQ(Compare(b, a, kNoJob, kNoJob), kRightQueueFirst);
  EXPECT_EQ(Compare(a, a, kNoJob, kNoJob), kQueuesEqual);
}

TEST(QueueOrder, VictimsLowerTheDominantShare) {
  QueueAttributes l = GpuQueue("l", 0, 0, 4, 4, 10);
  QueueAttributes r = GpuQueue("r", 0, 0, 4, 4, 10);
  const std::vector<ResourceQuantities> l_victims = {ResourceQuantities::Gpu(1),
                                                     ResourceQuantities::Gpu(2)};
  const std::vector<ResourceQuantities> r_victims = {ResourceQuantities::Gpu(1)};
  // Victim mode: no job. After its victims l holds 1/4, r 3/4: l compares first, so in the
  // inverted victim order r's victims come first.
  const int result = CompareQueues({&l, nullptr, l_victims}, {&r, nullptr, r_victims}, {});
  EXPECT_EQ(result, kLeftQueueFirst);
  EXPECT_TRUE(QueueLess(result, /*victim_mode=*/false));
  EXPECT_FALSE(QueueLess(result, /*victim_mode=*/true));
  // Equal queues (same UID) are "less" in victim mode: KAI negates the boolean, not the sign.
  EXPECT_TRUE(QueueLess(kQueuesEqual, /*victim_mode=*/true));
}

TEST(QueueOrder, UnlimitedAllocatableUsesClusterTotal) {
  QueueAttributes l = QueueBuilder("l")
                          .Deserved(ResourceQuantities::Of(kUnlimited, kUnlimited, kUnlimited))
                          .MaxAllowed(ResourceQuantities::Of(kUnlimited, kUnlimited, kUnlimited))
                          .Allocated(ResourceQuantities::Gpu(2));
  QueueAttributes r = l;
  r.uid = "r";
  r.share(kGpu).allocated = 1;
  const ResourceQuantities total = ResourceQuantities::Of(0, 0, 8);
  EXPECT_EQ(Compare(l, r, kNoJob, kNoJob, total), kRightQueueFirst);
}

}  // namespace
}  // namespace kai::proportion
