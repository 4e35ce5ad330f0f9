#include "kube/base/time.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace kai {
namespace {

using std::chrono::duration_cast;
using std::chrono::microseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

std::string FormatCivil(WallTime t, bool micro) {
  const auto secs = std::chrono::floor<seconds>(t);
  const std::time_t tt = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  if (micro) {
    const auto us = duration_cast<microseconds>(t - secs).count();
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long long>(us));
  } else {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  }
  return buf;
}

bool ReadDigits(std::string_view s, size_t& pos, int n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || (s[pos] != c && !(c == 'T' && (s[pos] == 't' || s[pos] == ' ')))) {
    return false;
  }
  ++pos;
  return true;
}

// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
long long DaysFromCivil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

}  // namespace

std::string FormatRfc3339(WallTime t) { return FormatCivil(t, false); }
std::string FormatRfc3339Micro(WallTime t) { return FormatCivil(t, true); }

StatusOr<WallTime> ParseRfc3339(std::string_view s) {
  const auto bad = [&] {
    return InvalidArgumentError("invalid RFC 3339 time \"" + std::string(s) + "\"");
  };
  size_t pos = 0;
  int year, mon, day, hour, min, sec;
  if (!ReadDigits(s, pos, 4, year) || !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, mon) ||
      !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, day) || !Expect(s, pos, 'T') ||
      !ReadDigits(s, pos, 2, hour) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, min) ||
      !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, sec)) {
    return bad();
  }
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) {
    return bad();
  }
  long long nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return bad();
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  long long offset_seconds = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!ReadDigits(s, pos, 2, oh) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, om)) {
      return bad();
    }
    offset_seconds = sign * (oh * 3600LL + om * 60LL);
  } else {
    return bad();
  }
  if (pos != s.size()) return bad();
  const long long days = DaysFromCivil(year, mon, day);
  const long long epoch = days * 86400 + hour * 3600LL + min * 60LL + sec - offset_seconds;
  // WallTime counts nanoseconds in an int64: years 1678..2261 only.
  constexpr long long kMaxEpochSeconds = 9223372035LL;
  if (epoch > kMaxEpochSeconds || epoch < -kMaxEpochSeconds) {
    return InvalidArgumentError("time \"" + std::string(s) + "\" is out of range (1678..2261)");
  }
  return WallTime(duration_cast<WallTime::duration>(seconds(epoch) + nanoseconds(nanos)));
}

StatusOr<Duration> ParseGoDuration(std::string_view s) {
  const auto bad = [&] {
    return InvalidArgumentError("invalid duration \"" + std::string(s) + "\"");
  };
  std::string_view rest = s;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") return Duration(0);
  if (rest.empty()) return bad();
  long double total_ns = 0;
  while (!rest.empty()) {
    size_t i = 0;
    long double value = 0;
    bool any = false;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') {
      value = value * 10 + (rest[i] - '0');
      ++i;
      any = true;
    }
    if (i < rest.size() && rest[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') {
        value += (rest[i] - '0') * scale;
        scale /= 10;
        ++i;
        any = true;
      }
    }
    if (!any) return bad();
    size_t j = i;
    while (j < rest.size() && !((rest[j] >= '0' && rest[j] <= '9') || rest[j] == '.')) ++j;
    const std::string_view unit = rest.substr(i, j - i);
    long double mult;
    if (unit == "ns")
      mult = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs")
      mult = 1e3L;
    else if (unit == "ms")
      mult = 1e6L;
    else if (unit == "s")
      mult = 1e9L;
    else if (unit == "m")
      mult = 60e9L;
    else if (unit == "h")
      mult = 3600e9L;
    else
      return bad();
    total_ns += value * mult;
    rest.remove_prefix(j);
  }
  if (total_ns > 9.2e18L) return bad();
  const auto ns = static_cast<long long>(std::llround(static_cast<double>(total_ns)));
  return Duration(negative ? -ns : ns);
}

std::string FormatGoDuration(Duration d) {
  long long ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  unsigned long long u = ns < 0 ? static_cast<unsigned long long>(-(ns + 1)) + 1 : ns;
  char buf[64];
  if (u < 1000000000ULL) {
    // Sub-second values use the largest unit that keeps an integer part.
    const char* unit;
    unsigned long long div;
    if (u < 1000ULL) {
      return sign + std::to_string(u) + "ns";
    } else if (u < 1000000ULL) {
      unit = "\xC2\xB5s";
      div = 1000ULL;
    } else {
      unit = "ms";
      div = 1000000ULL;
    }
    std::string frac = std::to_string(u % div);
    frac = std::string(std::to_string(div).size() - 1 - frac.size(), '0') + frac;
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    std::snprintf(buf, sizeof(buf), "%llu", u / div);
    return sign + buf + (frac.empty() ? "" : "." + frac) + unit;
  }
  const unsigned long long hours = u / 3600000000000ULL;
  u %= 3600000000000ULL;
  const unsigned long long minutes = u / 60000000000ULL;
  u %= 60000000000ULL;
  const unsigned long long secs = u / 1000000000ULL;
  std::string frac = std::to_string(u % 1000000000ULL);
  frac = std::string(9 - frac.size(), '0') + frac;
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  std::string out = sign;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  out += std::to_string(secs) + (frac.empty() ? "" : "." + frac) + "s";
  return out;
}

}  // namespace kai
