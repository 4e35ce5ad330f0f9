#include "scheduler/conf/scheduler_conf.h"

#include <algorithm>
#include <charconv>

#include "api/codec_internal.h"
#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"

namespace kai::scheduler {

namespace {

StatusOr<bool> ParseBoolFlag(const std::string& name, const std::string& value) {
  std::string v = AsciiToLower(StripWhitespace(value));
  if (v == "true" || v == "1" || v == "t") return true;
  if (v == "false" || v == "0" || v == "f") return false;
  return InvalidArgumentError("flag --" + name + ": invalid boolean \"" + value + "\"");
}

StatusOr<int> ParseIntFlag(const std::string& name, const std::string& value) {
  std::string_view v = StripWhitespace(value);
  int out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size()) {
    return InvalidArgumentError("flag --" + name + ": invalid integer \"" + value + "\"");
  }
  return out;
}

// Built-in plugin table of the operator (§2.5): name -> (priority, enabled by default).
struct BuiltinPlugin {
  const char* name;
  int priority;
};
constexpr BuiltinPlugin kBuiltinPlugins[] = {
    {"predicates", 1900},       {"proportion", 1800},     {"priority", 1700},
    {"nodeavailability", 1600}, {"resourcetype", 1500},   {"podaffinity", 1400},
    {"elastic", 1300},          {"kubeflow", 1200},       {"ray", 1100},
    {"subgrouporder", 1000},    {"taskorder", 900},       {"nominatednode", 800},
    {"dynamicresources", 700},  {"minruntime", 600},      {"topology", 500},
    {"snapshot", 400},          {"gpupack", 300},         {"gpuspread", 300},
    {"nodeplacement", 200},     {"gpusharingorder", 100},
};

struct BuiltinAction {
  const char* name;
  int priority;
};
constexpr BuiltinAction kBuiltinActions[] = {
    {"allocate", 500}, {"consolidation", 400},     {"reclaim", 300},
    {"preempt", 200},  {"stalegangeviction", 100},
};

// config.yaml's scenarioSearchBudgets, decoded by the SchedulingShard field's own codec so the
// two shapes cannot drift apart.
StatusOr<api::ScenarioSearchBudgets> SearchBudgetsFromJson(const rapidjson::Value& v) {
  api::ScenarioSearchBudgets out;
  api::codec::DecodeError err;
  if (!api::codec::DecodeAny(v, &out, &err)) {
    const std::string path = err.Path();
    return InvalidArgumentError("scheduler config: scenarioSearchBudgets" +
                                (path.empty() ? "" : "." + path) + ": " + err.message());
  }
  return out;
}

}  // namespace

Status SchedulerParams::SetFlag(const std::string& raw_name, const std::string& value,
                                bool* known) {
  std::string name = raw_name;
  while (!name.empty() && name[0] == '-') name.erase(0, 1);
  if (known) *known = true;
  if (name == "scheduler-name") {
    scheduler_name = value;
  } else if (name == "nodepool-label-key") {
    node_pool_label_key = value;
  } else if (name == "partition-label-value") {
    partition_label_value = value;
  } else if (name == "queue-label-key") {
    queue_label_key = value;
  } else if (name == "resource-reservation-app-label") {
    resource_reservation_app_label = value;
  } else if (name == "restrict-node-scheduling") {
    KAI_ASSIGN_OR_RETURN(restrict_node_scheduling, ParseBoolFlag(name, value));
  } else if (name == "cpu-worker-node-label-key") {
    cpu_worker_node_label_key = value;
  } else if (name == "gpu-worker-node-label-key") {
    gpu_worker_node_label_key = value;
  } else if (name == "mig-worker-node-label-key") {
    mig_worker_node_label_key = value;
  } else if (name == "max-consolidation-preemptees") {
    KAI_ASSIGN_OR_RETURN(max_consolidation_preemptees, ParseIntFlag(name, value));
  } else if (name == "detailed-fit-errors") {
    KAI_ASSIGN_OR_RETURN(detailed_fit_errors, ParseBoolFlag(name, value));
  } else if (name == "update-pod-eviction-condition") {
    KAI_ASSIGN_OR_RETURN(update_pod_eviction_condition, ParseBoolFlag(name, value));
  } else if (name == "use-scheduling-signatures") {
    KAI_ASSIGN_OR_RETURN(use_scheduling_signatures, ParseBoolFlag(name, value));
  } else if (name == "full-hierarchy-fairness") {
    KAI_ASSIGN_OR_RETURN(full_hierarchy_fairness, ParseBoolFlag(name, value));
  } else if (name == "allow-consolidating-reclaim") {
    KAI_ASSIGN_OR_RETURN(allow_consolidating_reclaim, ParseBoolFlag(name, value));
  } else if (name == "default-staleness-grace-period") {
    auto d = ParseGoDuration(value);
    if (!d.ok()) {
      return InvalidArgumentError("flag --" + name + ": " + std::string(d.status().message()));
    }
    default_staleness_grace_period = *d;
  } else if (name == "schedule-period") {
    auto d = ParseGoDuration(value);
    if (!d.ok()) {
      return InvalidArgumentError("flag --" + name + ": " + std::string(d.status().message()));
    }
    schedule_period = *d;
  } else {
    if (known) *known = false;
  }
  return Status::OK();
}

