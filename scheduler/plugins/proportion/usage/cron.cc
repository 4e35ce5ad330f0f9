#include "scheduler/plugins/proportion/usage/cron.h"

#include <array>
#include <cctype>
#include <chrono>
#include <string>
#include <vector>

#include "kube/base/strings.h"

namespace kai::proportion {
namespace {

constexpr int kMinYear = 1970;
constexpr int kMaxYear = 2200;

constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 7> kDayNames = {"sun", "mon", "tue", "wed",
                                                       "thu", "fri", "sat"};

struct FieldSpec {
  std::string_view name;
  int min;
  int max;
  const std::string_view* names = nullptr;  // names[i] is value names_base + i
  int names_base = 0;
  size_t names_count = 0;
};

Status FieldError(const FieldSpec& f, std::string_view text, std::string_view why) {
  return InvalidArgumentError("cron " + std::string(f.name) + " field \"" + std::string(text) +
                              "\": " + std::string(why));
}

StatusOr<int> ParseValue(const FieldSpec& f, std::string_view token) {
  if (token.empty()) return FieldError(f, token, "empty value");
  if (std::isdigit(static_cast<unsigned char>(token[0]))) {
    int v = 0;
    for (char c : token) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return FieldError(f, token, "not a number");
      v = v * 10 + (c - '0');
      if (v > 100000) return FieldError(f, token, "out of range");
    }
    return v;
  }
  const std::string lower = AsciiToLower(token);
  for (size_t i = 0; i < f.names_count; ++i) {
    if (lower == f.names[i]) return f.names_base + static_cast<int>(i);
  }
  return FieldError(f, token, "unknown name");
}

// Fills `out` (indexed by value - offset) for one field; `restricted` = not "*" / "?".
Status ParseField(const FieldSpec& f, std::string_view text, int offset, std::vector<bool>& out,
                  bool* restricted) {
  *restricted = !(text == "*" || text == "?");
  for (const std::string& part : StrSplit(text, ',')) {
    std::string_view p = part;
    if (p.find_first_of("LW#") != std::string_view::npos) {
      return FieldError(f, text, "L, W and # are not supported");
    }
    int step = 1;
    if (size_t slash = p.find('/'); slash != std::string_view::npos) {
      KAI_ASSIGN_OR_RETURN(step, ParseValue(f, p.substr(slash + 1)));
      if (step <= 0) return FieldError(f, text, "step must be positive");
      p = p.substr(0, slash);
    }
    int lo = f.min;
    int hi = f.max;
    if (p == "*" || p == "?") {
      // whole range
    } else if (size_t dash = p.find('-'); dash != std::string_view::npos) {
      KAI_ASSIGN_OR_RETURN(lo, ParseValue(f, p.substr(0, dash)));
      KAI_ASSIGN_OR_RETURN(hi, ParseValue(f, p.substr(dash + 1)));
    } else {
      KAI_ASSIGN_OR_RETURN(lo, ParseValue(f, p));
      // "a/n" runs from a to the end of the range; a bare value is just itself.
      hi = part.find('/') != std::string::npos ? f.max : lo;
    }
    if (lo < f.min || hi > f.max || lo > hi) return FieldError(f, text, "out of range");
    for (int v = lo; v <= hi; v += step) out[v - offset] = true;
  }
  return Status::OK();
}

template <size_t N>
Status ParseInto(const FieldSpec& f, std::string_view text, int offset, std::bitset<N>& bits,
                 bool* restricted = nullptr) {
  std::vector<bool> values(N, false);
  bool r = false;
  KAI_RETURN_IF_ERROR(ParseField(f, text, offset, values, &r));
  for (size_t i = 0; i < N; ++i) bits[i] = values[i];
  if (restricted != nullptr) *restricted = r;
  return Status::OK();
}

}  // namespace

