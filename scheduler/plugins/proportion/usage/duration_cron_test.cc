#include <gtest/gtest.h>

#include "kube/base/time.h"
#include "scheduler/plugins/proportion/usage/cron.h"
#include "scheduler/plugins/proportion/usage/duration.h"

namespace kai::proportion {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(PrometheusDuration, ParseAndFormat) {
  EXPECT_EQ(*ParsePrometheusDuration("1w"), hours(24 * 7));
  EXPECT_EQ(*ParsePrometheusDuration("1d12h"), hours(36));
  EXPECT_EQ(*ParsePrometheusDuration("90s"), seconds(90));
  EXPECT_EQ(*ParsePrometheusDuration("1m30s500ms"), milliseconds(90500));
  EXPECT_EQ(*ParsePrometheusDuration("0"), Duration(0));
  EXPECT_EQ(*ParsePrometheusDuration("1y"), hours(24 * 365));
  EXPECT_FALSE(ParsePrometheusDuration("").ok());
  EXPECT_FALSE(ParsePrometheusDuration("1h1d").ok());  // units out of order
  EXPECT_FALSE(ParsePrometheusDuration("1.5h").ok());
  EXPECT_FALSE(ParsePrometheusDuration("5x").ok());

  EXPECT_EQ(FormatPrometheusDuration(hours(24 * 7)), "1w");
  EXPECT_EQ(FormatPrometheusDuration(hours(24 * 8)), "8d");  // weeks only when exact
  EXPECT_EQ(FormatPrometheusDuration(minutes(1)), "1m");
  EXPECT_EQ(FormatPrometheusDuration(seconds(3723)), "1h2m3s");
  EXPECT_EQ(FormatPrometheusDuration(Duration(0)), "0s");
}

TEST(ConfigDuration, AcceptsBothForms) {
  EXPECT_EQ(*ParseConfigDuration("168h"), hours(168));
  EXPECT_EQ(*ParseConfigDuration("7d"), hours(168));
  EXPECT_EQ(*ParseConfigDuration("1.5h"), minutes(90));
  EXPECT_FALSE(ParseConfigDuration("soon").ok());
}

WallTime At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

TEST(Cron, NextForCommonExpressions) {
  auto daily = CronExpression::Parse("0 0 * * *");
  ASSERT_TRUE(daily.ok()) << daily.status();
  EXPECT_EQ(daily->Next(At("2026-03-07T10:15:00Z")), At("2026-03-08T00:00:00Z"));
  EXPECT_EQ(daily->Next(At("2026-03-08T00:00:00Z")), At("2026-03-09T00:00:00Z"));  // strictly after

  auto every15 = CronExpression::Parse("*/15 * * * *");
  ASSERT_TRUE(every15.ok());
  EXPECT_EQ(every15->Next(At("2026-03-07T10:16:30Z")), At("2026-03-07T10:30:00Z"));

  auto monday = CronExpression::Parse("30 9 * * MON");
  ASSERT_TRUE(monday.ok());
  EXPECT_EQ(monday->Next(At("2026-03-07T00:00:00Z")), At("2026-03-09T09:30:00Z"));  // Sat -> Mon

  auto sunday7 = CronExpression::Parse("0 0 * * 7");
  ASSERT_TRUE(sunday7.ok());
  EXPECT_EQ(sunday7->Next(At("2026-03-07T00:00:00Z")), At("2026-03-08T00:00:00Z"));

  auto monthly = CronExpression::Parse("@monthly");
  ASSERT_TRUE(monthly.ok());
  EXPECT_EQ(monthly->Next(At("2026-12-15T00:00:00Z")), At("2027-01-01T00:00:00Z"));

  auto feb29 = CronExpression::Parse("0 0 29 2 *");
  ASSERT_TRUE(feb29.ok());
  EXPECT_EQ(feb29->Next(At("2026-03-01T00:00:00Z")), At("2028-02-29T00:00:00Z"));

  // Both day fields restricted: either matches (1st of the month or any Friday).
  auto either = CronExpression::Parse("0 12 1 * FRI");
  ASSERT_TRUE(either.ok());
  EXPECT_EQ(either->Next(At("2026-03-02T00:00:00Z")), At("2026-03-06T12:00:00Z"));

  auto seconds_field = CronExpression::Parse("30 0 0 * * * *");
  ASSERT_TRUE(seconds_field.ok());
  EXPECT_EQ(seconds_field->Next(At("2026-03-07T10:00:00Z")), At("2026-03-08T00:00:30Z"));

  auto with_year = CronExpression::Parse("0 0 1 1 * 2030");  // six fields: year appended
  ASSERT_TRUE(with_year.ok());
  EXPECT_EQ(with_year->Next(At("2026-03-07T00:00:00Z")), At("2030-01-01T00:00:00Z"));
}

TEST(Cron, Errors) {
  EXPECT_FALSE(CronExpression::Parse("* * *").ok());
  EXPECT_FALSE(CronExpression::Parse("60 * * * *").ok());
  EXPECT_FALSE(CronExpression::Parse("* * 0 * *").ok());
  EXPECT_FALSE(CronExpression::Parse("* * L * *").ok());
  EXPECT_FALSE(CronExpression::Parse("@sometimes").ok());
  EXPECT_FALSE(CronExpression::Parse("*/0 * * * *").ok());
  EXPECT_FALSE(CronExpression::Parse("5-2 * * * *").ok());
  // Valid, but with no occurrence left.
  auto past = CronExpression::Parse("0 0 1 1 * 2000");
  ASSERT_TRUE(past.ok());
  EXPECT_FALSE(past->Next(At("2026-01-01T00:00:00Z")).has_value());
}

TEST(Cron, LatestBefore) {
  auto daily = CronExpression::Parse("0 0 * * *");
  ASSERT_TRUE(daily.ok());
  EXPECT_EQ(daily->LatestBefore(At("2026-03-07T10:15:00Z")), At("2026-03-07T00:00:00Z"));
  // An occurrence exactly at now belongs to the previous window's end.
  EXPECT_EQ(daily->LatestBefore(At("2026-03-07T00:00:00Z")), At("2026-03-06T00:00:00Z"));
  auto finite = CronExpression::Parse("0 0 1 1 * 2030");
  ASSERT_TRUE(finite.ok());
  EXPECT_FALSE(finite->LatestBefore(At("2026-03-07T00:00:00Z")).has_value());
}

}  // namespace
}  // namespace kai::proportion
