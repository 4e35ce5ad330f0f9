// Cron expressions for the usage database's "cron" window type (KAI uses
// github.com/aptible/supercronic/cronexpr). Evaluated in UTC.
//
// Accepted: 5 fields "min hour day-of-month month day-of-week", 6 fields (a year appended, as
// cronexpr reads them) and 7 fields "sec min hour dom month dow year"; per field "*", "?", values,
// ranges "a-b", steps "*/n", "a/n", "a-b/n" and lists; month and weekday names (JAN, MON); weekday
// 7 = Sunday; and the macros @yearly/@annually, @monthly, @weekly, @daily/@midnight, @hourly.
// When both day fields are restricted, a day matching either one matches (Vixie cron). The
// Quartz extensions L, W and # are rejected.
#pragma once

#include <bitset>
#include <optional>
#include <string_view>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::proportion {

class CronExpression {
 public:
  static StatusOr<CronExpression> Parse(std::string_view expression);

  // The first matching instant strictly after `t` (whole seconds), or nullopt when there is none
  // before year 2200.
  std::optional<WallTime> Next(WallTime t) const;

  // The most recent occurrence strictly before `now`, searched the way KAI does: from now minus
  // the distance to the third next occurrence (which is returned when no occurrence lies between
  // it and now). nullopt when the expression has fewer than three future occurrences.
  std::optional<WallTime> LatestBefore(WallTime now) const;

 private:
  bool MatchesDay(unsigned day, unsigned weekday) const;

  std::bitset<60> seconds_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1..31
  std::bitset<13> months_;         // 1..12
  std::bitset<7> days_of_week_;    // 0 = Sunday
  std::bitset<231> years_;         // 1970..2200
  bool dom_restricted_ = false;
  bool dow_restricted_ = false;
};

}  // namespace kai::proportion
