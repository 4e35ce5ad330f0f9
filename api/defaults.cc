// Go defaulting of the operator's Config (kai-reference §2.4) and of SchedulingShard (§2.5).
#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <utility>

#include "api/kai_config.h"
#include "api/rapidjson_util.h"
#include "api/scheduling_shard.h"
#include "api/well_known.h"

namespace kai::api {
namespace {

template <class T, class U>
void SetDefault(std::optional<T>* field, U&& value) {
  if (!field->has_value()) *field = std::forward<U>(value);
}

// Ensures the optional holds a value and returns it.
template <class T>
T& Ensure(std::optional<T>* field) {
  if (!field->has_value()) field->emplace();
  return **field;
}

Quantity Q(std::string_view s) { return *Quantity::Parse(s); }

void SetDefaultQuantity(ResourceList* list, std::string_view name, std::string_view value) {
  if (list->find(std::string(name)) == list->end()) list->emplace(std::string(name), Q(value));
}

// common.Image.SetDefaultsWhereNeeded
void DefaultImage(ImageSpec* image, const ImageDefaults& images) {
  SetDefault(&image->repository, images.repository);
  SetDefault(&image->tag, images.tag);
  SetDefault(&image->pull_policy, std::string("IfNotPresent"));
}

void DefaultImage(std::optional<ImageSpec>* image, std::string_view name,
                  const ImageDefaults& images) {
  ImageSpec& i = Ensure(image);
  SetDefault(&i.name, std::string(name));
  DefaultImage(&i, images);
}

// Operand-specific resource defaults, applied before the generic ones (scheduler, binder).
void DefaultResources(ServiceSpec* service, std::string_view req_cpu, std::string_view req_mem,
                      std::string_view lim_cpu, std::string_view lim_mem) {
  ResourceRequirements& r = Ensure(&service->resources);
  SetDefaultQuantity(&r.requests, kResourceCpu, req_cpu);
  SetDefaultQuantity(&r.requests, kResourceMemory, req_mem);
  SetDefaultQuantity(&r.limits, kResourceCpu, lim_cpu);
  SetDefaultQuantity(&r.limits, kResourceMemory, lim_mem);
}

// common.Service.SetDefaultsWhereNeeded(imageName)
void DefaultService(std::optional<ServiceSpec>* field, std::string_view image_name,
                    const ImageDefaults& images) {
  ServiceSpec& s = Ensure(field);
  SetDefault(&s.enabled, true);
  DefaultImage(&s.image, image_name, images);
  // The generic defaults fill whatever is still missing. Operands whose Go code declares lower
  // defaults after this call (queue controller, podgroup controller, pod grouper) never see
  // them take effect: kai-reference §24.10; we reproduce the effective values.
  DefaultResources(&s, "50m", "256Mi", "100m", "512Mi");
  K8sClientConfig& client = Ensure(&s.k8s_client_config);
  SetDefault(&client.burst, 100);
  SetDefault(&client.qps, 20);
}

void DefaultPortMapping(std::optional<PortMapping>* field, int port, int target_port,
                        std::string_view name) {
  PortMapping& p = Ensure(field);
  SetDefault(&p.port, port);
  SetDefault(&p.target_port, target_port);
  SetDefault(&p.name, std::string(name));
}

void DefaultWebhooks(std::optional<ControllerWebhooks>* field, std::string_view prefix) {
  ControllerWebhooks& w = Ensure(field);
  SetDefault(&w.enable_validation, true);
  SetDefault(&w.webhook_configuration_name_prefix, std::string(prefix));
}

// Fills the default container security context into whatever the user gave.
std::string DefaultSecurityContext(const std::string& user_json) {
  rapidjson::Document doc;
  if (user_json.empty() || !ParseJson(user_json, &doc).ok() || !doc.IsObject()) doc.SetObject();
  auto& a = doc.GetAllocator();
  const auto set_if_absent = [&](const char* key, rapidjson::Value v) {
    if (FindMember(doc, key) == nullptr) {
      doc.RemoveMember(key);  // a null member counts as absent
      doc.AddMember(rapidjson::StringRef(key), v, a);
    }
  };
  set_if_absent("allowPrivilegeEscalation", rapidjson::Value(false));
  set_if_absent("runAsNonRoot", rapidjson::Value(true));
  set_if_absent("runAsUser", rapidjson::Value(int64_t{10000}));
  if (FindMember(doc, "capabilities") == nullptr || !doc["capabilities"].IsObject()) {
    doc.RemoveMember("capabilities");
    doc.AddMember("capabilities", rapidjson::Value(rapidjson::kObjectType), a);
  }
  rapidjson::Value& caps = doc["capabilities"];
  const rapidjson::Value* drop = FindMember(caps, "drop");
  if (drop == nullptr || !drop->IsArray() || drop->Empty()) {
    caps.RemoveMember("drop");
    rapidjson::Value all(rapidjson::kArrayType);
    all.PushBack("all", a);  // Go: []v1.Capability{"all"}
    caps.AddMember("drop", all, a);
  }
  return ToJsonString(doc);
}

void DefaultGlobal(GlobalConfig* g) {
  SetDefault(&g->openshift, false);
  g->security_context.json = DefaultSecurityContext(g->security_context.json);
  // Helm's single-secret spelling is folded into the list (and cleared), as the Go code does.
  if (g->images_pull_secret && !g->images_pull_secret->empty()) {
    auto& list = g->additional_image_pull_secrets;
    if (std::find(list.begin(), list.end(), *g->images_pull_secret) == list.end()) {
      list.push_back(*g->images_pull_secret);
    }
  }
  g->images_pull_secret.reset();
  SetDefault(&g->queue_label_key, std::string(kDefaultQueueLabelKey));
  SetDefault(&g->scheduler_name, std::string(kDefaultSchedulerName));
  SetDefault(&g->node_pool_label_key, std::string(kDefaultNodePoolLabelKey));
  SetDefault(&g->require_default_pod_anti_affinity_term, false);
}

std::string FormatGoFloat(double v) {
  // strconv.FormatFloat(v, 'f', -1, 64): shortest round-trip digits, never an exponent.
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return std::string(buf, res.ptr);
}

constexpr std::pair<std::string_view, int> kDefaultPluginPriorities[] = {
    {"predicates", 1900},       {"proportion", 1800},     {"priority", 1700},
    {"nodeavailability", 1600}, {"resourcetype", 1500},   {"podaffinity", 1400},
    {"elastic", 1300},          {"kubeflow", 1200},       {"ray", 1100},
    {"subgrouporder", 1000},    {"taskorder", 900},       {"nominatednode", 800},
    {"dynamicresources", 700},  {"minruntime", 600},      {"topology", 500},
    {"snapshot", 400},          {"gpupack", 300},         {"gpuspread", 300},
    {"nodeplacement", 200},     {"gpusharingorder", 100},
};

constexpr std::pair<std::string_view, int> kDefaultActionPriorities[] = {
    {"allocate", 500}, {"consolidation", 400},     {"reclaim", 300},
    {"preempt", 200},  {"stalegangeviction", 100},
};

template <class Config>
std::vector<std::string> OrderedEnabled(const std::map<std::string, Config>& configs) {
  std::vector<std::pair<int, std::string>> enabled;
  for (const auto& [name, c] : configs) {
    if (c.enabled.value_or(true)) enabled.emplace_back(c.priority.value_or(0), name);
  }
  std::sort(enabled.begin(), enabled.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> out;
  out.reserve(enabled.size());
  for (auto& [priority, name] : enabled) out.push_back(std::move(name));
  return out;
}

}  // namespace

ImageDefaults ImageDefaults::FromEnvironment() {
  const char* repo = std::getenv("MS_REPOSITORY");
  const char* tag = std::getenv("MS_TAG");
  return {repo ? repo : "", tag ? tag : ""};
}

void ApplyConfigDefaults(ConfigSpec* spec, const ImageDefaults& images) {
  if (spec->namespace_.empty()) spec->namespace_ = std::string(kDefaultKaiNamespace);
  GlobalConfig& global = Ensure(&spec->global);
  DefaultGlobal(&global);
  const int32_t replicas = global.replica_count.value_or(1);

  QueueControllerConfig& qc = Ensure(&spec->queue_controller);
  DefaultService(&qc.service, "queuecontroller", images);
  ControllerServiceSpec& qc_svc = Ensure(&qc.controller_service);
  DefaultPortMapping(&qc_svc.metrics, 8080, 8080, "metrics");
  DefaultPortMapping(&qc_svc.webhook, 443, 9443, "webhook");
  DefaultWebhooks(&qc.webhooks, "kai-queue-validation-");
  SetDefault(&qc.replicas, replicas);
  SetDefault(&qc.metrics_namespace, std::string("kai"));

  BinderConfig& binder = Ensure(&spec->binder);
  DefaultResources(&Ensure(&binder.service), "50m", "200Mi", "100m", "200Mi");
  DefaultService(&binder.service, "binder", images);
  SetDefault(&binder.replicas, replicas);
  ResourceReservationConfig& rr = Ensure(&binder.resource_reservation);
  DefaultImage(&rr.image, "resource-reservation", images);
  SetDefault(&rr.namespace_, std::string(kDefaultResourceReservationName));
  SetDefault(&rr.service_account_name, std::string(kDefaultResourceReservationName));
  SetDefault(&rr.app_label, std::string(kDefaultResourceReservationName));
  SetDefault(&rr.runtime_class_name, std::string("nvidia"));
  SetDefault(&binder.probe_port, 8081);
  SetDefault(&binder.metrics_port, 8080);

  PodGrouperConfig& pg = Ensure(&spec->pod_grouper);
  DefaultService(&pg.service, "podgrouper", images);
  SetDefault(&pg.replicas, replicas);

  SchedulerConfig& sched = Ensure(&spec->scheduler);
  DefaultResources(&Ensure(&sched.service), "250m", "512Mi", "700m", "512Mi");
  DefaultService(&sched.service, "scheduler", images);
  SetDefault(&sched.gogc, 400);
  SchedulerServiceSpec& sched_svc = Ensure(&sched.scheduler_service);
  SetDefault(&sched_svc.type, std::string("ClusterIP"));
  SetDefault(&sched_svc.port, 8080);
  SetDefault(&sched_svc.target_port, 8080);
  SetDefault(&sched.replicas, replicas);

  PodGroupControllerConfig& pgc = Ensure(&spec->pod_group_controller);
  DefaultService(&pgc.service, "podgroupcontroller", images);
  DefaultPortMapping(&Ensure(&pgc.controller_service).webhook, 443, 9443, "webhook");
  DefaultWebhooks(&pgc.webhooks, "kai-podgroup-validation-");
  SetDefault(&pgc.replicas, replicas);

  AdmissionConfig& adm = Ensure(&spec->admission);
  DefaultService(&adm.service, "admission", images);
  AdmissionWebhookPorts& ports = Ensure(&adm.webhook);
  SetDefault(&ports.port, 443);
  SetDefault(&ports.target_port, 9443);
  SetDefault(&ports.probe_port, 8081);
  SetDefault(&ports.metrics_port, 8080);
  SetDefault(&adm.replicas, replicas);
  SetDefault(&adm.gpu_sharing, false);
  SetDefault(&adm.queue_label_selector, false);
  SetDefault(&adm.validating_webhook_configuration_name, std::string("validating-kai-admission"));
  SetDefault(&adm.mutating_webhook_configuration_name, std::string("mutating-kai-admission"));
  SetDefault(&adm.gpu_pod_runtime_class_name, std::string("nvidia"));

  NodeScaleAdjusterConfig& nsa = Ensure(&spec->node_scale_adjuster);
  DefaultService(&nsa.service, "nodescaleadjuster", images);
  NodeScaleAdjusterArgs& nsa_args = Ensure(&nsa.args);
  DefaultImage(&nsa_args.scaling_pod_image, "scalingpod", images);
  SetDefault(&nsa_args.node_scale_namespace, std::string(kDefaultScaleAdjustNamespace));
  SetDefault(&nsa_args.node_scale_service_account, std::string(kDefaultScaleAdjustNamespace));

  PrometheusConfig& prom = Ensure(&spec->prometheus);
  SetDefault(&prom.enabled, false);
  SetDefault(&prom.instance_name, std::string("prometheus"));
  SetDefault(&prom.retention_period, std::string("2w"));
  SetDefault(&prom.sample_interval, std::string("1m"));
  SetDefault(&prom.storage_class_name, std::string("standard"));
  ServiceMonitorConfig& sm = Ensure(&prom.service_monitor);
  SetDefault(&sm.enabled, true);
  SetDefault(&sm.interval, std::string("30s"));
  SetDefault(&sm.scrape_timeout, std::string("10s"));
  SetDefault(&sm.bearer_token_file,
             std::string("/var/run/secrets/kubernetes.io/serviceaccount/token"));
  HealthProbeConfig& probe = Ensure(&prom.external_prometheus_health_probe);
  SetDefault(&probe.interval, 30);
  SetDefault(&probe.timeout, 10);
  SetDefault(&probe.max_retries, 5);
  SetDefault(&prom.accounting_label_key, std::string("kai.scheduler/accounting"));
  SetDefault(&prom.accounting_label_value, std::string("true"));
}

RawJson EffectiveSecurityContext(const GlobalConfig& global) {
  if (global.openshift.value_or(false)) return {};
  return global.security_context;
}

void ApplySchedulingShardDefaults(SchedulingShardSpec* spec) {
  PlacementStrategy& strategy = Ensure(&spec->placement_strategy);
  SetDefault(&strategy.gpu, std::string("binpack"));
  SetDefault(&strategy.cpu, std::string("binpack"));
  const bool gpu_binpack = *strategy.gpu == "binpack";

  std::map<std::string, PluginConfig> plugins;
  for (const auto& [name, priority] : kDefaultPluginPriorities) {
    plugins[std::string(name)] = {
        .enabled = true, .priority = priority, .arguments = std::map<std::string, std::string>{}};
  }
  plugins["gpusharingorder"].enabled = gpu_binpack;
  plugins["gpupack"].enabled = gpu_binpack;
  plugins["gpuspread"].enabled = !gpu_binpack;
  if (spec->k_value) (*plugins["proportion"].arguments)["kValue"] = FormatGoFloat(*spec->k_value);
  if (spec->min_runtime) {
    auto& args = *plugins["minruntime"].arguments;
    if (spec->min_runtime->preempt_min_runtime) {
      args["defaultPreemptMinRuntime"] = *spec->min_runtime->preempt_min_runtime;
    }
    if (spec->min_runtime->reclaim_min_runtime) {
      args["defaultReclaimMinRuntime"] = *spec->min_runtime->reclaim_min_runtime;
    }
  }
  (*plugins["nodeplacement"].arguments)["gpu"] = *strategy.gpu;
  (*plugins["nodeplacement"].arguments)["cpu"] = *strategy.cpu;
  for (const auto& [name, override_config] : spec->plugins) {
    auto it = plugins.find(name);
    if (it == plugins.end()) {
      it = plugins.emplace(name, PluginConfig{.enabled = true, .priority = 0}).first;
    }
    if (override_config.enabled) it->second.enabled = override_config.enabled;
    if (override_config.priority) it->second.priority = override_config.priority;
    if (override_config.arguments) it->second.arguments = override_config.arguments;
  }
  spec->plugins = std::move(plugins);

  std::map<std::string, ActionConfig> actions;
  for (const auto& [name, priority] : kDefaultActionPriorities) {
    actions[std::string(name)] = {.enabled = true, .priority = priority};
  }
  actions["consolidation"].enabled = *strategy.gpu != "spread" && *strategy.cpu != "spread";
  for (const auto& [name, override_config] : spec->actions) {
    auto it = actions.find(name);
    if (it == actions.end()) {
      it = actions.emplace(name, ActionConfig{.enabled = true, .priority = 0}).first;
    }
    if (override_config.enabled) it->second.enabled = override_config.enabled;
    if (override_config.priority) it->second.priority = override_config.priority;
  }
  spec->actions = std::move(actions);
}

std::vector<std::string> OrderedEnabledPlugins(const SchedulingShardSpec& defaulted) {
  return OrderedEnabled(defaulted.plugins);
}

std::vector<std::string> OrderedEnabledActions(const SchedulingShardSpec& defaulted) {
  return OrderedEnabled(defaulted.actions);
}

}  // namespace kai::api
