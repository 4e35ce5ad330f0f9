#include "api/schema/names.h"

#include <cctype>
#include <cstdint>
#include <regex>
#include <string>

namespace kai::api::schema {
namespace {

const std::regex& Re(const char* pattern) {
  // Only called with literals below; one leaked compiled regex per call site.
  return *new std::regex(pattern, std::regex::ECMAScript | std::regex_constants::__polynomial);
}

bool Matches(const std::regex& re, std::string_view v) {
  return std::regex_search(v.begin(), v.end(), re);
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// time.Parse("2006-01-02", s).
bool IsFullDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  int y = std::stoi(std::string(s.substr(0, 4)));
  int m = std::stoi(std::string(s.substr(5, 2)));
  int d = std::stoi(std::string(s.substr(8, 2)));
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  int max = kDays[m - 1] + (m == 2 && IsLeapYear(y) ? 1 : 0);
  return d <= max;
}

// strfmt.IsDateTime.
bool IsDateTime(std::string_view str) {
  if (str.size() < 4) return false;
  std::string lower;
  for (char c : str)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  size_t t = lower.find('t');
  if (t == std::string::npos) return false;
  size_t t2 = lower.find('t', t + 1);
  std::string date = lower.substr(0, t);
  std::string time = lower.substr(t + 1, t2 == std::string::npos ? std::string::npos : t2 - t - 1);
  if (!IsFullDate(date)) return false;
  static const std::regex& re =
      Re("^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
  std::smatch m;
  if (!std::regex_search(time, m, re)) return false;
  return m[1].str() <= "23" && m[2].str() <= "59" && m[3].str() <= "59";
}

// time.ParseDuration, or the "<n> <unit>" forms strfmt.ParseDuration also accepts.
bool IsDuration(std::string_view s) {
  static const std::regex& go =
      Re("^[-+]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|\xC2\xB5s|\xCE\xBCs|ms|s|m|h))+$");
  static const std::regex& words =
      Re("^[0-9]+\\s*(ns|us|\xC2\xB5s|ms|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|"
         "hrs|hour|hours|d|day|days|w|wk|wks|week|weeks)$");
  if (s == "0") return true;
  return Matches(go, s) || Matches(words, s);
}

bool ParseIpv4(std::string_view s) {
  int parts = 0;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find('.', i);
    std::string_view p = s.substr(i, j == std::string_view::npos ? s.npos : j - i);
    if (p.empty() || p.size() > 3) return false;
    for (char c : p) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    if (p.size() > 1 && p[0] == '0') return false;  // Go rejects leading zeros
    if (std::stoi(std::string(p)) > 255) return false;
    ++parts;
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return parts == 4;
}

bool ParseIpv6(std::string_view s) {
  // Groups of up to 4 hex digits, at most one "::", optional trailing dotted IPv4.
  if (s.empty()) return false;
  size_t dc = s.find("::");
  if (dc != std::string_view::npos && s.find("::", dc + 1) != std::string_view::npos) return false;
  int groups = 0;
  size_t i = 0;
  bool ipv4_tail = false;
  while (i < s.size()) {
    if (i == dc) {
      i += 2;
      continue;
    }
    size_t j = s.find(':', i);
    std::string_view g = s.substr(i, j == std::string_view::npos ? s.npos : j - i);
    if (j == std::string_view::npos && g.find('.') != std::string_view::npos) {
      if (!ParseIpv4(g)) return false;
      groups += 2;
      ipv4_tail = true;
      break;
    }
    if (g.empty() || g.size() > 4) return false;
    for (char c : g) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
    ++groups;
    if (j == std::string_view::npos) break;
    if (j == dc) {
      i = j;
      continue;
    }
    i = j + 1;
    if (i == s.size()) return false;  // trailing single ':'
  }
  (void)ipv4_tail;
  if (dc != std::string_view::npos) return groups < 8;
  return groups == 8;
}

bool IsCidr(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view ip = s.substr(0, slash), bits = s.substr(slash + 1);
  if (bits.empty() || bits.size() > 3) return false;
  for (char c : bits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  int b = std::stoi(std::string(bits));
  if (ParseIpv4(ip)) return b <= 32;
  if (ParseIpv6(ip)) return b <= 128;
  return false;
}

bool IsMac(std::string_view s) {
  // net.ParseMAC: 6, 8 or 20 octets separated by ':' or '-', or dotted groups of 4 hex digits.
  for (char sep : {':', '-'}) {
    if (s.size() >= 14 && s[2] == sep) {
      size_t n = (s.size() + 1) / 3;
      if ((s.size() + 1) % 3 != 0 || (n != 6 && n != 8 && n != 20)) return false;
      for (size_t k = 0; k < s.size(); ++k) {
        if (k % 3 == 2) {
          if (s[k] != sep) return false;
        } else if (!std::isxdigit(static_cast<unsigned char>(s[k]))) {
          return false;
        }
      }
      return true;
    }
  }
  if (s.size() >= 14 && s[4] == '.') {
    size_t n = (s.size() + 1) / 5;
    if ((s.size() + 1) % 5 != 0 || (n * 2 != 6 && n * 2 != 8 && n * 2 != 20)) return false;
    for (size_t k = 0; k < s.size(); ++k) {
      if (k % 5 == 4) {
        if (s[k] != '.') return false;
      } else if (!std::isxdigit(static_cast<unsigned char>(s[k]))) {
        return false;
      }
    }
    return true;
  }
  return false;
}

// strfmt.IsHostname (ASCII labels; non-ASCII letters and symbols allowed like Go's \p{L}\p{S}).
bool IsHostname(std::string_view s) {
  if (s.empty() || s.size() > 255) return false;
  auto ok_char = [](unsigned char c) { return std::isalnum(c) || c >= 0x80; };
  size_t start = 0;
  std::vector<std::string_view> labels;
  while (true) {
    size_t dot = s.find('.', start);
    labels.push_back(s.substr(start, dot == std::string_view::npos ? s.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    std::string_view l = labels[i];
    if (l.empty() || l.size() > 63) return false;
    if (!ok_char(static_cast<unsigned char>(l.front())) ||
        !ok_char(static_cast<unsigned char>(l.back()))) {
      return false;
    }
    for (char c : l) {
      if (!ok_char(static_cast<unsigned char>(c)) && c != '-') return false;
    }
    if (labels.size() > 1 && i == labels.size() - 1 && l.size() < 2) return false;
  }
  return true;
}

bool IsEmail(std::string_view s) {
  // net/mail.ParseAddress accepts "Name <addr>" and bare addresses.
  size_t lt = s.rfind('<');
  if (lt != std::string_view::npos) {
    if (s.back() != '>') return false;
    s = s.substr(lt + 1, s.size() - lt - 2);
  }
  size_t at = s.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= s.size()) return false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '<' || c == '>' || c == ',' ||
        c == ';') {
      return false;
    }
  }
  return true;
}

bool IsRequestUri(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return false;
  }
  if (s[0] == '/') return true;
  static const std::regex& scheme = Re("^[A-Za-z][A-Za-z0-9+.-]*:");
  return Matches(scheme, s);
}

bool IsIsbn10(std::string_view raw) {
  std::string s;
  for (char c : raw) {
    if (c != ' ' && c != '-') s.push_back(c);
  }
  if (s.size() != 10) return false;
  int sum = 0;
  for (int i = 0; i < 9; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    sum += (i + 1) * (s[i] - '0');
  }
  if (s[9] == 'X') {
    sum += 10 * 10;
  } else if (std::isdigit(static_cast<unsigned char>(s[9]))) {
    sum += 10 * (s[9] - '0');
  } else {
    return false;
  }
  return sum % 11 == 0;
}

bool IsIsbn13(std::string_view raw) {
  std::string s;
  for (char c : raw) {
    if (c != ' ' && c != '-') s.push_back(c);
  }
  if (s.size() != 13) return false;
  int sum = 0;
  for (int i = 0; i < 12; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    sum += (i % 2 == 0 ? 1 : 3) * (s[i] - '0');
  }
  if (!std::isdigit(static_cast<unsigned char>(s[12]))) return false;
  return (10 - sum % 10) % 10 == s[12] - '0';
}

bool IsCreditCard(std::string_view raw) {
  std::string s;
  for (char c : raw) {
    if (std::isdigit(static_cast<unsigned char>(c))) s.push_back(c);
  }
  static const std::regex& re =
      Re("^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01]"
         "[0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])"
         "[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11}|6[27][0-9]{14})$");
  if (!Matches(re, s)) return false;
  int sum = 0;
  bool dbl = false;
  for (size_t i = s.size(); i-- > 0;) {
    int d = s[i] - '0';
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 == 0;
}

}  // namespace

std::vector<std::string> ValidatePathSegmentName(std::string_view name, bool prefix) {
  std::vector<std::string> errs;
  if (!prefix) {
    if (name == "." || name == "..") errs.push_back("may not be '" + std::string(name) + "'");
  }
  if (name.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
  if (name.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
  return errs;
}

bool ValidateStringFormat(std::string_view format, std::string_view value) {
  std::string f;
  for (char c : format) {
    if (c != '-') f.push_back(c);
  }
  if (f == "datetime") return IsDateTime(value);
  if (f == "date") return IsFullDate(value);
  if (f == "duration") return IsDuration(value);
  if (f == "byte") {
    static const std::regex& re =
        Re("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$");
    return Matches(re, value);
  }
  if (f == "uuid") {
    static const std::regex& re = *new std::regex(
        "^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
        std::regex::ECMAScript | std::regex::icase | std::regex_constants::__polynomial);
    return Matches(re, value);
  }
  if (f == "uuid3" || f == "uuid4" || f == "uuid5") {
    static const std::regex& r3 = *new std::regex(
        "^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
        std::regex::ECMAScript | std::regex::icase | std::regex_constants::__polynomial);
    static const std::regex& r4 = *new std::regex(
        "^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
        std::regex::ECMAScript | std::regex::icase | std::regex_constants::__polynomial);
    static const std::regex& r5 = *new std::regex(
        "^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
        std::regex::ECMAScript | std::regex::icase | std::regex_constants::__polynomial);
    return Matches(f == "uuid3" ? r3 : f == "uuid4" ? r4 : r5, value);
  }
  if (f == "ipv4") return ParseIpv4(value);
  if (f == "ipv6") return value.find(':') != std::string_view::npos && ParseIpv6(value);
  if (f == "cidr") return IsCidr(value);
  if (f == "mac") return IsMac(value);
  if (f == "hostname") return IsHostname(value);
  if (f == "email") return IsEmail(value);
  if (f == "uri") return IsRequestUri(value);
  if (f == "hexcolor") {
    static const std::regex& re = Re("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
    return Matches(re, value);
  }
  if (f == "rgbcolor") {
    static const std::regex& re = Re(
        "^rgb\\(\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]"
        "\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*\\)$");
    return Matches(re, value);
  }
  if (f == "ssn") {
    static const std::regex& re = Re("^\\d{3}[- ]?\\d{2}[- ]?\\d{4}$");
    return Matches(re, value);
  }
  if (f == "isbn10") return IsIsbn10(value);
  if (f == "isbn13") return IsIsbn13(value);
  if (f == "isbn") return IsIsbn10(value) || IsIsbn13(value);
  if (f == "creditcard") return IsCreditCard(value);
  if (f == "bsonobjectid") {
    if (value.size() != 24) return false;
    for (char c : value) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  }
  if (f == "quantity") {
    static const std::regex& re = Re(
        "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+"
        "(\\.[0-9]*)?)|(\\.[0-9]+))))?$");
    return Matches(re, value);
  }
  return true;  // "password" and anything unknown
}

}  // namespace kai::api::schema
