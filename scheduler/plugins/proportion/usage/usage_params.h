// Usage-database configuration (scheduler config / SchedulingShard usageDBConfig, §10).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::proportion {

enum class WindowType { kSliding, kTumbling, kCron };

std::string_view WindowTypeString(WindowType t);

struct UsageParams {
  Duration window_size = std::chrono::hours(24 * 7);
  WindowType window_type = WindowType::kSliding;
  // Tumbling windows start here and repeat every window_size.
  std::optional<WallTime> tumbling_window_start_time;
  // Cron windows reset at each occurrence.
  std::string cron_string;
  // No decay when unset; values <= 0 mean unset.
  std::optional<Duration> half_life_period;
  Duration fetch_interval = std::chrono::minutes(1);
  // Data older than this is still used but reported stale; never less than fetch_interval.
  Duration staleness_period = std::chrono::minutes(5);
  // How long scheduler start-up waits for the first data.
  Duration wait_timeout = std::chrono::minutes(1);
  // usageQueryTimeout, queryResolution, {gpu,cpu,memory}{Allocation,Capacity}Metric.
  std::map<std::string, std::string> extra_params;

  // An extra parameter parsed as a Go duration; the default when absent or unparsable (as KAI).
  Duration ExtraDuration(const std::string& key, Duration default_value) const;
  std::string ExtraString(const std::string& key, const std::string& default_value) const;
};

struct UsageDbConfig {
  // "prometheus" (the real client); KAI's "fake" / "fake-with-history" test clients are
  // accepted by name and produce no data.
  std::string client_type;
  std::string connection_string;
  std::string connection_string_env_var;
  UsageParams usage_params;
};

// Parses the usageDBConfig object (JSON text). extraParams are read from usageParams (where KAI
// reads them) and also from the top level (where KAI's docs show them); usageParams wins on a
// conflict. Durations accept the Prometheus ("1w") and Go ("168h") forms.
StatusOr<UsageDbConfig> ParseUsageDbConfig(std::string_view json);

// The Prometheus address: the env var named by connection_string_env_var when set and
// non-empty, else connection_string. `getenv` is injected for tests.
StatusOr<std::string> ResolveConnectionString(
    const UsageDbConfig& config,
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

}  // namespace kai::proportion
