// PodAffinityIndex: the cluster-wide, incrementally maintained state that InterPodAffinity
// (kube-scheduler plugins/interpodaffinity) needs, so that PreFilter / PreScore cost is
// proportional to what matches rather than to the number of pods in the cluster.
//
// It holds, per node, the domain of every topology key in use (so Filter and Score are array
// lookups), and three derived indexes kept exact under AddPod / RemovePod:
//   * anti-affinity groups: the required anti-affinity terms of existing pods, deduplicated,
//     each with its count of occurrences per topology domain (the "existing pods'
//     anti-affinity" side of Filter);
//   * score groups: existing pods' preferred (anti-)affinity terms (and required affinity terms
//     when hard_pod_affinity_weight > 0) with their weighted sums per domain (the symmetric half
//     of Score);
//   * queries: the incoming pods' terms seen so far (pods of one workload share them), each
//     with the number of matching existing pods per domain.
//
// Contract: an api::Pod passed to AddPod must stay alive and unchanged (namespace, labels,
// affinity) until RemovePod; nodes are identified by dense ids chosen by the caller (the
// scheduler's node index). Mutating methods (Set*, AddPod, RemovePod and the plugins'
// PreFilter/PreScore, which populate caches) must not run concurrently with anything else;
// Filter / Score only read and may run in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/node.h"
#include "api/pod.h"
#include "kube/base/statusor.h"
#include "scheduler/k8s_internal/selector.h"

namespace kai::k8s_internal {

using NodeId = int32_t;

struct PodAffinityOptions {
  // InterPodAffinityArgs.HardPodAffinityWeight: weight, in Score, of existing pods' *required*
  // affinity terms that the incoming pod matches. KAI builds the plugin with an undefaulted
  // InterPodAffinityArgs{}, i.e. 0; kube-scheduler's default is 1.
  int32_t hard_pod_affinity_weight = 0;
  // InterPodAffinityArgs.IgnorePreferredTermsOfExistingPods.
  bool ignore_preferred_terms_of_existing_pods = false;
  // Merge matchLabelKeys / mismatchLabelKeys into the label selector, as kube-apiserver does at
  // pod creation. Idempotent: a key already constrained by the selector (the API server merged
  // it) is left alone, so pods read from a real cluster are not changed.
  bool apply_match_label_keys = true;
};

// framework.AffinityTerm: a processed v1.PodAffinityTerm.
struct AffinityTerm {
  std::vector<std::string> namespaces;  // sorted, unique
  Selector namespace_selector = Selector::Nothing();
  Selector selector = Selector::Nothing();
  std::string topology_key;
  int32_t topology_key_id = -1;  // assigned by the index

  // AffinityTerm.Matches: the pod's namespace is listed or its namespace labels match the
  // namespace selector, and its labels match the selector. `namespace_labels` null = unknown.
  bool Matches(std::string_view pod_namespace, const LabelMap& pod_labels,
               const LabelMap* namespace_labels) const;
  void AppendCanonical(std::string* out) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  int32_t weight = 0;
};

// A pod's four kinds of pod-affinity terms, compiled.
struct PodAffinityTerms {
  std::vector<AffinityTerm> required_affinity;
  std::vector<AffinityTerm> required_anti_affinity;
  std::vector<WeightedAffinityTerm> preferred_affinity;
  std::vector<WeightedAffinityTerm> preferred_anti_affinity;

  bool Empty() const {
    return required_affinity.empty() && required_anti_affinity.empty() &&
           preferred_affinity.empty() && preferred_anti_affinity.empty();
  }
};

// Dense per-topology-key counters over the index's domains: the C++ form of kube-scheduler's
// topologyToMatchedTermCount / scoreMap, with NonZero() standing for len(map).
class TopologyCounts {
 public:
  void Add(int32_t key, int32_t domain, int64_t delta);
  void AddAll(int32_t key, const std::vector<int64_t>& by_domain, int64_t multiplier);
  int64_t Get(int32_t key, int32_t domain) const {
    if (domain < 0) return 0;
    for (const PerKey& k : keys_) {
      if (k.key == key) {
        return static_cast<size_t>(domain) < k.by_domain.size() ? k.by_domain[domain] : 0;
      }
    }
    return 0;
  }
  size_t NonZero() const { return nonzero_; }
  bool Empty() const { return nonzero_ == 0; }

