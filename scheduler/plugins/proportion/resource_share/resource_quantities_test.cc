#include "scheduler/plugins/proportion/resource_share/resource_quantities.h"

#include <gtest/gtest.h>

#include "scheduler/plugins/proportion/resource_share/resource_share.h"

namespace kai::proportion {
namespace {

TEST(CompareQuantities, UnlimitedIsLargest) {
  EXPECT_EQ(CompareQuantities(kUnlimited, kUnlimited), 0);
  EXPECT_EQ(CompareQuantities(kUnlimited, 1e18), 1);
  EXPECT_EQ(CompareQuantities(1e18, kUnlimited), -1);
  EXPECT_EQ(CompareQuantities(0, kUnlimited), -1);
}

TEST(CompareQuantities, ToleratesFloatNoise) {
  EXPECT_EQ(CompareQuantities(0.1 + 0.2, 0.3), 0);
  EXPECT_EQ(CompareQuantities(1, 2), -1);
  EXPECT_EQ(CompareQuantities(2, 1), 1);
  EXPECT_EQ(CompareQuantities(1 + 1e-10, 1), 0);
  EXPECT_EQ(CompareQuantities(1 + 1e-8, 1), 1);
  EXPECT_TRUE(LessOrEqualWithTolerance(0.1 + 0.2, 0.3));
  EXPECT_FALSE(LessOrEqualWithTolerance(0.31, 0.3));
}

TEST(ResourceQuantities, OrderIsCpuMemoryGpu) {
  ResourceQuantities q = ResourceQuantities::Of(1000, 2e9, 3);
  EXPECT_EQ(q[ResourceName::kCpu], 1000);
  EXPECT_EQ(q[ResourceName::kMemory], 2e9);
  EXPECT_EQ(q[ResourceName::kGpu], 3);
  EXPECT_EQ(kAllResources[0], ResourceName::kCpu);
  EXPECT_EQ(kAllResources[2], ResourceName::kGpu);
  EXPECT_EQ(ResourceNameString(ResourceName::kMemory), "Memory");
}

TEST(ResourceQuantities, AddSub) {
  ResourceQuantities a = ResourceQuantities::Of(1, 2, 3);
  a.Add(ResourceQuantities::Of(10, 20, 30));
  EXPECT_EQ(a, ResourceQuantities::Of(11, 22, 33));
  a.Sub(ResourceQuantities::Of(1, 2, 3));
  EXPECT_EQ(a, ResourceQuantities::Of(10, 20, 30));
  EXPECT_EQ(a + a, ResourceQuantities::Of(20, 40, 60));
  EXPECT_EQ(a - a, ResourceQuantities{});
}

TEST(ResourceQuantities, LessIsStrictInEveryResource) {
  EXPECT_TRUE(ResourceQuantities::Of(1, 1, 1).Less(ResourceQuantities::Of(2, 2, 2)));
  EXPECT_FALSE(ResourceQuantities::Of(1, 2, 1).Less(ResourceQuantities::Of(2, 2, 2)));
  // No unlimited handling in Less: -1 is just a number.
  EXPECT_FALSE(ResourceQuantities::Of(1, 1, 1).Less(ResourceQuantities::Of(2, 2, kUnlimited)));
}

TEST(ResourceQuantities, LessEqualHandlesUnlimited) {
  EXPECT_TRUE(ResourceQuantities::Of(5, 5, 5).LessEqual(ResourceQuantities::Of(5, 5, 5)));
  EXPECT_TRUE(
      ResourceQuantities::Of(5, 5, 500).LessEqual(ResourceQuantities::Of(5, 5, kUnlimited)));
  EXPECT_FALSE(ResourceQuantities::Of(5, 6, 5).LessEqual(ResourceQuantities::Of(5, 5, 5)));
  EXPECT_FALSE(ResourceQuantities::Of(kUnlimited, 0, 0).LessEqual(ResourceQuantities::Of(5, 5, 5)));
}

TEST(ResourceQuantities, LessInAtLeastOneResource) {
  EXPECT_TRUE(
      ResourceQuantities::Of(1, 5, 5).LessInAtLeastOneResource(ResourceQuantities::Of(2, 5, 5)));
  EXPECT_FALSE(
      ResourceQuantities::Of(2, 5, 5).LessInAtLeastOneResource(ResourceQuantities::Of(2, 5, 5)));
  EXPECT_TRUE(
      ResourceQuantities::Of(1, 9, 9).LessInAtLeastOneResource(ResourceQuantities::Of(2, 5, 5)));
}

TEST(ResourceQuantities, PositiveMask) {
  EXPECT_EQ(ResourceQuantities::Of(0, 0, 0).Positive(), 0);
  EXPECT_EQ(ResourceQuantities::Of(1, 0, 2).Positive(),
            Bit(ResourceName::kCpu) | Bit(ResourceName::kGpu));
}

TEST(ResourceShare, RequestableShare) {
  ResourceShare s;
  s.request = 5;
  s.max_allowed = kUnlimited;
  EXPECT_EQ(s.RequestableShare(), 5);
  s.max_allowed = 3;
  EXPECT_EQ(s.RequestableShare(), 3);
  s.max_allowed = 0;  // limit 0 caps at nothing
  EXPECT_EQ(s.RequestableShare(), 0);
}

TEST(ResourceShare, AllocatableShare) {
  ResourceShare s;
  s.deserved = 2;
  s.fair_share = 4;
  s.max_allowed = kUnlimited;
  EXPECT_EQ(s.AllocatableShare(), 4);
  s.fair_share = 1;
  EXPECT_EQ(s.AllocatableShare(), 2);
  s.max_allowed = 1.5;
  EXPECT_EQ(s.AllocatableShare(), 1.5);
  s.deserved = kUnlimited;
  EXPECT_EQ(s.AllocatableShare(), 1.5);
  s.max_allowed = kUnlimited;
  EXPECT_EQ(s.AllocatableShare(), kUnlimited);
}

}  // namespace
}  // namespace kai::proportion
