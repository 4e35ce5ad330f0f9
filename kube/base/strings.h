// Small string helpers that the standard library lacks in C++20.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kai {

// Splits on `sep`; keeps empty fields ("a,,b" -> {"a", "", "b"}).
std::vector<std::string> StrSplit(std::string_view s, char sep);
std::string StrJoin(const std::vector<std::string>& parts, std::string_view sep);
std::string_view StripWhitespace(std::string_view s);
std::string AsciiToLower(std::string_view s);
// `s` between double quotes, nothing escaped: names in error messages.
std::string Quote(std::string_view s);
// '0'-'9' only: std::isdigit depends on the C locale.
constexpr bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
// Decimal digits only (no sign, no spaces), at most 19 of them so the value never overflows:
// resourceVersions and counts. False, and *out untouched, otherwise.
bool ParseDecimalUint64(std::string_view s, uint64_t* out);
// RFC 3986 percent-encoding of a URL query value: everything but ALPHA / DIGIT / "-._~".
std::string UrlQueryEscape(std::string_view s);

// Concatenates string pieces with one allocation (absl::StrCat, strings only): what `a + b + c`
// does with a temporary per `+`.
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  const std::string_view views[] = {std::string_view(pieces)...};
  size_t size = 0;
  for (std::string_view v : views) size += v.size();
  std::string out;
  out.reserve(size);
  for (std::string_view v : views) out.append(v);
  return out;
}

}  // namespace kai
