#include <gtest/gtest.h>

#include "api/kai_config.h"
#include "api/scheduling_shard.h"

namespace kai::api {
namespace {

using Strings = std::vector<std::string>;

std::string Q(const ResourceList& rl, const char* name) {
  auto it = rl.find(name);
  return it == rl.end() ? "<none>" : it->second.ToString();
}

TEST(ConfigDefaultsTest, EmptySpecGetsEveryGoDefault) {
  ConfigSpec spec;
  ApplyConfigDefaults(&spec, {.repository = "nvcr.io/nvidia/k8s/kai-scheduler", .tag = "v0.13.0"});
  EXPECT_EQ(spec.namespace_, "kai-scheduler");

  const GlobalConfig& g = *spec.global;
  EXPECT_EQ(g.openshift, false);
  EXPECT_EQ(g.queue_label_key, "kai.scheduler/queue");
  EXPECT_EQ(g.scheduler_name, "kai-scheduler");
  EXPECT_EQ(g.node_pool_label_key, "kai.scheduler/node-pool");
  EXPECT_EQ(g.require_default_pod_anti_affinity_term, false);
  EXPECT_EQ(g.security_context.json,
            R"({"allowPrivilegeEscalation":false,"runAsNonRoot":true,"runAsUser":10000,)"
            R"("capabilities":{"drop":["all"]}})");
  EXPECT_EQ(EffectiveSecurityContext(g).json, g.security_context.json);

  // Scheduler: operand-specific resources win over the generic ones.
  const ServiceSpec& s = *spec.scheduler->service;
  EXPECT_EQ(s.enabled, true);
  EXPECT_EQ(s.image->name, "scheduler");
  EXPECT_EQ(s.image->repository, "nvcr.io/nvidia/k8s/kai-scheduler");
  EXPECT_EQ(s.image->tag, "v0.13.0");
  EXPECT_EQ(s.image->pull_policy, "IfNotPresent");
  EXPECT_EQ(Q(s.resources->requests, "cpu"), "250m");
  EXPECT_EQ(Q(s.resources->requests, "memory"), "512Mi");
  EXPECT_EQ(Q(s.resources->limits, "cpu"), "700m");
  EXPECT_EQ(Q(s.resources->limits, "memory"), "512Mi");
  EXPECT_EQ(s.k8s_client_config->burst, 100);
  EXPECT_EQ(s.k8s_client_config->qps, 20);
  EXPECT_EQ(spec.scheduler->gogc, 400);
  EXPECT_EQ(spec.scheduler->scheduler_service->type, "ClusterIP");
  EXPECT_EQ(spec.scheduler->scheduler_service->port, 8080);
  EXPECT_EQ(spec.scheduler->scheduler_service->target_port, 8080);
  EXPECT_EQ(spec.scheduler->replicas, 1);

  // Binder.
  const BinderConfig& b = *spec.binder;
  EXPECT_EQ(b.service->image->name, "binder");
  EXPECT_EQ(Q(b.service->resources->requests, "cpu"), "50m");
  EXPECT_EQ(Q(b.service->resources->requests, "memory"), "200Mi");
  EXPECT_EQ(Q(b.service->resources->limits, "cpu"), "100m");
  EXPECT_EQ(Q(b.service->resources->limits, "memory"), "200Mi");
  EXPECT_EQ(b.probe_port, 8081);
  EXPECT_EQ(b.metrics_port, 8080);
  EXPECT_FALSE(b.cdi_enabled.has_value());  // auto-detected by the operator
  EXPECT_EQ(b.resource_reservation->image->name, "resource-reservation");
  EXPECT_EQ(b.resource_reservation->image->tag, "v0.13.0");
  EXPECT_EQ(b.resource_reservation->namespace_, "kai-resource-reservation");
  EXPECT_EQ(b.resource_reservation->service_account_name, "kai-resource-reservation");
  EXPECT_EQ(b.resource_reservation->app_label, "kai-resource-reservation");
  EXPECT_EQ(b.resource_reservation->runtime_class_name, "nvidia");

  // The shadowing quirk (§24.10): these get the generic 50m/256Mi - 100m/512Mi.
  for (const std::optional<ServiceSpec>* svc :
       {&spec.queue_controller->service, &spec.pod_group_controller->service,
        &spec.pod_grouper->service, &spec.admission->service, &spec.node_scale_adjuster->service}) {
    EXPECT_EQ(Q((*svc)->resources->requests, "cpu"), "50m");
    EXPECT_EQ(Q((*svc)->resources->requests, "memory"), "256Mi");
    EXPECT_EQ(Q((*svc)->resources->limits, "cpu"), "100m");
    EXPECT_EQ(Q((*svc)->resources->limits, "memory"), "512Mi");
    EXPECT_EQ((*svc)->enabled, true);
  }
  EXPECT_EQ(spec.queue_controller->service->image->name, "queuecontroller");
  EXPECT_EQ(spec.pod_group_controller->service->image->name, "podgroupcontroller");
  EXPECT_EQ(spec.pod_grouper->service->image->name, "podgrouper");
  EXPECT_EQ(spec.admission->service->image->name, "admission");
  EXPECT_EQ(spec.node_scale_adjuster->service->image->name, "nodescaleadjuster");

  // Ports and webhook names.
  const ControllerServiceSpec& qcs = *spec.queue_controller->controller_service;
  EXPECT_EQ(qcs.metrics, (PortMapping{8080, 8080, "metrics"}));
  EXPECT_EQ(qcs.webhook, (PortMapping{443, 9443, "webhook"}));
  EXPECT_EQ(spec.queue_controller->webhooks->enable_validation, true);
  EXPECT_EQ(spec.queue_controller->webhooks->webhook_configuration_name_prefix,
            "kai-queue-validation-");
  EXPECT_EQ(spec.pod_group_controller->controller_service->webhook,
            (PortMapping{443, 9443, "webhook"}));
  EXPECT_EQ(spec.pod_group_controller->webhooks->webhook_configuration_name_prefix,
            "kai-podgroup-validation-");
  const AdmissionConfig& adm = *spec.admission;
  EXPECT_EQ(adm.webhook, (AdmissionWebhookPorts{443, 9443, 8081, 8080}));
  EXPECT_EQ(adm.gpu_sharing, false);
  EXPECT_EQ(adm.queue_label_selector, false);
  EXPECT_EQ(adm.validating_webhook_configuration_name, "validating-kai-admission");
  EXPECT_EQ(adm.mutating_webhook_configuration_name, "mutating-kai-admission");
  EXPECT_EQ(adm.gpu_pod_runtime_class_name, "nvidia");

  // Node scale adjuster and Prometheus.
  const NodeScaleAdjusterArgs& nsa = *spec.node_scale_adjuster->args;
  EXPECT_EQ(nsa.scaling_pod_image->name, "scalingpod");
  EXPECT_EQ(nsa.node_scale_namespace, "kai-scale-adjust");
  EXPECT_EQ(nsa.node_scale_service_account, "kai-scale-adjust");
  const PrometheusConfig& p = *spec.prometheus;
  EXPECT_EQ(p.enabled, false);
  EXPECT_EQ(p.instance_name, "prometheus");
  EXPECT_EQ(p.retention_period, "2w");
  EXPECT_EQ(p.sample_interval, "1m");
  EXPECT_EQ(p.storage_class_name, "standard");
  EXPECT_FALSE(p.storage_size.has_value());  // 50Gi is applied where used
  EXPECT_EQ(p.service_monitor->enabled, true);
  EXPECT_EQ(p.service_monitor->interval, "30s");
  EXPECT_EQ(p.service_monitor->scrape_timeout, "10s");
  EXPECT_EQ(p.service_monitor->bearer_token_file,
            "/var/run/secrets/kubernetes.io/serviceaccount/token");
  EXPECT_EQ(p.external_prometheus_health_probe, (HealthProbeConfig{30, 10, 5}));
  EXPECT_EQ(p.accounting_label_key, "kai.scheduler/accounting");
  EXPECT_EQ(p.accounting_label_value, "true");
}

TEST(ConfigDefaultsTest, UserValuesWinAndDefaultingIsIdempotent) {
  ConfigSpec spec;
  spec.namespace_ = "kai";
  spec.global = GlobalConfig{};
  spec.global->replica_count = 3;
  spec.global->openshift = true;
  spec.global->security_context.json = R"({"runAsUser":2000,"capabilities":{"add":["NET_ADMIN"]}})";
  spec.global->images_pull_secret = "regcred";
  spec.global->additional_image_pull_secrets = {"other"};
  spec.scheduler = SchedulerConfig{};
  spec.scheduler->service = ServiceSpec{};
  spec.scheduler->service->resources = ResourceRequirements{};
  spec.scheduler->service->resources->limits["cpu"] = *Quantity::Parse("2");
  spec.scheduler->replicas = 2;
  spec.binder = BinderConfig{};
  spec.binder->service = ServiceSpec{.enabled = false};
  spec.binder->service->image = ImageSpec{.tag = "custom"};
  ApplyConfigDefaults(&spec, {.repository = "repo", .tag = "v1"});

  EXPECT_EQ(spec.namespace_, "kai");
  EXPECT_EQ(spec.global->security_context.json,
            R"({"runAsUser":2000,"capabilities":{"add":["NET_ADMIN"],"drop":["all"]},)"
            R"("allowPrivilegeEscalation":false,"runAsNonRoot":true})");
  EXPECT_TRUE(EffectiveSecurityContext(*spec.global).json.empty());  // OpenShift: none
  EXPECT_EQ(spec.global->additional_image_pull_secrets, (Strings{"other", "regcred"}));
  EXPECT_FALSE(spec.global->images_pull_secret.has_value());
  EXPECT_EQ(Q(spec.scheduler->service->resources->limits, "cpu"), "2");
  EXPECT_EQ(Q(spec.scheduler->service->resources->requests, "cpu"), "250m");
  EXPECT_EQ(spec.scheduler->replicas, 2);
  EXPECT_EQ(spec.binder->replicas, 3);  // global.replicaCount
  EXPECT_EQ(spec.admission->replicas, 3);
  EXPECT_EQ(spec.binder->service->enabled, false);
  EXPECT_EQ(spec.binder->service->image->tag, "custom");
  EXPECT_EQ(spec.binder->service->image->repository, "repo");

  ConfigSpec again = spec;
  ApplyConfigDefaults(&again, {.repository = "repo", .tag = "v1"});
  EXPECT_EQ(again, spec);
}

TEST(ShardDefaultsTest, DefaultPluginAndActionTables) {
  SchedulingShardSpec spec;
  ApplySchedulingShardDefaults(&spec);
  EXPECT_EQ(spec.placement_strategy->gpu, "binpack");
  EXPECT_EQ(spec.placement_strategy->cpu, "binpack");
  EXPECT_EQ(OrderedEnabledPlugins(spec),
            (Strings{"predicates", "proportion", "priority", "nodeavailability", "resourcetype",
                     "podaffinity", "elastic", "kubeflow", "ray", "subgrouporder", "taskorder",
                     "nominatednode", "dynamicresources", "minruntime", "topology", "snapshot",
                     "gpupack", "nodeplacement", "gpusharingorder"}));
  EXPECT_EQ(OrderedEnabledActions(spec),
            (Strings{"allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"}));
  EXPECT_EQ(spec.plugins.at("gpuspread").enabled, false);
  EXPECT_EQ(spec.plugins.at("gpuspread").priority, 300);
  EXPECT_EQ(*spec.plugins.at("nodeplacement").arguments,
            (std::map<std::string, std::string>{{"cpu", "binpack"}, {"gpu", "binpack"}}));
  EXPECT_TRUE(spec.plugins.at("proportion").arguments->empty());
}

TEST(ShardDefaultsTest, StrategiesArgumentsAndOverrides) {
  SchedulingShardSpec spec;
  spec.placement_strategy = PlacementStrategy{.gpu = "spread"};
  spec.k_value = 0.5;
  spec.min_runtime = MinRuntime{.preempt_min_runtime = "10m"};
  spec.plugins["taskorder"] = {.enabled = false};
  spec.plugins["predicates"] = {.priority = 50,
                                .arguments = std::map<std::string, std::string>{{"a", "b"}}};
  spec.plugins["myplugin"] = {};
  spec.plugins["zzz"] = {.priority = 0};
  spec.actions["preempt"] = {.enabled = false};
  spec.actions["custom"] = {.priority = 450};
  ApplySchedulingShardDefaults(&spec);

  EXPECT_EQ(spec.placement_strategy->cpu, "binpack");
  EXPECT_EQ((*spec.plugins.at("proportion").arguments).at("kValue"), "0.5");
  EXPECT_EQ(*spec.plugins.at("minruntime").arguments,
            (std::map<std::string, std::string>{{"defaultPreemptMinRuntime", "10m"}}));
  EXPECT_EQ((*spec.plugins.at("nodeplacement").arguments).at("gpu"), "spread");
  EXPECT_EQ(*spec.plugins.at("predicates").arguments,
            (std::map<std::string, std::string>{{"a", "b"}}));  // replaces the defaults
  EXPECT_EQ(spec.plugins.at("myplugin").enabled, true);
  EXPECT_EQ(spec.plugins.at("myplugin").priority, 0);
  EXPECT_FALSE(spec.plugins.at("myplugin").arguments.has_value());
  EXPECT_EQ(OrderedEnabledPlugins(spec),
            (Strings{"proportion", "priority", "nodeavailability", "resourcetype", "podaffinity",
                     "elastic", "kubeflow", "ray", "subgrouporder", "nominatednode",
                     "dynamicresources", "minruntime", "topology", "snapshot", "gpuspread",
                     "nodeplacement", "predicates", "myplugin", "zzz"}));
  // Consolidation is off when either strategy spreads.
  EXPECT_EQ(OrderedEnabledActions(spec),
            (Strings{"allocate", "custom", "reclaim", "stalegangeviction"}));

  SchedulingShardSpec cpu_spread;
  cpu_spread.placement_strategy = PlacementStrategy{.cpu = "spread"};
  ApplySchedulingShardDefaults(&cpu_spread);
  EXPECT_EQ(cpu_spread.actions.at("consolidation").enabled, false);
  EXPECT_EQ(cpu_spread.plugins.at("gpupack").enabled, true);

  SchedulingShardSpec again = spec;
  ApplySchedulingShardDefaults(&again);
  EXPECT_EQ(again, spec);

  SchedulingShardSpec big_k;
  big_k.k_value = 1e21;
  ApplySchedulingShardDefaults(&big_k);
  EXPECT_EQ((*big_k.plugins.at("proportion").arguments).at("kValue"), "1000000000000000000000");
}

}  // namespace
}  // namespace kai::api
