// NodeAffinity (kube-scheduler plugins/nodeaffinity + component-helpers nodeaffinity): the
// pod's nodeSelector and required node affinity as a Filter, preferred node affinity as a Score.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "api/node.h"
#include "api/pod.h"
#include "scheduler/k8s_internal/selector.h"
#include "scheduler/k8s_internal/status.h"

namespace kai::k8s_internal {

// One compiled NodeSelectorTerm: matchExpressions over labels AND matchFields over
// metadata.name. A term that failed to parse never matches (LazyErrorNodeSelector semantics:
// its siblings still can).
class NodeSelectorTermMatcher {
 public:
  static NodeSelectorTermMatcher Compile(const api::NodeSelectorTerm& term, std::string_view path);

  bool Matches(const api::Node& node) const;
  bool parse_error() const { return !parse_error_.ok(); }
  const Status& error() const { return parse_error_; }

 private:
  struct FieldRequirement {
    std::string key;
    bool in = true;  // In (==) or NotIn (!=)
    std::string value;
  };
  std::optional<Selector> labels_;  // nullopt when the term has no matchExpressions
  std::vector<FieldRequirement> fields_;
  bool has_fields_ = false;
  Status parse_error_;
};

// v1.NodeSelector: terms are ORed; empty terms are dropped (they match nothing).
class NodeSelectorMatcher {
 public:
  static NodeSelectorMatcher Compile(const api::NodeSelector& selector);
  bool Matches(const api::Node& node) const;
  // All parse errors, joined (NewNodeSelector's strict mode); OK when every term parsed.
  Status FirstError() const;

 private:
  std::vector<NodeSelectorTermMatcher> terms_;
};

// nodeaffinity.RequiredNodeAffinity: spec.nodeSelector AND spec.affinity.nodeAffinity.required.
// Parse errors are ignored (a broken term matches nothing), as the scheduler does.
class RequiredNodeAffinity {
 public:
  RequiredNodeAffinity() = default;
  static RequiredNodeAffinity FromPod(const api::PodSpec& spec);

  bool Matches(const api::Node& node) const;
  // True when the pod has neither a nodeSelector nor a required node affinity.
  bool Empty() const { return node_selector_.empty() && !affinity_.has_value(); }

 private:
  std::vector<std::pair<std::string, std::string>> node_selector_;
  std::optional<NodeSelectorMatcher> affinity_;
};

// True when the pod constrains its nodes at all (nodeSelector present or required node affinity
// set): KAI's victim-scenario node-affinity filter only runs for such pods.
bool HasRequiredNodeAffinity(const api::PodSpec& spec);

// The Filter side. PreFilter once per pod, Filter per node (const, thread-safe, no allocation).
class NodeAffinityFilter {
 public:
  static NodeAffinityFilter PreFilter(const api::Pod& pod);

  // kSkip: nothing to check (Filter would always pass). kUnschedulableAndUnresolvable with
  // "pod affinity terms conflict": every term pins conflicting metadata.name values.
  const PluginStatus& status() const { return status_; }
  // PreFilterResult.NodeNames: set when every required term pins nodes by metadata.name (In);
  // the union of the pinned names, sorted. nullopt means "all nodes".
  const std::optional<std::vector<std::string>>& node_names() const { return node_names_; }

  FilterResult Filter(const api::Node& node) const;
  // The compiled requirement, for callers that match nodes outside the predicate (e.g. KAI's
  // victim-scenario node-affinity filter).
  const RequiredNodeAffinity& required() const { return required_; }

 private:
  PluginStatus status_;
  std::optional<std::vector<std::string>> node_names_;
  RequiredNodeAffinity required_;
};

// The Score side: sum of the weights of the preferred terms a node matches.
class NodeAffinityScorer {
 public:
  static NodeAffinityScorer PreScore(const api::Pod& pod);

  // kSkip when the pod has no preferred node affinity; kError when a term fails to parse.
  const PluginStatus& status() const { return status_; }
  int64_t Score(const api::Node& node) const;
  // helper.DefaultNormalizeScore(MaxNodeScore, reverse=false).
  static void NormalizeScore(std::span<int64_t> scores);

 private:
  PluginStatus status_;
  std::vector<std::pair<NodeSelectorTermMatcher, int32_t>> terms_;
};

}  // namespace kai::k8s_internal
