#include "scheduler/k8s_internal/inter_pod_affinity.h"

#include <limits>

namespace kai::k8s_internal {
namespace {

// podMatchesAllAffinityTerms: the incoming pod's terms have their namespace selectors merged,
// so no namespace labels are needed.
bool MatchesAll(const std::vector<AffinityTerm>& terms, const api::Pod& pod) {
  if (terms.empty()) return false;
  for (const AffinityTerm& t : terms) {
    if (!t.Matches(pod.metadata.namespace_, pod.metadata.labels, nullptr)) return false;
  }
  return true;
}

}  // namespace

InterPodAffinityFilter InterPodAffinityFilter::PreFilter(const api::Pod& pod,
                                                         PodAffinityIndex& index) {
  InterPodAffinityFilter f;
  f.index_ = &index;
  f.pod_ = &pod;
  StatusOr<PodAffinityTerms> terms = index.CompileIncomingPodTerms(pod);
  if (!terms.ok()) {
    f.status_ = PluginStatus(Code::kUnschedulableAndUnresolvable,
                             "parsing pod: " + std::string(terms.status().message()));
    return f;
  }
  f.affinity_terms_ = std::move(terms->required_affinity);
  f.anti_affinity_terms_ = std::move(terms->required_anti_affinity);
  f.namespace_labels_ = index.NamespaceLabels(pod.metadata.namespace_);

  index.ForEachAntiAffinityGroup([&](const AffinityTerm& t, const std::vector<int64_t>& counts) {
    if (t.Matches(pod.metadata.namespace_, pod.metadata.labels, f.namespace_labels_)) {
      f.existing_anti_.AddAll(t.topology_key_id, counts, 1);
    }
  });
  if (!f.affinity_terms_.empty()) {
    const int32_t q = index.EnsureQuery(f.affinity_terms_);
    const auto& counts = index.QueryCounts(q);
    for (size_t i = 0; i < f.affinity_terms_.size(); ++i) {
      f.affinity_.AddAll(f.affinity_terms_[i].topology_key_id, counts[i], 1);
    }
  }
  for (const AffinityTerm& t : f.anti_affinity_terms_) {
    const int32_t q = index.EnsureQuery(std::span<const AffinityTerm>(&t, 1));
    f.anti_.AddAll(t.topology_key_id, index.QueryCounts(q)[0], 1);
  }
  if (f.existing_anti_.Empty() && f.affinity_terms_.empty() && f.anti_affinity_terms_.empty()) {
    f.status_ = PluginStatus::Skip();
    return f;
  }
  f.pod_matches_own_affinity_ = MatchesAll(f.affinity_terms_, pod);
  return f;
}

bool InterPodAffinityFilter::SatisfyPodAffinity(NodeId node) const {
  bool pods_exist = true;
  for (const AffinityTerm& t : affinity_terms_) {
    const int32_t d = index_->Domain(t.topology_key_id, node);
    if (d < 0) return false;  // every topology key must exist on the node
    if (affinity_.Get(t.topology_key_id, d) <= 0) pods_exist = false;
  }
  if (pods_exist) return true;
  // The first pod of a group with affinity to itself: if no pod anywhere matches the terms and
  // the pod matches its own terms, let it through (the node has all the topology keys).
  return affinity_.Empty() && pod_matches_own_affinity_;
}

bool InterPodAffinityFilter::SatisfyPodAntiAffinity(NodeId node) const {
  if (anti_.Empty()) return true;
  for (const AffinityTerm& t : anti_affinity_terms_) {
    const int32_t d = index_->Domain(t.topology_key_id, node);
    if (d >= 0 && anti_.Get(t.topology_key_id, d) > 0) return false;
  }
  return true;
}

bool InterPodAffinityFilter::SatisfyExistingPodsAntiAffinity(NodeId node) const {
  if (existing_anti_.Empty()) return true;
  for (const TopologyCounts::PerKey& k : existing_anti_.keys()) {
    const int32_t d = index_->Domain(k.key, node);
    if (d >= 0 && static_cast<size_t>(d) < k.by_domain.size() && k.by_domain[d] > 0) return false;
  }
  return true;
}

FilterResult InterPodAffinityFilter::Filter(NodeId node) const {
  if (status_.IsSkip()) return FilterResult::Success();
  if (!status_.IsSuccess()) {
    return FilterResult::Fail(Code::kUnschedulableAndUnresolvable, kErrReasonAffinityRulesNotMatch);
  }
  if (!SatisfyPodAffinity(node)) {
    return FilterResult::Fail(Code::kUnschedulableAndUnresolvable, kErrReasonAffinityRulesNotMatch);
  }
  if (!SatisfyPodAntiAffinity(node)) {
    return FilterResult::Fail(Code::kUnschedulable, kErrReasonAntiAffinityRulesNotMatch);
  }
  if (!SatisfyExistingPodsAntiAffinity(node)) {
    return FilterResult::Fail(Code::kUnschedulable, kErrReasonExistingAntiAffinityRulesNotMatch);
  }
  return FilterResult::Success();
}

void InterPodAffinityFilter::UpdateWithPod(const api::Pod& pod, NodeId node, int sign) {
  if (index_ == nullptr || pod_ == nullptr || status_.IsRejected()) return;
  if (pod.spec.affinity && pod.spec.affinity->pod_anti_affinity) {
    for (const AffinityTerm& t : index_->CompileExistingPodTerms(pod).required_anti_affinity) {
      if (t.Matches(pod_->metadata.namespace_, pod_->metadata.labels, namespace_labels_)) {
        existing_anti_.Add(t.topology_key_id, index_->Domain(t.topology_key_id, node), sign);
      }
    }
  }
  if (MatchesAll(affinity_terms_, pod)) {
    for (const AffinityTerm& t : affinity_terms_) {
      affinity_.Add(t.topology_key_id, index_->Domain(t.topology_key_id, node), sign);
    }
  }
  for (const AffinityTerm& t : anti_affinity_terms_) {
    if (t.Matches(pod.metadata.namespace_, pod.metadata.labels, nullptr)) {
      anti_.Add(t.topology_key_id, index_->Domain(t.topology_key_id, node), sign);
    }
  }
}

InterPodAffinityFilter::CountMap InterPodAffinityFilter::ToMap(const TopologyCounts& c) const {
  CountMap out;
  for (const TopologyCounts::PerKey& k : c.keys()) {
    for (size_t d = 0; d < k.by_domain.size(); ++d) {
      if (k.by_domain[d] == 0) continue;
      out[{index_->TopologyKeyName(k.key), index_->DomainValue(k.key, static_cast<int32_t>(d))}] =
          k.by_domain[d];
    }
  }
  return out;
}

InterPodAffinityScorer InterPodAffinityScorer::PreScore(const api::Pod& pod,
                                                        PodAffinityIndex& index) {
  InterPodAffinityScorer s;
  s.index_ = &index;
  StatusOr<PodAffinityTerms> terms = index.CompileIncomingPodTerms(pod);
  if (!terms.ok()) {
    s.status_ = PluginStatus(Code::kError, std::string(terms.status().message()));
    return s;
  }
  const bool has_constraints =
      !terms->preferred_affinity.empty() || !terms->preferred_anti_affinity.empty();
  if (index.options().ignore_preferred_terms_of_existing_pods && !has_constraints) {
    s.status_ = PluginStatus::Skip();
    return s;
  }
  auto add_query = [&](const WeightedAffinityTerm& wt, int64_t sign) {
    const int32_t q = index.EnsureQuery(std::span<const AffinityTerm>(&wt.term, 1));
    if (index.QueryContributions(q) == 0) return;
    s.has_entries_ = true;
    s.topology_score_.AddAll(wt.term.topology_key_id, index.QueryCounts(q)[0], sign * wt.weight);
  };
  for (const WeightedAffinityTerm& wt : terms->preferred_affinity) add_query(wt, +1);
  for (const WeightedAffinityTerm& wt : terms->preferred_anti_affinity) add_query(wt, -1);

  const LabelMap* ns_labels = index.NamespaceLabels(pod.metadata.namespace_);
  index.ForEachScoreGroup(
      [&](const AffinityTerm& t, const std::vector<int64_t>& weights, int64_t contributing) {
        if (contributing == 0) return;
        if (!t.Matches(pod.metadata.namespace_, pod.metadata.labels, ns_labels)) return;
        s.has_entries_ = true;
        s.topology_score_.AddAll(t.topology_key_id, weights, 1);
      });
  if (!s.has_entries_) s.status_ = PluginStatus::Skip();
  return s;
}

int64_t InterPodAffinityScorer::Score(NodeId node) const {
  int64_t score = 0;
  for (const TopologyCounts::PerKey& k : topology_score_.keys()) {
    const int32_t d = index_->Domain(k.key, node);
    if (d >= 0 && static_cast<size_t>(d) < k.by_domain.size()) score += k.by_domain[d];
  }
  return score;
}

void InterPodAffinityScorer::NormalizeScore(std::span<int64_t> scores) const {
  if (!has_entries_ || scores.empty()) return;
  int64_t min_count = std::numeric_limits<int64_t>::max();
  int64_t max_count = std::numeric_limits<int64_t>::min();
  for (int64_t s : scores) {
    if (s > max_count) max_count = s;
    if (s < min_count) min_count = s;
  }
  const int64_t diff = max_count - min_count;
  for (int64_t& s : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(kMaxNodeScore) *
          (static_cast<double>(s - min_count) / static_cast<double>(diff));
    }
    s = static_cast<int64_t>(f);
  }
}

}  // namespace kai::k8s_internal
