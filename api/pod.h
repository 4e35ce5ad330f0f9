// Pod (core/v1): the fields the scheduler, binder, podgrouper, admission and status controllers
// read or write. Everything else survives round trips through RawDocument.
#pragma once

#include <cstdint>
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

struct ConfigMapKeySelector {
  std::string name;
  std::string key;
  std::optional<bool> optional;
  bool operator==(const ConfigMapKeySelector&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("key", s.key);
    v("optional", s.optional);
  }
};

struct EnvVarSource {
  std::optional<ConfigMapKeySelector> config_map_key_ref;
  RawJson field_ref;
  RawJson resource_field_ref;
  RawJson secret_key_ref;
  bool operator==(const EnvVarSource&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("configMapKeyRef", s.config_map_key_ref);
    v("fieldRef", s.field_ref);
    v("resourceFieldRef", s.resource_field_ref);
    v("secretKeyRef", s.secret_key_ref);
  }
};

struct EnvVar {
  std::string name;
  std::string value;
  std::optional<EnvVarSource> value_from;
  bool operator==(const EnvVar&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("value", s.value);
    v("valueFrom", s.value_from);
  }
};

struct ConfigMapEnvSource {
  std::string name;
  std::optional<bool> optional;
  bool operator==(const ConfigMapEnvSource&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("optional", s.optional);
  }
};

struct EnvFromSource {
  std::string prefix;
  std::optional<ConfigMapEnvSource> config_map_ref;
  RawJson secret_ref;
  bool operator==(const EnvFromSource&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("prefix", s.prefix);
    v("configMapRef", s.config_map_ref);
    v("secretRef", s.secret_ref);
  }
};

struct ContainerPort {
  std::string name;
  int32_t host_port = 0;
  int32_t container_port = 0;
  std::string protocol;  // TCP (default), UDP, SCTP
  std::string host_ip;
  bool operator==(const ContainerPort&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("hostPort", s.host_port);
    v("containerPort", s.container_port);
    v("protocol", s.protocol);
    v("hostIP", s.host_ip);
  }
};

struct VolumeMount {
  std::string name;
  std::string mount_path;
  bool read_only = false;
  std::string sub_path;
  bool operator==(const VolumeMount&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("mountPath", s.mount_path);
    v("readOnly", s.read_only);
    v("subPath", s.sub_path);
  }
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  std::vector<EnvFromSource> env_from;
  std::vector<ContainerPort> ports;
  ResourceRequirements resources;
  std::vector<VolumeMount> volume_mounts;
  // "Always" on an init container makes it a native sidecar (counts like a regular container).
  std::string restart_policy;
  std::string image_pull_policy;
  RawJson security_context;
  bool operator==(const Container&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("image", s.image);
    v("command", s.command);
    v("args", s.args);
    v("env", s.env);
    v("envFrom", s.env_from);
    v("ports", s.ports);
    v("resources", s.resources);
    v("volumeMounts", s.volume_mounts);
    v("restartPolicy", s.restart_policy);
    v("imagePullPolicy", s.image_pull_policy);
    v("securityContext", s.security_context);
  }
};

struct ConfigMapVolumeSource {
  std::string name;
  std::optional<bool> optional;
  bool operator==(const ConfigMapVolumeSource&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("optional", s.optional);
  }
};

struct PersistentVolumeClaimVolumeSource {
  std::string claim_name;
  bool read_only = false;
  bool operator==(const PersistentVolumeClaimVolumeSource&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("claimName", s.claim_name);
    v("readOnly", s.read_only);
  }
};

// The volume sources that matter for scheduling are typed; other sources stay in the raw
// document (and are visible here only as "some other source").
struct Volume {
  std::string name;
  std::optional<ConfigMapVolumeSource> config_map;
  std::optional<PersistentVolumeClaimVolumeSource> persistent_volume_claim;
  RawJson ephemeral;
  RawJson host_path;
  RawJson empty_dir;
  RawJson secret;
  bool operator==(const Volume&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("configMap", s.config_map);
    v("persistentVolumeClaim", s.persistent_volume_claim);
    v("ephemeral", s.ephemeral);
    v("hostPath", s.host_path);
    v("emptyDir", s.empty_dir);
    v("secret", s.secret);
  }
};

