#include "scheduler/framework/gpu_group_name.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace kai::scheduler {
namespace {

const auto kNone = [](const std::string&) { return false; };

TEST(GpuGroupNameTest, SameInputsSameNameAndEveryInputCounts) {
  const std::string a = DeriveGpuGroupName(7, "pod-uid-1", "node-1", 0, kNone);
  EXPECT_EQ(a, DeriveGpuGroupName(7, "pod-uid-1", "node-1", 0, kNone));
  EXPECT_TRUE(std::regex_match(
      a, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << a;
  std::set<std::string> names{a};
  names.insert(DeriveGpuGroupName(8, "pod-uid-1", "node-1", 0, kNone));
  names.insert(DeriveGpuGroupName(7, "pod-uid-2", "node-1", 0, kNone));
  names.insert(DeriveGpuGroupName(7, "pod-uid-1", "node-2", 0, kNone));
  names.insert(DeriveGpuGroupName(7, "pod-uid-1", "node-1", 1, kNone));
  // The pod and node are not just concatenated.
  names.insert(DeriveGpuGroupName(7, "pod-uid-1n", "ode-1", 0, kNone));
  EXPECT_EQ(names.size(), 6u);
}

TEST(GpuGroupNameTest, TakenNamesAreSkippedInAFixedOrder) {
  const std::string first = DeriveGpuGroupName(7, "p", "n", 0, kNone);
  auto taken_first = [&](const std::string& s) { return s == first; };
  const std::string second = DeriveGpuGroupName(7, "p", "n", 0, taken_first);
  EXPECT_NE(second, first);
  EXPECT_EQ(second, DeriveGpuGroupName(7, "p", "n", 0, taken_first));
  // The second candidate is not another position's first one.
  EXPECT_NE(second, DeriveGpuGroupName(7, "p", "n", 1, kNone));
  std::set<std::string> seen;
  auto taken_seen = [&](const std::string& s) { return seen.count(s) > 0; };
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(seen.insert(DeriveGpuGroupName(7, "p", "n", 0, taken_seen)).second);
  }
}

}  // namespace
}  // namespace kai::scheduler
