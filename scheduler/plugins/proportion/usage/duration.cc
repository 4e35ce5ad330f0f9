#include "scheduler/plugins/proportion/usage/duration.h"

#include <cctype>
#include <cstdint>

namespace kai::proportion {
namespace {

struct Unit {
  std::string_view name;
  int64_t millis;
};

constexpr int64_t kMs = 1;
constexpr int64_t kSecond = 1000 * kMs;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kWeek = 7 * kDay;
constexpr int64_t kYear = 365 * kDay;

constexpr Unit kUnits[] = {{"y", kYear},   {"w", kWeek},   {"d", kDay}, {"h", kHour},
                           {"m", kMinute}, {"s", kSecond}, {"ms", kMs}};

}  // namespace

StatusOr<Duration> ParsePrometheusDuration(std::string_view s) {
  if (s == "0") return Duration(0);
  if (s.empty()) return InvalidArgumentError("empty duration string");
  int64_t total_ms = 0;
  size_t pos = 0;
  size_t next_unit = 0;
  while (pos < s.size()) {
    size_t start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos == start)
      return InvalidArgumentError("not a valid duration string: \"" + std::string(s) + "\"");
    int64_t n = 0;
    for (size_t i = start; i < pos; ++i) {
      if (n > (INT64_MAX - 9) / 10) return InvalidArgumentError("duration out of range");
      n = n * 10 + (s[i] - '0');
    }
    size_t ustart = pos;
    while (pos < s.size() && std::isalpha(static_cast<unsigned char>(s[pos]))) ++pos;
    std::string_view unit = s.substr(ustart, pos - ustart);
    bool found = false;
    for (size_t u = next_unit; u < std::size(kUnits); ++u) {
      if (kUnits[u].name == unit) {
        if (n > INT64_MAX / kUnits[u].millis / 1000000) {
          return InvalidArgumentError("duration out of range");
        }
        total_ms += n * kUnits[u].millis;
        next_unit = u + 1;
        found = true;
        break;
      }
    }
    if (!found)
      return InvalidArgumentError("not a valid duration string: \"" + std::string(s) + "\"");
  }
  return std::chrono::duration_cast<Duration>(std::chrono::milliseconds(total_ms));
}

std::string FormatPrometheusDuration(Duration d) {
  int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  for (const Unit& u : kUnits) {
    // Years and weeks only when exact ("90d" reads better than "12w6d").
    const bool exact_only = u.millis == kYear || u.millis == kWeek;
    if (exact_only && ms % u.millis != 0) continue;
    const int64_t n = ms / u.millis;
    if (n == 0) continue;
    out += std::to_string(n);
    out += u.name;
    ms -= n * u.millis;
  }
  return out;
}

StatusOr<Duration> ParseConfigDuration(std::string_view s) {
  StatusOr<Duration> prom = ParsePrometheusDuration(s);
  if (prom.ok()) return prom;
  StatusOr<Duration> go = ParseGoDuration(s);
  if (go.ok()) return go;
  return InvalidArgumentError(
      "invalid duration \"" + std::string(s) +
      "\": expected a Prometheus (\"1w\", \"7d\") or Go (\"168h\") duration");
}

}  // namespace kai::proportion
