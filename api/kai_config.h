// Config (kai.scheduler/v1, cluster-scoped, only `kai-config` is reconciled): the operator's
// install interface. Defaults are applied in code, not in the CRD (kai-reference §2.4).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/affinity.h"
#include "api/codec.h"
#include "api/meta.h"
#include "api/resources.h"
#include "api/type_info.h"

namespace kai::api {

inline constexpr std::string_view kConfigName = "kai-config";

struct ImageSpec {
  std::optional<std::string> repository;
  std::optional<std::string> name;
  std::optional<std::string> tag;
  std::optional<std::string> pull_policy;
  bool operator==(const ImageSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("repository", s.repository);
    v("name", s.name);
    v("tag", s.tag);
    v("pullPolicy", s.pull_policy);
  }
};

struct K8sClientConfig {
  std::optional<int> burst;
  std::optional<int> qps;
  bool operator==(const K8sClientConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("burst", s.burst);
    v("qps", s.qps);
  }
};

// The `service` block every operand has.
struct ServiceSpec {
  std::optional<bool> enabled;
  std::optional<ImageSpec> image;
  std::optional<ResourceRequirements> resources;
  std::optional<K8sClientConfig> k8s_client_config;
  std::optional<Affinity> affinity;
  bool operator==(const ServiceSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("enabled", s.enabled);
    v("image", s.image);
    v("resources", s.resources);
    v("k8sClientConfig", s.k8s_client_config);
    v("affinity", s.affinity);
  }
};

struct PortMapping {
  std::optional<int> port;
  std::optional<int> target_port;
  std::optional<std::string> name;
  bool operator==(const PortMapping&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("port", s.port);
    v("targetPort", s.target_port);
    v("name", s.name);
  }
};

struct GlobalConfig {
  std::optional<bool> openshift;
  std::optional<Affinity> affinity;
  std::optional<bool> require_default_pod_anti_affinity_term;
  RawJson security_context;                       // core/v1 SecurityContext
  std::optional<std::string> images_pull_secret;  // Helm's single-secret spelling (§24.12)
  std::vector<std::string> additional_image_pull_secrets;
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
  std::vector<Toleration> daemonsets_tolerations;
  std::optional<int32_t> replica_count;
  std::optional<std::string> queue_label_key;
  std::optional<std::string> scheduler_name;
  std::optional<std::string> node_pool_label_key;
  std::map<std::string, std::string> namespace_label_selector;
  std::map<std::string, std::string> pod_label_selector;
  bool operator==(const GlobalConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("openshift", s.openshift);
    v("affinity", s.affinity);
    v("requireDefaultPodAntiAffinityTerm", s.require_default_pod_anti_affinity_term);
    v("securityContext", s.security_context);
    v("imagesPullSecret", s.images_pull_secret);
    v("additionalImagePullSecrets", s.additional_image_pull_secrets);
    v("nodeSelector", s.node_selector);
    v("tolerations", s.tolerations);
    v("daemonsetsTolerations", s.daemonsets_tolerations);
    v("replicaCount", s.replica_count);
    v("queueLabelKey", s.queue_label_key);
    v("schedulerName", s.scheduler_name);
    v("nodePoolLabelKey", s.node_pool_label_key);
    v("namespaceLabelSelector", s.namespace_label_selector);
    v("podLabelSelector", s.pod_label_selector);
  }
};

struct PodGrouperArgs {
  std::optional<bool> gang_schedule_knative;
  std::optional<std::string> default_priorities_config_map_name;
  std::optional<std::string> default_priorities_config_map_namespace;
  bool operator==(const PodGrouperArgs&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("gangScheduleKnative", s.gang_schedule_knative);
    v("defaultPrioritiesConfigMapName", s.default_priorities_config_map_name);
    v("defaultPrioritiesConfigMapNamespace", s.default_priorities_config_map_namespace);
  }
};

struct PodGrouperConfig {
  std::optional<ServiceSpec> service;
  std::optional<PodGrouperArgs> args;
  std::optional<int> max_concurrent_reconciles;
  std::optional<int32_t> replicas;
  bool operator==(const PodGrouperConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("service", s.service);
    v("args", s.args);
    v("maxConcurrentReconciles", s.max_concurrent_reconciles);
    v("replicas", s.replicas);
  }
};

struct ResourceReservationConfig {
  std::optional<ImageSpec> image;
  std::optional<int> allocation_timeout;  // seconds
  std::optional<std::string> namespace_;
  std::optional<std::string> service_account_name;
  std::optional<std::string> app_label;
  std::optional<std::string> runtime_class_name;
  std::optional<ResourceRequirements> pod_resources;
  bool operator==(const ResourceReservationConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("image", s.image);
    v("allocationTimeout", s.allocation_timeout);
    v("namespace", s.namespace_);
    v("serviceAccountName", s.service_account_name);
    v("appLabel", s.app_label);
    v("runtimeClassName", s.runtime_class_name);
    v("podResources", s.pod_resources);
  }
};

struct BinderConfig {
  std::optional<ServiceSpec> service;
  std::optional<ResourceReservationConfig> resource_reservation;
  std::optional<int32_t> replicas;
  std::optional<int> max_concurrent_reconciles;
  std::optional<int> volume_binding_timeout_seconds;
  std::optional<int> probe_port;
  std::optional<int> metrics_port;
  std::optional<bool> cdi_enabled;  // unset: auto-detect from the GPU operator's ClusterPolicy
  bool operator==(const BinderConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("service", s.service);
    v("resourceReservation", s.resource_reservation);
    v("replicas", s.replicas);
    v("maxConcurrentReconciles", s.max_concurrent_reconciles);
    v("volumeBindingTimeoutSeconds", s.volume_binding_timeout_seconds);
    v("probePort", s.probe_port);
    v("metricsPort", s.metrics_port);
    v("cdiEnabled", s.cdi_enabled);
  }
};

struct AdmissionWebhookPorts {
  std::optional<int> port;
  std::optional<int> target_port;
  std::optional<int> probe_port;
  std::optional<int> metrics_port;
  bool operator==(const AdmissionWebhookPorts&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("port", s.port);
    v("targetPort", s.target_port);
    v("probePort", s.probe_port);
    v("metricsPort", s.metrics_port);
  }
};

struct AdmissionConfig {
  std::optional<ServiceSpec> service;
  std::optional<AdmissionWebhookPorts> webhook;
  std::optional<int32_t> replicas;
  std::optional<bool> gpu_sharing;
  std::optional<bool> queue_label_selector;
  std::optional<std::string> validating_webhook_configuration_name;
  std::optional<std::string> mutating_webhook_configuration_name;
  std::optional<std::string> gpu_pod_runtime_class_name;
  bool operator==(const AdmissionConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("service", s.service);
    v("webhook", s.webhook);
    v("replicas", s.replicas);
    v("gpuSharing", s.gpu_sharing);
    v("queueLabelSelector", s.queue_label_selector);
    v("validatingWebhookConfigurationName", s.validating_webhook_configuration_name);
    v("mutatingWebhookConfigurationName", s.mutating_webhook_configuration_name);
    v("gpuPodRuntimeClassName", s.gpu_pod_runtime_class_name);
  }
};

struct SchedulerServiceSpec {
  std::optional<std::string> type;
  std::optional<int> port;
  std::optional<int> target_port;
  bool operator==(const SchedulerServiceSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("port", s.port);
    v("targetPort", s.target_port);
  }
};

struct SchedulerConfig {
  std::optional<ServiceSpec> service;
  std::optional<int> gogc;  // JSON "GOGC"
  std::optional<SchedulerServiceSpec> scheduler_service;
  std::optional<int32_t> replicas;
  bool operator==(const SchedulerConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("service", s.service);
    v("GOGC", s.gogc);
    v("schedulerService", s.scheduler_service);
    v("replicas", s.replicas);
  }
};

struct ControllerWebhooks {
  std::optional<bool> enable_validation;
  std::optional<std::string> webhook_configuration_name_prefix;
  bool operator==(const ControllerWebhooks&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("enableValidation", s.enable_validation);
    v("webhookConfigurationNamePrefix", s.webhook_configuration_name_prefix);
  }
};

struct ControllerServiceSpec {
  std::optional<PortMapping> metrics;
  std::optional<PortMapping> webhook;
  bool operator==(const ControllerServiceSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metrics", s.metrics);
    v("webhook", s.webhook);
  }
};

struct QueueControllerConfig {
  std::optional<ServiceSpec> service;
  std::optional<ControllerServiceSpec> controller_service;
  std::optional<ControllerWebhooks> webhooks;
  std::optional<int32_t> replicas;
  std::optional<std::string> metrics_namespace;
  std::optional<std::string> queue_label_to_metric_label;
  std::optional<std::string> queue_label_to_default_metric_value;
  bool operator==(const QueueControllerConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("service", s.service);
    v("controllerService", s.controller_service);
    v("webhooks", s.webhooks);
    v("replicas", s.replicas);
    v("metricsNamespace", s.metrics_namespace);
    v("queueLabelToMetricLabel", s.queue_label_to_metric_label);
    v("queueLabelToDefaultMetricValue", s.queue_label_to_default_metric_value);
  }
};

struct PodGroupControllerConfig {
  std::optional<ServiceSpec> service;
  std::optional<ControllerServiceSpec> controller_service;
  std::optional<int> max_concurrent_reconciles;
  std::optional<ControllerWebhooks> webhooks;
  std::optional<int32_t> replicas;
  bool operator==(const PodGroupControllerConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("service", s.service);
    v("controllerService", s.controller_service);
    v("maxConcurrentReconciles", s.max_concurrent_reconciles);
    v("webhooks", s.webhooks);
    v("replicas", s.replicas);
  }
};

struct NodeScaleAdjusterArgs {
  std::optional<ImageSpec> scaling_pod_image;
  std::optional<std::string> node_scale_namespace;
  std::optional<std::string> node_scale_service_account;
  std::optional<double> gpu_memory_to_fraction_ratio;
  bool operator==(const NodeScaleAdjusterArgs&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("scalingPodImage", s.scaling_pod_image);
    v("nodeScaleNamespace", s.node_scale_namespace);
    v("nodeScaleServiceAccount", s.node_scale_service_account);
    v("gpuMemoryToFractionRatio", s.gpu_memory_to_fraction_ratio);
  }
};

struct NodeScaleAdjusterConfig {
  std::optional<ServiceSpec> service;
  std::optional<NodeScaleAdjusterArgs> args;
  bool operator==(const NodeScaleAdjusterConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("service", s.service);
    v("args", s.args);
  }
};

struct ServiceMonitorConfig {
  std::optional<bool> enabled;
  std::optional<std::string> interval;
  std::optional<std::string> scrape_timeout;
  std::optional<std::string> bearer_token_file;
  bool operator==(const ServiceMonitorConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("enabled", s.enabled);
    v("interval", s.interval);
    v("scrapeTimeout", s.scrape_timeout);
    v("bearerTokenFile", s.bearer_token_file);
  }
};

struct HealthProbeConfig {
  std::optional<int> interval;  // seconds
  std::optional<int> timeout;   // seconds
  std::optional<int> max_retries;
  bool operator==(const HealthProbeConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("interval", s.interval);
    v("timeout", s.timeout);
    v("maxRetries", s.max_retries);
  }
};

struct PrometheusConfig {
  std::optional<bool> enabled;
  std::optional<std::string> instance_name;
  std::optional<std::string> retention_period;
  std::optional<std::string> sample_interval;
  std::optional<std::string> storage_class_name;
  std::optional<std::string> storage_size;
  std::optional<bool> enable_persistent_storage;
  std::optional<ServiceMonitorConfig> service_monitor;
  std::optional<std::string> external_prometheus_url;
  std::optional<HealthProbeConfig> external_prometheus_health_probe;
  std::optional<std::string> accounting_label_key;
  std::optional<std::string> accounting_label_value;
  bool operator==(const PrometheusConfig&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("enabled", s.enabled);
    v("instanceName", s.instance_name);
    v("retentionPeriod", s.retention_period);
    v("sampleInterval", s.sample_interval);
    v("storageClassName", s.storage_class_name);
    v("storageSize", s.storage_size);
    v("enablePersistentStorage", s.enable_persistent_storage);
    v("serviceMonitor", s.service_monitor);
    v("externalPrometheusUrl", s.external_prometheus_url);
    v("externalPrometheusHealthProbe", s.external_prometheus_health_probe);
    v("accountingLabelKey", s.accounting_label_key);
    v("accountingLabelValue", s.accounting_label_value);
  }
};

struct ConfigSpec {
  std::string namespace_;  // default kai-scheduler
  std::optional<GlobalConfig> global;
  std::optional<PodGrouperConfig> pod_grouper;
  std::optional<BinderConfig> binder;
  std::optional<AdmissionConfig> admission;
  std::optional<SchedulerConfig> scheduler;
  std::optional<QueueControllerConfig> queue_controller;
  std::optional<PodGroupControllerConfig> pod_group_controller;
  std::optional<NodeScaleAdjusterConfig> node_scale_adjuster;
  std::optional<PrometheusConfig> prometheus;
  bool operator==(const ConfigSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("namespace", s.namespace_);
    v("global", s.global);
    v("podGrouper", s.pod_grouper);
    v("binder", s.binder);
    v("admission", s.admission);
    v("scheduler", s.scheduler);
    v("queueController", s.queue_controller);
    v("podGroupController", s.pod_group_controller);
    v("nodeScaleAdjuster", s.node_scale_adjuster);
    v("prometheus", s.prometheus);
  }
};

struct ConfigStatus {
  std::vector<Condition> conditions;
  bool operator==(const ConfigStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("conditions", s.conditions);
  }
};

struct Config {
  static constexpr TypeInfo kTypeInfo{"kai.scheduler", "v1", "Config", "configs", false};
  ObjectMeta metadata;
  ConfigSpec spec;
  ConfigStatus status;
  RawDocument raw;
  bool operator==(const Config&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
    v("status", s.status);
  }
};
KAI_API_DECLARE_CODEC(Config);

// Image defaults come from the operator's environment (MS_REPOSITORY / MS_TAG).
struct ImageDefaults {
  std::string repository;
  std::string tag;
};

// The Go SetDefaultsWhereNeeded of every operand (kai-reference §2.4), including the effective
// generic resource defaults (50m/256Mi requests, 100m/512Mi limits) and operand-specific ones
// (scheduler 250m/512Mi - 700m/512Mi, binder 50m/200Mi - 100m/200Mi).
void ApplyConfigDefaults(ConfigSpec* spec, const ImageDefaults& images);

}  // namespace kai::api
