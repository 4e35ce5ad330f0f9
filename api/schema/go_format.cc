#include "api/schema/go_format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace kai::api::schema {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Decodes one UTF-8 sequence at s[i]; returns the rune and its length, or length 0 if invalid
// (Go then escapes the single byte as \xNN).
std::pair<uint32_t, size_t> DecodeRune(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return {c, 1};
  auto cont = [&](size_t k) { return k < s.size() && (b(k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF && cont(i + 1)) {
    return {((c & 0x1Fu) << 6) | (b(i + 1) & 0x3Fu), 2};
  }
  if (c >= 0xE0 && c <= 0xEF && cont(i + 1) && cont(i + 2)) {
    uint32_t r = ((c & 0x0Fu) << 12) | ((b(i + 1) & 0x3Fu) << 6) | (b(i + 2) & 0x3Fu);
    if (r < 0x800 || (r >= 0xD800 && r <= 0xDFFF)) return {0, 0};
    return {r, 3};
  }
  if (c >= 0xF0 && c <= 0xF4 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
    uint32_t r = ((c & 0x07u) << 18) | ((b(i + 1) & 0x3Fu) << 12) | ((b(i + 2) & 0x3Fu) << 6) |
                 (b(i + 3) & 0x3Fu);
    if (r < 0x10000 || r > 0x10FFFF) return {0, 0};
    return {r, 4};
  }
  return {0, 0};
}

// An approximation of unicode.IsPrint for non-ASCII runes: Go treats controls, format
// characters, private use, unassigned code points and every space but ' ' as non-printable. We
// cover the common ranges of those categories.
bool IsPrintRune(uint32_t r) {
  if (r < 0x20 || r == 0x7F) return false;
  if (r < 0x7F) return true;
  if (r >= 0x80 && r <= 0xA0) return false;  // C1 controls, no-break space
  if (r == 0xAD || r == 0x1680 || r == 0x180E || r == 0x061C || r == 0x06DD || r == 0x070F ||
      r == 0x3000 || r == 0xFEFF) {
    return false;
  }
  if (r >= 0x0600 && r <= 0x0605) return false;
  if (r >= 0x2000 && r <= 0x200F) return false;  // spaces, zero-width and direction marks
  if (r >= 0x2028 && r <= 0x202F) return false;  // line/paragraph separators, embeddings
  if (r >= 0x205F && r <= 0x206F) return false;
  if (r >= 0xE000 && r <= 0xF8FF) return false;  // private use
  if (r >= 0xFFF0 && r <= 0xFFFB) return false;
  if (r == 0xFFFE || r == 0xFFFF) return false;
  if (r >= 0xF0000) return false;                  // supplementary private use planes
  if (r >= 0xE0000 && r <= 0xE007F) return false;  // tags
  return true;
}

void AppendHex(std::string* out, uint32_t v, int digits) {
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
    out->push_back(kHex[(v >> shift) & 0xF]);
}

}  // namespace

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    auto [r, len] = DecodeRune(s, i);
    if (len == 0) {
      out += "\\x";
      AppendHex(&out, static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    if (r == '"' || r == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(r));
    } else if (IsPrintRune(r)) {
      out.append(s.substr(i, len));
    } else {
      switch (r) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (r < ' ' || r == 0x7F) {
            out += "\\x";
            AppendHex(&out, r, 2);
          } else if (r < 0x10000) {
            out += "\\u";
            AppendHex(&out, r, 4);
          } else {
            out += "\\U";
            AppendHex(&out, r, 8);
          }
      }
    }
    i += len;
  }
  out.push_back('"');
  return out;
}

std::string GoFormatFloat(double f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f == 0) return std::signbit(f) ? "-0" : "0";
  // Shortest round-trip digits in scientific form: "d.ddde[+-]x".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits.push_back(c);
  }
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    int a = std::abs(exp);
    if (a < 10) out.push_back('0');
    out += std::to_string(a);
    return out;
  }
  // Fixed notation: the decimal point goes after exp+1 digits.
  int point = exp + 1;
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out += digits;
    out.append(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    out.append(digits, 0, static_cast<size_t>(point));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(point), std::string::npos);
  }
  return out;
}

}  // namespace kai::api::schema
