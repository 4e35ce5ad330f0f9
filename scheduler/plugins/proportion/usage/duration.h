// Durations as the usage-database configuration writes them.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"
#include "kube/base/time.h"

namespace kai::proportion {

// Prometheus model.Duration: "0" or [<n>y][<n>w][<n>d][<n>h][<n>m][<n>s][<n>ms] with each unit
// at most once and in this order (y = 365d, w = 7d).
StatusOr<Duration> ParsePrometheusDuration(std::string_view s);
// Prometheus' canonical form (model.Duration.String): "1w", "1d2h", "90s", "0s".
std::string FormatPrometheusDuration(Duration d);
// Accepts the Prometheus form and Go's time.ParseDuration form ("1h30m", "1.5h").
StatusOr<Duration> ParseConfigDuration(std::string_view s);

}  // namespace kai::proportion
