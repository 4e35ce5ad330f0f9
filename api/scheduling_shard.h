// SchedulingShard (kai.scheduler/v1, cluster-scoped): one scheduler instance per node pool, with
// its plugin/action set (kai-reference §2.5).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"
#include "api/usage_db_config.h"

namespace kai::api {

struct PluginConfig {
  std::optional<bool> enabled;
  std::optional<int> priority;
  std::optional<std::map<std::string, std::string>> arguments;  // when set, replaces defaults
  bool operator==(const PluginConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("enabled", s.enabled);
    v("priority", s.priority);
    v("arguments", s.arguments);
  }
};

struct ActionConfig {
  std::optional<bool> enabled;
  std::optional<int> priority;
  bool operator==(const ActionConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("enabled", s.enabled);
    v("priority", s.priority);
  }
};

struct MinRuntime {
  std::optional<std::string> preempt_min_runtime;
  std::optional<std::string> reclaim_min_runtime;
  bool operator==(const MinRuntime&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("preemptMinRuntime", s.preempt_min_runtime);
    v("reclaimMinRuntime", s.reclaim_min_runtime);
  }
};

struct PlacementStrategy {
  std::optional<std::string> gpu;  // binpack (default) | spread
  std::optional<std::string> cpu;  // binpack (default) | spread
  bool operator==(const PlacementStrategy&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("gpu", s.gpu);
    v("cpu", s.cpu);
  }
};

// Time budgets of the victim searches (KAI v0.15, alpha): per action ("default" for the others),
// per job, a minimum per job, per scenario generator; and the failed-search backoff per action.
// Go duration strings; 0 = unlimited (budgets) or off (backoff).
struct ScenarioSearchBudgets {
  std::map<std::string, Duration> max_action_search_duration;
  std::optional<Duration> max_job_search_duration;
  std::optional<Duration> min_job_search_duration;
  std::map<std::string, Duration> max_generator_search_duration;
  // Failed-search backoff per action (opt-in, newer KAI).
  std::map<std::string, Duration> min_failed_search_backoff;
  std::map<std::string, Duration> max_failed_search_backoff;
  bool operator==(const ScenarioSearchBudgets&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("maxActionSearchDuration", s.max_action_search_duration);
    v("maxJobSearchDuration", s.max_job_search_duration);
    v("minJobSearchDuration", s.min_job_search_duration);
    v("maxGeneratorSearchDuration", s.max_generator_search_duration);
    v("minFailedSearchBackoff", s.min_failed_search_backoff);
    v("maxFailedSearchBackoff", s.max_failed_search_backoff);
  }
};

struct SchedulingShardSpec {
  std::map<std::string, std::string> args;  // scheduler flags without "--"
  std::optional<PlacementStrategy> placement_strategy;
  std::string partition_label_value;
  std::map<std::string, int> queue_depth_per_action;
  std::optional<MinRuntime> min_runtime;
  std::optional<double> k_value;
  std::optional<UsageDbConfig> usage_db_config;
  std::map<std::string, PluginConfig> plugins;
  std::map<std::string, ActionConfig> actions;
  std::optional<ScenarioSearchBudgets> scenario_search_budgets;
  bool operator==(const SchedulingShardSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("args", s.args);
    v("placementStrategy", s.placement_strategy);
    v("partitionLabelValue", s.partition_label_value);
    v("queueDepthPerAction", s.queue_depth_per_action);
    v("minRuntime", s.min_runtime);
    v("kValue", s.k_value);
    v("usageDBConfig", s.usage_db_config);
    v("plugins", s.plugins);
    v("actions", s.actions);
    v("scenarioSearchBudgets", s.scenario_search_budgets);
  }
};

struct SchedulingShardStatus {
  std::vector<Condition> conditions;
  bool operator==(const SchedulingShardStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("conditions", s.conditions);
  }
};

struct SchedulingShard {
  static constexpr TypeInfo kTypeInfo{"kai.scheduler", "v1", "SchedulingShard", "schedulingshards",
                                      false};
  ObjectMeta metadata;
  SchedulingShardSpec spec;
  SchedulingShardStatus status;
  RawDocument raw;
  bool operator==(const SchedulingShard&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
    v("status", s.status);
  }
};
KAI_API_DECLARE_CODEC(SchedulingShard);

// Go defaults of SchedulingShardSpec.SetDefaultsWhereNeeded (§2.5): placement strategy, the
// built-in plugin and action tables with priorities, enablement by strategy, kValue/minRuntime
// arguments, then the user's overrides merged in.
void ApplySchedulingShardDefaults(SchedulingShardSpec* spec);

// Enabled plugin / action names in run order (priority descending, then name ascending).
std::vector<std::string> OrderedEnabledPlugins(const SchedulingShardSpec& defaulted);
std::vector<std::string> OrderedEnabledActions(const SchedulingShardSpec& defaulted);

}  // namespace kai::api