  struct PerKey {
    int32_t key;
    std::vector<int64_t> by_domain;
  };
  const std::vector<PerKey>& keys() const { return keys_; }

 private:
  PerKey& Key(int32_t key);

  std::vector<PerKey> keys_;
  size_t nonzero_ = 0;
};

class PodAffinityIndex {
 public:
  explicit PodAffinityIndex(PodAffinityOptions options = {});
  PodAffinityIndex(const PodAffinityIndex&) = delete;
  PodAffinityIndex& operator=(const PodAffinityIndex&) = delete;

  const PodAffinityOptions& options() const { return options_; }

  // --- Cluster model -------------------------------------------------------------------
  // Adds or updates a node (its labels define topology domains). Updating the labels of a node
  // that hosts pods re-derives every count those pods contribute.
  void SetNode(NodeId id, const api::Node& node);
  // Removes a node; its pods must have been removed first.
  void RemoveNode(NodeId id);
  // Namespace labels, for namespaceSelector. Unknown namespaces have no labels.
  void SetNamespace(const std::string& name, const LabelMap& labels);
  void RemoveNamespace(const std::string& name);

  // Registers an existing (bound, running, or placed-in-session) pod on a node.
  void AddPod(const api::Pod* pod, NodeId node);
  // Unregisters a pod added with AddPod (same pointer). Unknown pods are ignored.
  void RemovePod(const api::Pod* pod);
  bool Contains(const api::Pod* pod) const { return slot_of_.count(pod) != 0; }
  size_t num_pods() const { return slot_of_.size(); }
  size_t num_nodes() const;

  // --- Lookups used by the plugins ------------------------------------------------------
  // The domain id of `node` for topology key `key_id`, -1 when the node lacks the label.
  int32_t Domain(int32_t key_id, NodeId node) const {
    const std::vector<int32_t>& d = topology_keys_[key_id].node_domain;
    return static_cast<size_t>(node) < d.size() ? d[node] : -1;
  }
  // Creates the key's domain table on first use.
  int32_t TopologyKeyId(const std::string& key);
  const std::string& TopologyKeyName(int32_t key_id) const { return topology_keys_[key_id].key; }
  const std::string& DomainValue(int32_t key_id, int32_t domain) const {
    return topology_keys_[key_id].domain_values[domain];
  }
  const std::string& NodeName(NodeId id) const { return nodes_[id].name; }
  // Labels of a namespace; nullptr when unknown.
  const LabelMap* NamespaceLabels(std::string_view ns) const;

  // Terms of a pod already in the cluster (NodeInfo's PodInfo): a kind of term with a parse
  // error is dropped whole, as framework.NewPodInfo leaves it empty.
  PodAffinityTerms CompileExistingPodTerms(const api::Pod& pod);
  // Terms of the pod being scheduled: parse errors are returned (aggregated like
  // framework.NewPodInfo), and non-empty namespace selectors are resolved into the namespace
  // list from the namespaces known to the index (mergeAffinityTermNamespacesIfNotEmpty).
  StatusOr<PodAffinityTerms> CompileIncomingPodTerms(const api::Pod& pod);

  // A query: the existing pods matching *all* `terms` (each with the incoming pod's nil
  // namespace labels), counted per domain of each term's topology key. Cached and kept exact
  // under AddPod / RemovePod. Returns the query id.
  int32_t EnsureQuery(std::span<const AffinityTerm> terms);
  // Per term of the query: counts by domain.
  const std::vector<std::vector<int64_t>>& QueryCounts(int32_t query) const {
    return queries_[query].counts;
  }
  // Number of (matching pod, term) pairs on nodes that have the term's topology key.
  int64_t QueryContributions(int32_t query) const { return queries_[query].contributing; }
  void ClearQueryCache();
  size_t num_queries() const { return query_ids_.size(); }

