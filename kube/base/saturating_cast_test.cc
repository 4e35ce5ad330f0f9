#include "kube/base/saturating_cast.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kai {
namespace {

TEST(SaturatingCastTest, StaysInRange) {
  EXPECT_EQ(SaturatingCast<int64_t>(0x1p63), INT64_MAX);
  EXPECT_EQ(SaturatingCast<int64_t>(-0x1p64), INT64_MIN);
  EXPECT_EQ(SaturatingCast<int64_t>(-0x1p63), INT64_MIN);
  EXPECT_EQ(SaturatingCast<int64_t>(12.9), 12);
  EXPECT_EQ(SaturatingCast<int64_t>(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(SaturatingCast<int>(1e12), INT32_MAX);
  EXPECT_EQ(SaturatingCast<int>(-1e12), INT32_MIN);
  EXPECT_EQ(SaturatingCast<int>(-7.5), -7);
}

}  // namespace
}  // namespace kai
