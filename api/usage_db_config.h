// Time-based fair share data source (kai-reference §10), shared by SchedulingShard and the
// scheduler's config file.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "kube/base/clock.h"

namespace kai::api {

struct UsageParams {
  std::optional<Duration> window_size;  // default 168h
  std::string window_type;              // sliding (default), tumbling, cron
  std::optional<WallTime> tumbling_window_start_time;
  std::string cron_string;
  std::optional<Duration> half_life_period;  // none / <= 0: no decay
  std::optional<Duration> fetch_interval;    // default 1m
  std::optional<Duration> staleness_period;  // default 5m, never below fetch_interval
  std::optional<Duration> wait_timeout;      // default 1m
  std::map<std::string, std::string> extra_params;
  bool operator==(const UsageParams&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("windowSize", s.window_size);
    v("windowType", s.window_type);
    v("tumblingWindowStartTime", s.tumbling_window_start_time);
    v("cronString", s.cron_string);
    v("halfLifePeriod", s.half_life_period);
    v("fetchInterval", s.fetch_interval);
    v("stalenessPeriod", s.staleness_period);
    v("waitTimeout", s.wait_timeout);
    v("extraParams", s.extra_params);
  }
};

struct UsageDbConfig {
  std::string client_type;  // prometheus, fake, fake-with-history
  std::string connection_string;
  std::string connection_string_env_var;
  std::optional<UsageParams> usage_params;
  bool operator==(const UsageDbConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("clientType", s.client_type);
    v("connectionString", s.connection_string);
    v("connectionStringEnvVar", s.connection_string_env_var);
    v("usageParams", s.usage_params);
  }
};

}  // namespace kai::api