  // Existing pods' required anti-affinity terms, grouped: `counts` by domain of the term's key.
  template <class F>
  void ForEachAntiAffinityGroup(F&& f) const {
    for (const TermGroup& g : anti_groups_) {
      if (g.refs > 0) f(g.term, g.value);
    }
  }
  // Existing pods' scoring terms, grouped: `weights` by domain (sum of signed weights) and the
  // number of contributing occurrences.
  template <class F>
  void ForEachScoreGroup(F&& f) const {
    for (const TermGroup& g : score_groups_) {
      if (g.refs > 0) f(g.term, g.value, g.contributing);
    }
  }
  size_t num_anti_affinity_groups() const { return anti_group_ids_.size(); }
  size_t num_score_groups() const { return score_group_ids_.size(); }

 private:
  struct NodeEntry {
    bool present = false;
    std::string name;
    LabelMap labels;
    std::vector<uint32_t> pods;  // slots
  };
  struct TopologyKey {
    std::string key;
    std::unordered_map<std::string, int32_t> domain_ids;
    std::vector<std::string> domain_values;
    std::vector<int32_t> node_domain;  // by NodeId
  };
  struct TermGroup {
    AffinityTerm term;
    std::vector<int64_t> value;  // by domain: occurrences (anti) or signed weights (score)
    int64_t contributing = 0;    // occurrences on nodes that have the key
    int64_t refs = 0;            // registered occurrences; the group is free at 0
    std::string canonical;
  };
  struct Query {
    std::vector<AffinityTerm> terms;
    std::vector<std::vector<int64_t>> counts;
    int64_t contributing = 0;
  };
  struct PodEntry {
    const api::Pod* pod = nullptr;
    NodeId node = -1;
    uint32_t pos_in_node = 0;
    int32_t ns = -1;
    uint32_t pos_in_ns = 0;
    std::vector<std::pair<int32_t, int32_t>> anti_groups;   // (group, 1) per term
    std::vector<std::pair<int32_t, int32_t>> score_groups;  // (group, signed weight)
  };

  StatusOr<AffinityTerm> NewAffinityTerm(const api::Pod& owner, const api::PodAffinityTerm& term);
  int32_t DomainFor(TopologyKey& key, const LabelMap& labels);
  int32_t AcquireGroup(std::vector<TermGroup>& groups,
                       std::unordered_map<std::string, int32_t>& ids, std::vector<int32_t>& free,
                       const AffinityTerm& term);
  void ReleaseGroup(std::vector<TermGroup>& groups, std::unordered_map<std::string, int32_t>& ids,
                    std::vector<int32_t>& free, int32_t id);
  // Adds (sign +1) or removes (-1) everything a registered pod contributes at its node.
  void Apply(uint32_t slot, int sign);
  void ApplyToQuery(Query& q, const api::Pod& pod, NodeId node, int sign);
  int32_t NamespaceId(const std::string& ns);

  PodAffinityOptions options_;
  std::vector<NodeEntry> nodes_;
  size_t num_nodes_ = 0;
  std::vector<TopologyKey> topology_keys_;
  std::unordered_map<std::string, int32_t> topology_key_ids_;
  std::map<std::string, LabelMap, std::less<>> namespaces_;

  std::vector<PodEntry> pods_;
  std::vector<uint32_t> free_slots_;
  std::unordered_map<const api::Pod*, uint32_t> slot_of_;
  std::unordered_map<std::string, int32_t> ns_ids_;
  std::vector<std::vector<uint32_t>> pods_by_ns_;

  std::vector<TermGroup> anti_groups_;
  std::unordered_map<std::string, int32_t> anti_group_ids_;
  std::vector<int32_t> free_anti_groups_;
  std::vector<TermGroup> score_groups_;
  std::unordered_map<std::string, int32_t> score_group_ids_;
  std::vector<int32_t> free_score_groups_;

  std::vector<Query> queries_;
  std::unordered_map<std::string, int32_t> query_ids_;
};

}  // namespace kai::k8s_internal
