// Go fmt/strconv formatting the API server uses inside error messages, so our messages are
// byte-for-byte the ones a real server sends.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kai::api::schema {

// strconv.Quote: double-quoted, Go escapes (\n, \t, \x00, \u00a0, ...); invalid UTF-8 bytes as
// \xNN.
std::string GoQuote(std::string_view s);

// fmt "%v" of a float64, i.e. strconv.FormatFloat(f, 'g', -1, 64): shortest round-trip digits,
// exponent form when the decimal exponent is < -4 or >= 6 ("1e+06", "123456", "0.0001",
// "1e-05"), and "+Inf", "-Inf", "NaN".
std::string GoFormatFloat(double f);

}  // namespace kai::api::schema
