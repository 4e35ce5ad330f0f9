#include "kube/base/random.h"

#include <gtest/gtest.h>

#include <regex>

namespace kai {
namespace {

TEST(RandomTest, SeededIsReproducible) {
  SeededRandom a(42), b(42);
  EXPECT_EQ(a.AlphaNumeric(16), b.AlphaNumeric(16));
  EXPECT_EQ(a.Uuid(), b.Uuid());
}

TEST(RandomTest, Formats) {
  SeededRandom r(7);
  EXPECT_TRUE(std::regex_match(r.AlphaNumeric(5), std::regex("[a-z0-9]{5}")));
  EXPECT_TRUE(std::regex_match(
      r.Uuid(), std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  for (int i = 0; i < 1000; ++i) {
    const double d = r.UniformDouble();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    ASSERT_LT(r.Uniform(3), 3u);
  }
}

}  // namespace
}  // namespace kai
