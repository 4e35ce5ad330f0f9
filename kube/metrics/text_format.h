// Pieces of the Prometheus text exposition format 0.0.4 that must match Go's expfmt byte for
// byte: sample values, label-value escaping and HELP escaping.
#pragma once

#include <string>
#include <string_view>

namespace kai::metrics {

// Content-Type of /metrics.
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// As Go's strconv.FormatFloat(v, 'g', -1, 64) with expfmt's specials: "+Inf", "-Inf", "NaN";
// shortest round-trip digits, exponent form when the decimal exponent is < -4 or >= 6
// (so 1e6 prints "1e+06", 0.005 prints "0.005").
std::string FormatFloat(double v);

// Label values escape backslash, double quote and newline.
void AppendEscapedLabelValue(std::string* out, std::string_view v);
// HELP text escapes backslash and newline.
void AppendEscapedHelp(std::string* out, std::string_view v);

// Metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*.
bool IsValidMetricName(std::string_view name);
bool IsValidLabelName(std::string_view name);

}  // namespace kai::metrics
