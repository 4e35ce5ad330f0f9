// Kubernetes time formats: metav1.Time (RFC 3339, seconds), metav1.MicroTime (microseconds) and
// Go duration strings ("1m30s", "168h", "-1s") as used by metav1.Duration and scheduler flags.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai {

// "2026-01-02T15:04:05Z" (always UTC, seconds precision).
std::string FormatRfc3339(WallTime t);
// "2026-01-02T15:04:05.000000Z" (metav1.MicroTime).
std::string FormatRfc3339Micro(WallTime t);
// Accepts RFC 3339 with optional fractional seconds and a "Z" or "+hh:mm" offset.
StatusOr<WallTime> ParseRfc3339(std::string_view s);

// Go time.ParseDuration syntax: optional sign, then one or more <number><unit> with units
// ns, us (or µs), ms, s, m, h; "0" alone is allowed.
StatusOr<Duration> ParseGoDuration(std::string_view s);
// Go time.Duration.String(): "1h2m3s", "1.5s", "100ms", "0s".
std::string FormatGoDuration(Duration d);

}  // namespace kai
