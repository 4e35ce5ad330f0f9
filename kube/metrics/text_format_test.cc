#include "kube/metrics/text_format.h"

#include <gtest/gtest.h>

#include <limits>

namespace kai::metrics {
namespace {

// Expected strings are what Go's strconv.FormatFloat(v, 'g', -1, 64) prints.
TEST(FormatFloatTest, MatchesGoShortestG) {
  EXPECT_EQ(FormatFloat(0), "0");
  EXPECT_EQ(FormatFloat(1), "1");
  EXPECT_EQ(FormatFloat(-1), "-1");
  EXPECT_EQ(FormatFloat(0.005), "0.005");
  EXPECT_EQ(FormatFloat(2.5), "2.5");
  EXPECT_EQ(FormatFloat(10), "10");
  EXPECT_EQ(FormatFloat(123456), "123456");
  EXPECT_EQ(FormatFloat(1e6), "1e+06");
  EXPECT_EQ(FormatFloat(1234567), "1.234567e+06");
  EXPECT_EQ(FormatFloat(1e-8), "1e-08");
  EXPECT_EQ(FormatFloat(0.0001), "0.0001");
  EXPECT_EQ(FormatFloat(0.00001), "1e-05");
  EXPECT_EQ(FormatFloat(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatFloat(1e100), "1e+100");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatFloat(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(EscapeTest, LabelValuesEscapeBackslashQuoteNewline) {
  std::string out;
  AppendEscapedLabelValue(&out, "a\\b\"c\nd");
  EXPECT_EQ(out, "a\\\\b\\\"c\\nd");
}

TEST(EscapeTest, HelpEscapesBackslashAndNewlineOnly) {
  std::string out;
  AppendEscapedHelp(&out, "a\\b\"c\nd");
  EXPECT_EQ(out, "a\\\\b\"c\\nd");
}

TEST(NamesTest, Validation) {
  EXPECT_TRUE(IsValidMetricName("workqueue_depth"));
  EXPECT_TRUE(IsValidMetricName("a:b_c9"));
  EXPECT_FALSE(IsValidMetricName("9abc"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_TRUE(IsValidLabelName("name"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
}

}  // namespace
}  // namespace kai::metrics