SchedulerConfiguration DefaultSchedulerConfiguration() {
  SchedulerConfiguration c;
  c.actions = {"allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"};
  for (const char* p : {"predicates", "proportion", "priority", "elastic", "kubeflow", "ray",
                        "nodeavailability", "gpusharingorder", "gpupack", "resourcetype",
                        "subgrouporder", "taskorder", "nominatednode", "dynamicresources"}) {
    c.plugins.push_back({p, {}});
  }
  c.plugins.push_back({"nodeplacement", {{"gpu", "binpack"}, {"cpu", "binpack"}}});
  for (const char* p : {"minruntime", "topology", "snapshot"}) c.plugins.push_back({p, {}});
  return c;
}

StatusOr<SchedulerConfiguration> ParseSchedulerConfiguration(std::string_view yaml) {
  KAI_ASSIGN_OR_RETURN(std::string json, api::YamlToJson(yaml));
  KAI_ASSIGN_OR_RETURN(rapidjson::Document doc, api::ParseJsonDocument(json));
  SchedulerConfiguration def = DefaultSchedulerConfiguration();
  SchedulerConfiguration out;
  if (!doc.IsObject()) return InvalidArgumentError("scheduler config: expected a mapping");
  if (const auto* a = api::FindMember(doc, "actions")) {
    if (!a->IsString()) {
      return InvalidArgumentError("scheduler config: actions: expected a comma-separated string");
    }
    for (const auto& part : StrSplit(a->GetString(), ',')) {
      std::string name(StripWhitespace(part));
      if (!name.empty()) out.actions.push_back(name);
    }
  } else {
    out.actions = def.actions;
  }
  if (const auto* tiers = api::FindMember(doc, "tiers")) {
    if (!tiers->IsArray()) return InvalidArgumentError("scheduler config: tiers: expected a list");
    for (rapidjson::SizeType t = 0; t < tiers->Size(); ++t) {
      const auto& tier = (*tiers)[t];
      const auto* plugins = tier.IsObject() ? api::FindMember(tier, "plugins") : nullptr;
      if (plugins == nullptr || !plugins->IsArray()) {
        return InvalidArgumentError("scheduler config: tiers[" + std::to_string(t) +
                                    "].plugins: expected a list");
      }
      for (rapidjson::SizeType i = 0; i < plugins->Size(); ++i) {
        const auto& p = (*plugins)[i];
        const auto* name = p.IsObject() ? api::FindMember(p, "name") : nullptr;
        if (name == nullptr || !name->IsString()) {
          return InvalidArgumentError("scheduler config: tiers[" + std::to_string(t) +
                                      "].plugins[" + std::to_string(i) + "].name: required");
        }
        PluginOption opt{name->GetString(), {}};
        if (const auto* args = api::FindMember(p, "arguments"); args && args->IsObject()) {
          for (auto m = args->MemberBegin(); m != args->MemberEnd(); ++m) {
            std::string v =
                m->value.IsString() ? m->value.GetString() : api::ToJsonString(m->value);
            opt.arguments[m->name.GetString()] = v;
          }
        }
        out.plugins.push_back(std::move(opt));
      }
    }
  } else {
    out.plugins = def.plugins;
  }
  if (const auto* depth = api::FindMember(doc, "queueDepthPerAction"); depth && depth->IsObject()) {
    for (auto m = depth->MemberBegin(); m != depth->MemberEnd(); ++m) {
      if (!m->value.IsInt()) {
        return InvalidArgumentError(std::string("scheduler config: queueDepthPerAction.") +
                                    m->name.GetString() + ": expected an integer");
      }
      out.queue_depth_per_action[m->name.GetString()] = m->value.GetInt();
    }
  }
  if (const auto* budgets = api::FindMember(doc, "scenarioSearchBudgets")) {
    KAI_ASSIGN_OR_RETURN(api::ScenarioSearchBudgets parsed, SearchBudgetsFromJson(*budgets));
    KAI_RETURN_IF_ERROR(
        ApplySearchBudgets(parsed, "scheduler config: scenarioSearchBudgets", &out.search_budgets));
  }
  return out;
}

