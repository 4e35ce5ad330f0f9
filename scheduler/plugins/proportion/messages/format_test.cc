#include "scheduler/plugins/proportion/messages/format.h"

#include <gtest/gtest.h>

namespace kai::proportion {
namespace {

TEST(GoFormatFloat, MatchesGoPercentV) {
  EXPECT_EQ(GoFormatFloat(0), "0");
  EXPECT_EQ(GoFormatFloat(2), "2");
  EXPECT_EQ(GoFormatFloat(0.5), "0.5");
  EXPECT_EQ(GoFormatFloat(-1), "-1");
  EXPECT_EQ(GoFormatFloat(100000), "100000");
  EXPECT_EQ(GoFormatFloat(1000000), "1e+06");
  EXPECT_EQ(GoFormatFloat(1234567), "1.234567e+06");
  EXPECT_EQ(GoFormatFloat(0.0001), "0.0001");
  EXPECT_EQ(GoFormatFloat(0.00001), "1e-05");
  EXPECT_EQ(GoFormatFloat(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(GoFormatFloat(2.5e-7), "2.5e-07");
  EXPECT_EQ(GoFormatFloat(1e21), "1e+21");
}

TEST(FtoaWithDigits, TruncatesAndStrips) {
  EXPECT_EQ(FtoaWithDigits(1, 3), "1");
  EXPECT_EQ(FtoaWithDigits(1.5, 3), "1.5");
  EXPECT_EQ(FtoaWithDigits(1.23456, 3), "1.234");  // truncated, not rounded
  EXPECT_EQ(FtoaWithDigits(0.0004, 3), "0");
  EXPECT_EQ(FtoaWithDigits(100, 3), "100");
  EXPECT_EQ(FtoaWithDigits(2.9999999, 3), "3");  // the 6-decimal rounding comes first
  EXPECT_EQ(FtoaWithDigits(1.5, 0), "1");
}

TEST(HumanizeResource, UnitsAndUnlimited) {
  EXPECT_EQ(HumanizeResource(kUnlimited, 1), "Unlimited");
  EXPECT_EQ(HumanizeResource(1500, kMilliCpuToCores), "1.5");
  EXPECT_EQ(HumanizeResource(2e9, kMemoryToGb), "2");
  EXPECT_EQ(HumanizeResource(1.25e9, kMemoryToGb), "1.25");
  EXPECT_EQ(HumanizeResource(3, 1), "3");
}

TEST(ResourceRequirementsString, GoesThroughKaiGpuRequirement) {
  EXPECT_EQ(ResourceRequirementsString(ResourceQuantities::Of(2000, 4e9, 3)),
            "GPU: 3, CPU: 2 (cores), memory: 4 (GB)");
  // Whole devices are truncated, fractions below 1 rounded to 2 decimals, -1 shows as 0.
  EXPECT_EQ(ResourceRequirementsString(ResourceQuantities::Of(0, 0, 2.5)),
            "GPU: 2, CPU: 0 (cores), memory: 0 (GB)");
  EXPECT_EQ(ResourceRequirementsString(ResourceQuantities::Of(0, 0, 0.333)),
            "GPU: 0.33, CPU: 0 (cores), memory: 0 (GB)");
  EXPECT_EQ(ResourceRequirementsString(ResourceQuantities::Of(kUnlimited, kUnlimited, kUnlimited)),
            "GPU: 0, CPU: Unlimited (cores), memory: Unlimited (GB)");
}

TEST(ReclaimMessages, MatchKaiText) {
  EXPECT_EQ(ReclaimQueueDetailsMessage("team-a", ResourceQuantities::Of(1000, 1e9, 2),
                                       ResourceQuantities::Of(0, 0, 1),
                                       ResourceQuantities::Of(500, 0, 1), 100),
            "team-a uses <GPU: 2, CPU: 1 (cores), memory: 1 (GB)> with a quota of <GPU: 1, CPU: 0 "
            "(cores), memory: 0 (GB)>, fair-share of <GPU: 1, CPU: 0.5 (cores), memory: 0 (GB)> "
            "and queue priority of <100>.");
  EXPECT_EQ(ReclaimMessage("ns", "pod-0", "ns2", "job"),
            "Pod ns/pod-0 was preempted by workload ns2/job.");
}

}  // namespace
}  // namespace kai::proportion
