// Small string helpers that the standard library lacks in C++20.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kai {

// Splits on `sep`; keeps empty fields ("a,,b" -> {"a", "", "b"}).
std::vector<std::string> StrSplit(std::string_view s, char sep);
std::string StrJoin(const std::vector<std::string>& parts, std::string_view sep);
std::string_view StripWhitespace(std::string_view s);
std::string AsciiToLower(std::string_view s);

}  // namespace kai
