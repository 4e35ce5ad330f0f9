// Scheduler configuration as KAI has it (§2.5, §6.1, §6.2): flags (SchedulerParams) and the
// configuration file (actions, tiers of plugins with arguments, queue depth per action), read
// from a config file or built from a SchedulingShard.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/scheduling_shard.h"
#include "kube/base/clock.h"
#include "kube/base/statusor.h"
#include "scheduler/conf/search_budgets.h"

namespace kai::scheduler {

// Scheduler flags that change scheduling decisions (§6.1), with KAI's defaults.
struct SchedulerParams {
  std::string scheduler_name = "kai-scheduler";
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  std::string partition_label_value;
  std::string queue_label_key = "kai.scheduler/queue";
  std::string resource_reservation_app_label = "kai-resource-reservation";
  bool restrict_node_scheduling = false;
  std::string cpu_worker_node_label_key = "node-role.kubernetes.io/cpu-worker";
  std::string gpu_worker_node_label_key = "node-role.kubernetes.io/gpu-worker";
  std::string mig_worker_node_label_key = "node-role.kubernetes.io/mig-enabled";
  int max_consolidation_preemptees = 16;
  bool detailed_fit_errors = false;
  bool update_pod_eviction_condition = false;
  bool use_scheduling_signatures = true;
  bool full_hierarchy_fairness = true;
  bool allow_consolidating_reclaim = true;
  Duration default_staleness_grace_period = std::chrono::seconds(60);
  Duration schedule_period = std::chrono::seconds(1);

  // Applies one flag ("name" without dashes). Unknown flags are ignored, as KAI's operator
  // drops unknown shard args (§24.20); *known is set when the flag was recognised. Bad values
  // are errors naming the flag.
  Status SetFlag(const std::string& name, const std::string& value, bool* known = nullptr);

  bool operator==(const SchedulerParams&) const = default;
};

struct PluginOption {
  std::string name;
  std::map<std::string, std::string> arguments;
};

// The configuration file (config.yaml).
struct SchedulerConfiguration {
  std::vector<std::string> actions;
  // One flat list: tiers are evaluated in order, and every hook combines across all plugins in
  // registration order, so the tier boundaries do not change behaviour.
  std::vector<PluginOption> plugins;
  std::map<std::string, int> queue_depth_per_action;
  SearchBudgets search_budgets = DefaultSearchBudgets();
};

// Built-in default configuration (§6.2).
SchedulerConfiguration DefaultSchedulerConfiguration();

// Parses config.yaml (actions as a comma-separated string, tiers of plugins, queue depth per
// action). Missing actions/tiers fall back to the built-in default.
StatusOr<SchedulerConfiguration> ParseSchedulerConfiguration(std::string_view yaml);

// What the operator derives from a SchedulingShard (§2.5, §5.4): the enabled plugins and actions
// in priority order with arguments, queue depths, and the shard's args applied as flags.
Status ConfigFromSchedulingShard(const api::SchedulingShard& shard, SchedulerConfiguration* conf,
                                 SchedulerParams* params);

}  // namespace kai::scheduler
