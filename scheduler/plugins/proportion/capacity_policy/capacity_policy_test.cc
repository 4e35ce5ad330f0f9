#include "scheduler/plugins/proportion/capacity_policy/capacity_policy.h"

#include <gtest/gtest.h>

#include "scheduler/plugins/proportion/testing/queue_builder.h"

namespace kai::proportion {
namespace {

using testing::MakeTable;
using testing::QueueBuilder;

class CapacityPolicyTest : public ::testing::Test {
 protected:
  // department "dep" (GPU limit 6) with leaf "team" (GPU limit 4, quota 2, CPU limit 8 cores,
  // memory limit 10 GB).
  QueueTable t_ = MakeTable({QueueBuilder("dep")
                                 .Name("Department")
                                 .Deserved(ResourceQuantities::Of(kUnlimited, kUnlimited, 3))
                                 .MaxAllowed(ResourceQuantities::Of(kUnlimited, kUnlimited, 6))
                                 .Allocated(ResourceQuantities::Of(0, 0, 5))
                                 .AllocatedNonPreemptible(ResourceQuantities::Of(0, 0, 2)),
                             QueueBuilder("team")
                                 .Parent("dep")
                                 .Name("Team")
                                 .Deserved(ResourceQuantities::Of(4000, kUnlimited, 2))
                                 .MaxAllowed(ResourceQuantities::Of(8000, 10e9, 4))
                                 .Allocated(ResourceQuantities::Of(2000, 4e9, 3))
                                 .AllocatedNonPreemptible(ResourceQuantities::Of(1000, 0, 1))});
  QueueIndex team_ = t_.Find("team");
  CapacityPolicy policy_{&t_};
};

TEST_F(CapacityPolicyTest, WithinLimits) {
  SchedulableResult r = policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Gpu(1));
  EXPECT_TRUE(r.schedulable);
  EXPECT_EQ(r.reason, UnschedulableReason::kNone);
  EXPECT_FALSE(r.details.has_value());
}

TEST_F(CapacityPolicyTest, OverLimitAtLeaf) {
  SchedulableResult r = policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Gpu(2));
  ASSERT_FALSE(r.schedulable);
  EXPECT_EQ(r.reason, UnschedulableReason::kOverLimit);
  EXPECT_EQ(UnschedulableReasonString(r.reason), "OverLimit");
  EXPECT_EQ(r.message,
            "Team quota has reached the allowable limit of GPUs. Limit is 4 GPUs, currently 3 "
            "GPUs allocated and workload requested 2 GPUs");
  ASSERT_TRUE(r.details.has_value());
  EXPECT_EQ(r.details->queue_uid, "team");
  EXPECT_EQ(r.details->queue_limits, ResourceQuantities::Of(8000, 10e9, 4));
  EXPECT_EQ(r.details->podgroup_requested, ResourceQuantities::Gpu(2));
  // Preemptible: nothing non-preemptible requested.
  EXPECT_EQ(r.details->podgroup_requested_non_preemptible, ResourceQuantities{});
}

TEST_F(CapacityPolicyTest, OverLimitAtAncestor) {
  t_[team_].share(ResourceName::kGpu).max_allowed = kUnlimited;
  SchedulableResult r = policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Gpu(2));
  ASSERT_FALSE(r.schedulable);
  EXPECT_EQ(r.details->queue_uid, "dep");
  EXPECT_EQ(r.message,
            "Department quota has reached the allowable limit of GPUs. Limit is 6 GPUs, currently "
            "5 GPUs allocated and workload requested 2 GPUs");
}

TEST_F(CapacityPolicyTest, CpuAndMemoryMessagesAndResourceOrder) {
  SchedulableResult cpu = policy_.IsJobOverQueueCapacity(
      team_, true, ResourceQuantities::Of(6500, 7e9, 5));  // cpu is checked first
  EXPECT_EQ(cpu.message,
            "Team quota has reached the allowable limit of CPU cores. Limit is 8 cores, currently "
            "2 cores allocated and workload requested 6.5 cores");
  SchedulableResult mem =
      policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Of(0, 6.5e9, 0));
  EXPECT_EQ(mem.message,
            "Team quota has reached the allowable limit of memory. Limit is 10 GB, currently 4 GB "
            "allocated and workload requested 6.5 GB");
}

