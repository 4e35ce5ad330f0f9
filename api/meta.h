// ObjectMeta and the other apimachinery meta types every object carries.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/base/clock.h"

namespace kai::api {

// metav1.MicroTime: serialized with microseconds ("2026-01-02T15:04:05.123456Z").
struct MicroTime {
  WallTime value;
  bool operator==(const MicroTime&) const = default;
};

// A JSON sub-document kept verbatim (fields the C++ model does not interpret, such as a
// container securityContext). Empty string = absent.
struct RawJson {
  std::string json;
  bool operator==(const RawJson&) const = default;
};

// The original JSON of a decoded top-level object. Encoding writes the modelled fields back into
// it, so that fields the C++ type does not model are never dropped by an update. It is not part
// of an object's value: two objects that differ only in their raw document compare equal.
struct RawDocument {
  std::shared_ptr<const std::string> json;  // null for objects built in code
  bool operator==(const RawDocument&) const { return true; }
};

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  bool operator==(const OwnerReference&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("apiVersion", s.api_version);
    v("kind", s.kind);
    v("name", s.name);
    v("uid", s.uid);
    v("controller", s.controller);
    v("blockOwnerDeletion", s.block_owner_deletion);
  }
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;  // JSON "namespace"
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<WallTime> creation_timestamp;
  std::optional<WallTime> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  bool operator==(const ObjectMeta&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("name", s.name);
    v("generateName", s.generate_name);
    v("namespace", s.namespace_);
    v("uid", s.uid);
    v("resourceVersion", s.resource_version);
    v("generation", s.generation);
    v("creationTimestamp", s.creation_timestamp);
    v("deletionTimestamp", s.deletion_timestamp);
    v("deletionGracePeriodSeconds", s.deletion_grace_period_seconds);
    v("labels", s.labels);
    v("annotations", s.annotations);
    v("ownerReferences", s.owner_references);
    v("finalizers", s.finalizers);
  }

  // "namespace/name", or "name" for cluster-scoped objects (informer cache key).
  std::string Key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
};

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist (JSON "operator")
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("key", s.key);
    v("operator", s.operator_);
    v("values", s.values);
  }
};

// metav1.LabelSelector. Matching lives in api/labels.h.
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  bool operator==(const LabelSelector&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("matchLabels", s.match_labels);
    v("matchExpressions", s.match_expressions);
  }
};

// metav1.Condition (Config / SchedulingShard status).
struct Condition {
  std::string type;
  std::string status;  // True, False, Unknown
  int64_t observed_generation = 0;
  std::optional<WallTime> last_transition_time;
  std::string reason;
  std::string message;
  bool operator==(const Condition&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("status", s.status);
    v("observedGeneration", s.observed_generation);
    v("lastTransitionTime", s.last_transition_time);
    v("reason", s.reason);
    v("message", s.message);
  }
};

// core/v1 ObjectReference.
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;
  bool operator==(const ObjectReference&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("kind", s.kind);
    v("namespace", s.namespace_);
    v("name", s.name);
    v("uid", s.uid);
    v("apiVersion", s.api_version);
    v("resourceVersion", s.resource_version);
    v("fieldPath", s.field_path);
  }
};

}  // namespace kai::api
