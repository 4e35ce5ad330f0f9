#include "kube/base/time.h"

#include <gtest/gtest.h>

namespace kai {
namespace {

using std::chrono::seconds;

TEST(TimeTest, Rfc3339RoundTrip) {
  auto t = ParseRfc3339("2026-11-22T04:21:00Z");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(FormatRfc3339(*t), "2026-11-22T04:21:00Z");
  EXPECT_EQ(FormatRfc3339Micro(*t + std::chrono::microseconds(1500)),
            "2026-11-22T04:21:00.001500Z");
}

TEST(TimeTest, Rfc3339OffsetsAndFractions) {
  auto a = ParseRfc3339("2026-01-01T02:00:00+02:00");
  auto b = ParseRfc3339("2026-01-01T00:00:00.000000Z");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  auto c = ParseRfc3339("1970-01-01T00:00:01.5Z");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->time_since_epoch(), std::chrono::milliseconds(1500));
  EXPECT_EQ(ParseRfc3339("2024-02-29T12:00:00Z")->time_since_epoch(), seconds(1709208000));
}

TEST(TimeTest, Rfc3339Invalid) {
  for (const char* bad : {"", "2026-13-01T00:00:00Z", "2026-01-01", "2026-01-01T00:00:00",
                          "2026-01-01T00:00:00Zjunk", "2026-01-01T00:00:00.Z", "yesterday"}) {
    EXPECT_FALSE(ParseRfc3339(bad).ok()) << bad;
  }
}

TEST(TimeTest, GoDurations) {
  EXPECT_EQ(*ParseGoDuration("60s"), seconds(60));
  EXPECT_EQ(*ParseGoDuration("1m30s"), seconds(90));
  EXPECT_EQ(*ParseGoDuration("168h"), std::chrono::hours(168));
  EXPECT_EQ(*ParseGoDuration("-1s"), seconds(-1));
  EXPECT_EQ(*ParseGoDuration("0"), Duration(0));
  EXPECT_EQ(*ParseGoDuration("1.5s"), std::chrono::milliseconds(1500));
  EXPECT_EQ(*ParseGoDuration("100ms"), std::chrono::milliseconds(100));
  for (const char* bad : {"", "s", "10", "1x", "--1s", "1.s5"}) {
    EXPECT_FALSE(ParseGoDuration(bad).ok()) << bad;
  }
  EXPECT_EQ(FormatGoDuration(seconds(90)), "1m30s");
  EXPECT_EQ(FormatGoDuration(std::chrono::hours(168)), "168h0m0s");
  EXPECT_EQ(FormatGoDuration(std::chrono::milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatGoDuration(std::chrono::milliseconds(100)), "100ms");
  EXPECT_EQ(FormatGoDuration(Duration(0)), "0s");
  EXPECT_EQ(FormatGoDuration(seconds(-5)), "-5s");
}

}  // namespace
}  // namespace kai