struct PodSchedulingGate {
  std::string name;
  bool operator==(const PodSchedulingGate&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
  }
};

// DRA: spec.resourceClaims[].
struct PodResourceClaim {
  std::string name;
  std::string resource_claim_name;
  std::string resource_claim_template_name;
  bool operator==(const PodResourceClaim&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("resourceClaimName", s.resource_claim_name);
    v("resourceClaimTemplateName", s.resource_claim_template_name);
  }
};

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  bool operator==(const TopologySpreadConstraint&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("maxSkew", s.max_skew);
    v("topologyKey", s.topology_key);
    v("whenUnsatisfiable", s.when_unsatisfiable);
    v("labelSelector", s.label_selector);
    v("minDomains", s.min_domains);
  }
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::vector<Volume> volumes;
  std::string restart_policy;
  std::optional<int64_t> termination_grace_period_seconds;
  std::map<std::string, std::string> node_selector;
  std::string service_account_name;
  std::string node_name;
  bool host_network = false;
  std::optional<Affinity> affinity;
  std::string scheduler_name;
  std::vector<Toleration> tolerations;
  std::string priority_class_name;
  std::optional<int32_t> priority;
  std::string preemption_policy;
  std::optional<std::string> runtime_class_name;
  ResourceList overhead;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::vector<PodSchedulingGate> scheduling_gates;
  std::vector<PodResourceClaim> resource_claims;
  bool operator==(const PodSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("initContainers", s.init_containers);
    v("containers", s.containers);
    v("volumes", s.volumes);
    v("restartPolicy", s.restart_policy);
    v("terminationGracePeriodSeconds", s.termination_grace_period_seconds);
    v("nodeSelector", s.node_selector);
    v("serviceAccountName", s.service_account_name);
    v("nodeName", s.node_name);
    v("hostNetwork", s.host_network);
    v("affinity", s.affinity);
    v("schedulerName", s.scheduler_name);
    v("tolerations", s.tolerations);
    v("priorityClassName", s.priority_class_name);
    v("priority", s.priority);
    v("preemptionPolicy", s.preemption_policy);
    v("runtimeClassName", s.runtime_class_name);
    v("overhead", s.overhead);
    v("topologySpreadConstraints", s.topology_spread_constraints);
    v("schedulingGates", s.scheduling_gates);
    v("resourceClaims", s.resource_claims);
  }
};

struct PodCondition {
  std::string type;    // PodScheduled, Ready, DisruptionTarget, PodBound ...
  std::string status;  // True, False, Unknown
  std::optional<WallTime> last_probe_time;
  std::optional<WallTime> last_transition_time;
  std::string reason;
  std::string message;
  bool operator==(const PodCondition&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("status", s.status);
    v("lastProbeTime", s.last_probe_time);
    v("lastTransitionTime", s.last_transition_time);
    v("reason", s.reason);
    v("message", s.message);
  }
};

struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::string message;
  std::string reason;
  std::string nominated_node_name;
  std::string host_ip;
  std::string pod_ip;
  std::optional<WallTime> start_time;
  bool operator==(const PodStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("phase", s.phase);
    v("conditions", s.conditions);
    v("message", s.message);
    v("reason", s.reason);
    v("nominatedNodeName", s.nominated_node_name);
    v("hostIP", s.host_ip);
    v("podIP", s.pod_ip);
    v("startTime", s.start_time);
  }
};

struct Pod {
  static constexpr TypeInfo kTypeInfo{"", "v1", "Pod", "pods", true};
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  RawDocument raw;
  bool operator==(const Pod&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
    v("status", s.status);
  }
};
KAI_API_DECLARE_CODEC(Pod);

}  // namespace kai::api