Status ConfigFromSchedulingShard(const api::SchedulingShard& shard, SchedulerConfiguration* conf,
                                 SchedulerParams* params) {
  const api::SchedulingShardSpec& spec = shard.spec;
  // Placement strategy (default binpack for both).
  std::string gpu_strategy = "binpack", cpu_strategy = "binpack";
  if (spec.placement_strategy) {
    if (spec.placement_strategy->gpu) gpu_strategy = *spec.placement_strategy->gpu;
    if (spec.placement_strategy->cpu) cpu_strategy = *spec.placement_strategy->cpu;
  }
  for (const auto& [s, field] : {std::pair{gpu_strategy, "gpu"}, std::pair{cpu_strategy, "cpu"}}) {
    if (s != "binpack" && s != "spread") {
      return InvalidArgumentError("SchedulingShard " + shard.metadata.name +
                                  ": spec.placementStrategy." + field +
                                  ": must be binpack or spread, got \"" + s + "\"");
    }
  }
  struct Entry {
    std::string name;
    int priority;
    bool enabled;
    std::map<std::string, std::string> args;
  };
  std::map<std::string, Entry> plugins;
  for (const auto& b : kBuiltinPlugins) {
    Entry e{b.name, b.priority, true, {}};
    std::string n = b.name;
    if (n == "gpupack" || n == "gpusharingorder") e.enabled = gpu_strategy == "binpack";
    if (n == "gpuspread") e.enabled = gpu_strategy != "binpack";
    if (n == "nodeplacement") e.args = {{"gpu", gpu_strategy}, {"cpu", cpu_strategy}};
    if (n == "proportion" && spec.k_value) e.args["kValue"] = std::to_string(*spec.k_value);
    if (n == "minruntime" && spec.min_runtime) {
      if (spec.min_runtime->preempt_min_runtime) {
        e.args["defaultPreemptMinRuntime"] = *spec.min_runtime->preempt_min_runtime;
      }
      if (spec.min_runtime->reclaim_min_runtime) {
        e.args["defaultReclaimMinRuntime"] = *spec.min_runtime->reclaim_min_runtime;
      }
    }
    plugins[n] = e;
  }
  for (const auto& [name, pc] : spec.plugins) {
    auto [it, inserted] = plugins.try_emplace(name, Entry{name, 0, true, {}});
    if (pc.enabled) it->second.enabled = *pc.enabled;
    if (pc.priority) it->second.priority = *pc.priority;
    if (pc.arguments) it->second.args = *pc.arguments;
  }
  std::vector<Entry> ordered;
  for (auto& [n, e] : plugins) {
    if (e.enabled) ordered.push_back(e);
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const Entry& a, const Entry& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.name < b.name;
  });
  conf->plugins.clear();
  for (auto& e : ordered) conf->plugins.push_back({e.name, e.args});

  std::map<std::string, Entry> actions;
  for (const auto& b : kBuiltinActions) {
    Entry e{b.name, b.priority, true, {}};
    if (std::string(b.name) == "consolidation") {
      e.enabled = gpu_strategy != "spread" && cpu_strategy != "spread";
    }
    actions[b.name] = e;
  }
  for (const auto& [name, ac] : spec.actions) {
    auto [it, inserted] = actions.try_emplace(name, Entry{name, 0, true, {}});
    if (ac.enabled) it->second.enabled = *ac.enabled;
    if (ac.priority) it->second.priority = *ac.priority;
  }
  std::vector<Entry> ordered_actions;
  for (auto& [n, e] : actions) {
    if (e.enabled) ordered_actions.push_back(e);
  }
  std::stable_sort(ordered_actions.begin(), ordered_actions.end(),
                   [](const Entry& a, const Entry& b) {
                     if (a.priority != b.priority) return a.priority > b.priority;
                     return a.name < b.name;
                   });
  conf->actions.clear();
  for (auto& e : ordered_actions) conf->actions.push_back(e.name);

  for (const auto& [action, depth] : spec.queue_depth_per_action) {
    if (std::find(conf->actions.begin(), conf->actions.end(), action) == conf->actions.end()) {
      return InvalidArgumentError("SchedulingShard " + shard.metadata.name +
                                  ": spec.queueDepthPerAction." + action +
                                  ": not an enabled action");
    }
    conf->queue_depth_per_action[action] = depth;
  }
  for (const auto& [flag, value] : spec.args) {
    Status s = params->SetFlag(flag, value);
    if (!s.ok()) {
      return InvalidArgumentError("SchedulingShard " + shard.metadata.name + ": spec.args." + flag +
                                  ": " + std::string(s.message()));
    }
  }
  if (!spec.partition_label_value.empty()) {
    params->partition_label_value = spec.partition_label_value;
  }
  conf->search_budgets = DefaultSearchBudgets();
  if (spec.scenario_search_budgets) {
    KAI_RETURN_IF_ERROR(ApplySearchBudgets(
        *spec.scenario_search_budgets,
        "SchedulingShard " + shard.metadata.name + ": spec.scenarioSearchBudgets",
        &conf->search_budgets));
  }
  return Status::OK();
}

}  // namespace kai::scheduler