TEST_F(CapacityPolicyTest, LimitZeroBlocksAnyRequestButNotZeroRequests) {
  t_[team_].share(ResourceName::kMemory).max_allowed = 0;
  t_[team_].share(ResourceName::kMemory).allocated = 0;
  EXPECT_FALSE(
      policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Of(0, 1, 0)).schedulable);
  EXPECT_TRUE(
      policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Of(0, 0, 1)).schedulable);
}

TEST_F(CapacityPolicyTest, ToleratesFloatNoiseAtTheLimit) {
  t_[team_].share(ResourceName::kGpu).allocated = 3.7;
  t_[team_].share(ResourceName::kGpu).max_allowed = 4;
  EXPECT_TRUE(
      policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Gpu(0.3)).schedulable);
}

TEST_F(CapacityPolicyTest, NonPreemptibleOverQuota) {
  // Keep the limits out of the way.
  t_[team_].share(ResourceName::kGpu).allocated = 1;
  t_[t_.Find("dep")].share(ResourceName::kGpu).max_allowed = kUnlimited;
  SchedulableResult r = policy_.IsJobOverQueueCapacity(team_, false, ResourceQuantities::Gpu(1.5));
  ASSERT_FALSE(r.schedulable);
  EXPECT_EQ(r.reason, UnschedulableReason::kNonPreemptibleOverQuota);
  EXPECT_EQ(UnschedulableReasonString(r.reason), "NonPreemptibleOverQuota");
  EXPECT_EQ(r.message,
            "Non-preemptible workload is over quota. Workload requested 1.5 GPUs, but Team quota "
            "is 2 GPUs, while 1 GPUs are already allocated for non-preemptible pods. Use a "
            "preemptible workload to go over quota.");
  EXPECT_EQ(r.details->podgroup_requested_non_preemptible, ResourceQuantities::Gpu(1.5));
  // The same job preemptible is fine.
  EXPECT_TRUE(policy_.IsJobOverQueueCapacity(team_, true, ResourceQuantities::Gpu(1)).schedulable);
  EXPECT_TRUE(
      policy_.IsNonPreemptibleJobOverQuota(team_, true, ResourceQuantities::Gpu(9)).schedulable);
}

TEST_F(CapacityPolicyTest, NonPreemptibleOverQuotaAtAncestorAndCpu) {
  // Leaf GPU quota unlimited: the department's quota of 3 (2 used) decides.
  t_[team_].share(ResourceName::kGpu).deserved = kUnlimited;
  SchedulableResult r =
      policy_.IsNonPreemptibleJobOverQuota(team_, false, ResourceQuantities::Gpu(1.5));
  ASSERT_FALSE(r.schedulable);
  EXPECT_EQ(r.details->queue_uid, "dep");

  SchedulableResult cpu =
      policy_.IsNonPreemptibleJobOverQuota(team_, false, ResourceQuantities::Of(3500, 0, 0));
  EXPECT_EQ(cpu.message,
            "Non-preemptible workload is over quota. Workload requested 3.5 CPU cores, but Team "
            "quota is 4 cores, while 1 cores are already allocated for non-preemptible pods. Use "
            "a preemptible workload to go over quota.");
}

TEST_F(CapacityPolicyTest, OverLimitIsReportedBeforeQuota) {
  SchedulableResult r =
      policy_.IsTaskAllocationOnNodeOverCapacity(team_, false, ResourceQuantities::Gpu(2));
  EXPECT_EQ(r.reason, UnschedulableReason::kOverLimit);
}

TEST(NonPreemptibleMessage, MemoryWording) {
  EXPECT_EQ(NonPreemptibleOverQuotaMessage("q", ResourceName::kMemory, 2e9, 1e9,
                                           ResourceQuantities::Of(0, 1.5e9, 0)),
            "Non-preemptible workload is over quota. Workload requested 1.5 GB memory, but q quota "
            "is 2 GB, while 1 GB are already allocated for non-preemptible pods. Use a preemptible "
            "workload to go over quota.");
}

}  // namespace
}  // namespace kai::proportion
