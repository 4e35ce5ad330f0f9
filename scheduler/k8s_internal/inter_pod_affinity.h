// InterPodAffinity (kube-scheduler plugins/interpodaffinity filtering.go and scoring.go) over a
// PodAffinityIndex.
//
// Per task: PreFilter once (cost proportional to the matching terms and pods, thanks to the
// index), then Filter per node (array lookups, no allocation, const). When the scheduler places
// or removes pods after PreFilter it can either run PreFilter again (the index is live) or
// update the state with AddPod / RemovePod, as kube-scheduler's PreFilterExtensions do.
//
// Scoring: PreScore once, Score per node; KAI multiplies the raw Score by 100000 and does not
// normalize (podaffinity plugin); NormalizeScore is provided for kube-scheduler parity.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "api/pod.h"
#include "scheduler/k8s_internal/pod_affinity_index.h"
#include "scheduler/k8s_internal/status.h"

namespace kai::k8s_internal {

class InterPodAffinityFilter {
 public:
  // Builds the pod's state from the index. Status:
  //  * kSkip: no existing pod's anti-affinity matches the pod and the pod has no required
  //    (anti-)affinity; Filter always passes.
  //  * kUnschedulableAndUnresolvable "parsing pod: ...": a term of the pod does not parse.
  // The pod, and the index, must outlive the returned object.
  static InterPodAffinityFilter PreFilter(const api::Pod& pod, PodAffinityIndex& index);

  const PluginStatus& status() const { return status_; }

  // In kube-scheduler's order: pod affinity (UnschedulableAndUnresolvable), pod anti-affinity
  // (Unschedulable), existing pods' anti-affinity (Unschedulable).
  FilterResult Filter(NodeId node) const;

  // PreFilterExtensions: account for `pod` being added to / removed from `node` after
  // PreFilter (the index itself is not touched).
  void AddPod(const api::Pod& pod, NodeId node) { UpdateWithPod(pod, node, +1); }
  void RemovePod(const api::Pod& pod, NodeId node) { UpdateWithPod(pod, node, -1); }

  // The three topology maps as {(topologyKey, value) -> count}, for tests and diagnostics.
  using CountMap = std::map<std::pair<std::string, std::string>, int64_t>;
  CountMap ExistingAntiAffinityCounts() const { return ToMap(existing_anti_); }
  CountMap AffinityCounts() const { return ToMap(affinity_); }
  CountMap AntiAffinityCounts() const { return ToMap(anti_); }

 private:
  bool SatisfyPodAffinity(NodeId node) const;
  bool SatisfyPodAntiAffinity(NodeId node) const;
  bool SatisfyExistingPodsAntiAffinity(NodeId node) const;
  void UpdateWithPod(const api::Pod& pod, NodeId node, int sign);
  CountMap ToMap(const TopologyCounts& c) const;

  PluginStatus status_;
  PodAffinityIndex* index_ = nullptr;
  const api::Pod* pod_ = nullptr;
  const LabelMap* namespace_labels_ = nullptr;
  std::vector<AffinityTerm> affinity_terms_;
  std::vector<AffinityTerm> anti_affinity_terms_;
  bool pod_matches_own_affinity_ = false;
  TopologyCounts existing_anti_;  // existing pods whose anti-affinity matches the pod
  TopologyCounts affinity_;       // existing pods matching all of the pod's affinity terms
  TopologyCounts anti_;           // existing pods matching the pod's anti-affinity terms
};

class InterPodAffinityScorer {
 public:
  // Status: kSkip when nothing contributes to any node (KAI then scores 0 everywhere), or when
  // ignore_preferred_terms_of_existing_pods is set and the pod has no preferred terms; kError
  // when a preferred term does not parse.
  static InterPodAffinityScorer PreScore(const api::Pod& pod, PodAffinityIndex& index);

  const PluginStatus& status() const { return status_; }
  // Sum of the weights of the topology domains the node belongs to: positive for affinity,
  // negative for anti-affinity.
  int64_t Score(NodeId node) const;
  // kube-scheduler's NormalizeScore: min-max scaling to [0, 100]; a no-op when PreScore found
  // nothing to score.
  void NormalizeScore(std::span<int64_t> scores) const;

 private:
  PluginStatus status_;
  const PodAffinityIndex* index_ = nullptr;
  TopologyCounts topology_score_;
  bool has_entries_ = false;
};

}  // namespace kai::k8s_internal