StatusOr<CronExpression> CronExpression::Parse(std::string_view expression) {
  std::string expr(StripWhitespace(expression));
  const std::string lower = AsciiToLower(expr);
  if (lower == "@yearly" || lower == "@annually")
    expr = "0 0 0 1 1 * *";
  else if (lower == "@monthly")
    expr = "0 0 0 1 * * *";
  else if (lower == "@weekly")
    expr = "0 0 0 * * 0 *";
  else if (lower == "@daily" || lower == "@midnight")
    expr = "0 0 0 * * * *";
  else if (lower == "@hourly")
    expr = "0 0 * * * * *";
  else if (!expr.empty() && expr[0] == '@') {
    return InvalidArgumentError("unknown cron macro \"" + expr + "\"");
  }

  std::vector<std::string> fields;
  for (const std::string& f : StrSplit(expr, ' ')) {
    std::string_view t = StripWhitespace(f);
    if (!t.empty()) fields.emplace_back(t);
  }
  if (fields.size() == 5) {
    fields.insert(fields.begin(), "0");
    fields.push_back("*");
  } else if (fields.size() == 6) {
    fields.insert(fields.begin(), "0");  // cronexpr: a sixth field is the year
  } else if (fields.size() != 7) {
    return InvalidArgumentError("cron expression \"" + std::string(expression) +
                                "\" must have 5, 6 or 7 fields");
  }

  CronExpression c;
  KAI_RETURN_IF_ERROR(ParseInto(FieldSpec{"second", 0, 59}, fields[0], 0, c.seconds_));
  KAI_RETURN_IF_ERROR(ParseInto(FieldSpec{"minute", 0, 59}, fields[1], 0, c.minutes_));
  KAI_RETURN_IF_ERROR(ParseInto(FieldSpec{"hour", 0, 23}, fields[2], 0, c.hours_));
  KAI_RETURN_IF_ERROR(ParseInto(FieldSpec{"day-of-month", 1, 31}, fields[3], 0, c.days_of_month_,
                                &c.dom_restricted_));
  KAI_RETURN_IF_ERROR(
      ParseInto(FieldSpec{"month", 1, 12, kMonthNames.data(), 1, 12}, fields[4], 0, c.months_));
  std::bitset<8> dow;
  KAI_RETURN_IF_ERROR(ParseInto(FieldSpec{"day-of-week", 0, 7, kDayNames.data(), 0, 7}, fields[5],
                                0, dow, &c.dow_restricted_));
  for (int d = 0; d < 7; ++d) c.days_of_week_[d] = dow[d] || (d == 0 && dow[7]);
  KAI_RETURN_IF_ERROR(
      ParseInto(FieldSpec{"year", kMinYear, kMaxYear}, fields[6], kMinYear, c.years_));
  return c;
}

bool CronExpression::MatchesDay(unsigned day, unsigned weekday) const {
  const bool dom = days_of_month_[day];
  const bool dow = days_of_week_[weekday];
  if (dom_restricted_ && dow_restricted_) return dom || dow;
  return dom && dow;
}

std::optional<WallTime> CronExpression::Next(WallTime t) const {
  using namespace std::chrono;
  sys_seconds s = floor<seconds>(t) + seconds(1);
  while (true) {
    const sys_days day = floor<days>(s);
    const year_month_day ymd(day);
    const int year = static_cast<int>(ymd.year());
    if (year > kMaxYear) return std::nullopt;
    if (year < kMinYear || !years_[year - kMinYear]) {
      s = sys_days(year_month_day(ymd.year() + years(1), January, 1d));
      continue;
    }
    const unsigned month = static_cast<unsigned>(ymd.month());
    if (!months_[month]) {
      const year_month next = year_month(ymd.year(), ymd.month()) + months(1);
      s = sys_days(next / 1d);
      continue;
    }
    const unsigned wd = std::chrono::weekday(day).c_encoding();
    if (!MatchesDay(static_cast<unsigned>(ymd.day()), wd)) {
      s = day + days(1);
      continue;
    }
    const hh_mm_ss<seconds> tod(s - day);
    const int h = static_cast<int>(tod.hours().count());
    const int m = static_cast<int>(tod.minutes().count());
    const int sec = static_cast<int>(tod.seconds().count());
    if (!hours_[h]) {
      s = day + hours(h + 1);
      continue;
    }
    if (!minutes_[m]) {
      s = day + hours(h) + minutes(m + 1);
      continue;
    }
    if (!seconds_[sec]) {
      s += seconds(1);
      continue;
    }
    return WallTime(s);
  }
}

std::optional<WallTime> CronExpression::LatestBefore(WallTime now) const {
  std::optional<WallTime> first = Next(now);
  if (!first) return std::nullopt;
  std::optional<WallTime> second = Next(*first);
  if (!second) return std::nullopt;
  std::optional<WallTime> third = Next(*second);
  if (!third) return std::nullopt;
  const WallTime start = now - (*third - now);
  WallTime previous = start;  // KAI falls back to the search start
  std::optional<WallTime> current = Next(start);
  while (current && *current < now) {
    previous = *current;
    current = Next(*current);
  }
  return previous;
}

}  // namespace kai::proportion
