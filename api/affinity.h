// Node and pod (anti-)affinity, taints and tolerations (core/v1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"

namespace kai::api {

struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("key", s.key);
    v("operator", s.operator_);
    v("values", s.values);
  }
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  bool operator==(const NodeSelectorTerm&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("matchExpressions", s.match_expressions);
    v("matchFields", s.match_fields);
  }
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
  bool operator==(const NodeSelector&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("nodeSelectorTerms", s.node_selector_terms);
  }
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  bool operator==(const PreferredSchedulingTerm&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("weight", s.weight);
    v("preference", s.preference);
  }
};

struct NodeAffinity {
  std::optional<NodeSelector> required_during_scheduling_ignored_during_execution;
  std::vector<PreferredSchedulingTerm> preferred_during_scheduling_ignored_during_execution;
  bool operator==(const NodeAffinity&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("requiredDuringSchedulingIgnoredDuringExecution",
      s.required_during_scheduling_ignored_during_execution);
    v("preferredDuringSchedulingIgnoredDuringExecution",
      s.preferred_during_scheduling_ignored_during_execution);
  }
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
  bool operator==(const PodAffinityTerm&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("labelSelector", s.label_selector);
    v("namespaces", s.namespaces);
    v("topologyKey", s.topology_key);
    v("namespaceSelector", s.namespace_selector);
    v("matchLabelKeys", s.match_label_keys);
    v("mismatchLabelKeys", s.mismatch_label_keys);
  }
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm pod_affinity_term;
  bool operator==(const WeightedPodAffinityTerm&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("weight", s.weight);
    v("podAffinityTerm", s.pod_affinity_term);
  }
};

// Used for both podAffinity and podAntiAffinity (same shape).
struct PodAffinity {
  std::vector<PodAffinityTerm> required_during_scheduling_ignored_during_execution;
  std::vector<WeightedPodAffinityTerm> preferred_during_scheduling_ignored_during_execution;
  bool operator==(const PodAffinity&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("requiredDuringSchedulingIgnoredDuringExecution",
      s.required_during_scheduling_ignored_during_execution);
    v("preferredDuringSchedulingIgnoredDuringExecution",
      s.preferred_during_scheduling_ignored_during_execution);
  }
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
  bool operator==(const Affinity&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("nodeAffinity", s.node_affinity);
    v("podAffinity", s.pod_affinity);
    v("podAntiAffinity", s.pod_anti_affinity);
  }
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  std::optional<WallTime> time_added;
  bool operator==(const Taint&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("key", s.key);
    v("value", s.value);
    v("effect", s.effect);
    v("timeAdded", s.time_added);
  }
};

struct Toleration {
  std::string key;
  std::string operator_;  // Exists, Equal ("" means Equal)
  std::string value;
  std::string effect;  // "" matches all effects
  std::optional<int64_t> toleration_seconds;
  bool operator==(const Toleration&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("key", s.key);
    v("operator", s.operator_);
    v("value", s.value);
    v("effect", s.effect);
    v("tolerationSeconds", s.toleration_seconds);
  }
};

}  // namespace kai::api
