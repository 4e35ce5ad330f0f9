#include "scheduler/k8s_internal/pod_affinity_index.h"

#include <algorithm>

namespace kai::k8s_internal {
namespace {

const LabelMap& EmptyLabels() {
  static const LabelMap* const kEmpty = new LabelMap();
  return *kEmpty;
}

// kube-apiserver's applyMatchLabelKeysAndMismatchLabelKeys, made idempotent: keys the selector
// already constrains (the API server merged them at creation) are skipped.
api::LabelSelector MergeLabelKeys(const api::PodAffinityTerm& term, const LabelMap& pod_labels) {
  api::LabelSelector sel = *term.label_selector;
  auto constrained = [&](const std::string& key) {
    for (const api::LabelSelectorRequirement& r : sel.match_expressions) {
      if (r.key == key) return true;
    }
    return sel.match_labels.count(key) != 0;
  };
  auto apply = [&](const std::vector<std::string>& keys, const char* op) {
    for (const std::string& key : keys) {
      auto it = pod_labels.find(key);
      if (it == pod_labels.end()) continue;
      sel.match_expressions.push_back({key, op, {it->second}});
    }
  };
  // Decide "already merged" against the selector as written, before adding anything.
  std::vector<std::string> match, mismatch;
  for (const std::string& k : term.match_label_keys) {
    if (!constrained(k)) match.push_back(k);
  }
  for (const std::string& k : term.mismatch_label_keys) {
    if (!constrained(k)) mismatch.push_back(k);
  }
  apply(match, "In");
  apply(mismatch, "NotIn");
  return sel;
}

std::string Aggregate(const std::vector<std::string>& errs) {
  if (errs.size() == 1) return errs[0];
  std::string out = "[";
  for (size_t i = 0; i < errs.size(); ++i) {
    if (i > 0) out += ", ";
    out += errs[i];
  }
  return out + "]";
}

}  // namespace

bool AffinityTerm::Matches(std::string_view pod_namespace, const LabelMap& pod_labels,
                           const LabelMap* namespace_labels) const {
  bool ns_ok = false;
  for (const std::string& ns : namespaces) {
    if (ns == pod_namespace) {
      ns_ok = true;
      break;
    }
  }
  if (!ns_ok) {
    ns_ok = namespace_selector.Matches(namespace_labels ? *namespace_labels : EmptyLabels());
  }
  return ns_ok && selector.Matches(pod_labels);
}

void AffinityTerm::AppendCanonical(std::string* out) const {
  out->append("ns[");
  for (size_t i = 0; i < namespaces.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(namespaces[i]);
  }
  out->append("] nsSel");
  namespace_selector.AppendCanonical(out);
  out->append(" sel");
  selector.AppendCanonical(out);
  out->append(" key=");
  out->append(topology_key);
}

void TopologyCounts::Add(int32_t key, int32_t domain, int64_t delta) {
  if (domain < 0 || delta == 0) return;
  PerKey& k = Key(key);
  if (static_cast<size_t>(domain) >= k.by_domain.size()) k.by_domain.resize(domain + 1, 0);
  int64_t& v = k.by_domain[domain];
  const bool was = v != 0;
  v += delta;
  const bool is = v != 0;
  if (was && !is) --nonzero_;
  if (!was && is) ++nonzero_;
}

void TopologyCounts::AddAll(int32_t key, const std::vector<int64_t>& by_domain,
                            int64_t multiplier) {
  for (size_t d = 0; d < by_domain.size(); ++d) {
    if (by_domain[d] != 0) Add(key, static_cast<int32_t>(d), by_domain[d] * multiplier);
  }
}

TopologyCounts::PerKey& TopologyCounts::Key(int32_t key) {
  for (PerKey& k : keys_) {
    if (k.key == key) return k;
  }
  keys_.push_back({key, {}});
  return keys_.back();
}

PodAffinityIndex::PodAffinityIndex(PodAffinityOptions options) : options_(options) {}

size_t PodAffinityIndex::num_nodes() const { return num_nodes_; }

int32_t PodAffinityIndex::DomainFor(TopologyKey& key, const LabelMap& labels) {
  auto it = labels.find(key.key);
  if (it == labels.end()) return -1;
  auto [pos, inserted] =
      key.domain_ids.emplace(it->second, static_cast<int32_t>(key.domain_values.size()));
  if (inserted) key.domain_values.push_back(it->second);
  return pos->second;
}

int32_t PodAffinityIndex::TopologyKeyId(const std::string& key) {
  auto it = topology_key_ids_.find(key);
  if (it != topology_key_ids_.end()) return it->second;
  const int32_t id = static_cast<int32_t>(topology_keys_.size());
  topology_keys_.push_back(TopologyKey{key, {}, {}, {}});
  TopologyKey& tk = topology_keys_.back();
  tk.node_domain.assign(nodes_.size(), -1);
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (nodes_[n].present) tk.node_domain[n] = DomainFor(tk, nodes_[n].labels);
  }
  topology_key_ids_.emplace(key, id);
  return id;
}

void PodAffinityIndex::SetNode(NodeId id, const api::Node& node) {
  if (id < 0) return;
  if (static_cast<size_t>(id) >= nodes_.size()) nodes_.resize(id + 1);
  NodeEntry& entry = nodes_[id];
  if (entry.present && entry.labels == node.metadata.labels) {
    entry.name = node.metadata.name;
    return;
  }
  // Counts contributed by the node's pods depend on its domains: take them out and back in.
  const std::vector<uint32_t> pods = entry.pods;
  for (uint32_t slot : pods) Apply(slot, -1);
  if (!entry.present) ++num_nodes_;
  entry.present = true;
  entry.name = node.metadata.name;
  entry.labels = node.metadata.labels;
  for (TopologyKey& tk : topology_keys_) {
    if (tk.node_domain.size() < nodes_.size()) tk.node_domain.resize(nodes_.size(), -1);
    tk.node_domain[id] = DomainFor(tk, entry.labels);
  }
  for (uint32_t slot : pods) Apply(slot, +1);
}

void PodAffinityIndex::RemoveNode(NodeId id) {
  if (id < 0 || static_cast<size_t>(id) >= nodes_.size() || !nodes_[id].present) return;
  const std::vector<uint32_t> pods = nodes_[id].pods;
  for (uint32_t slot : pods) RemovePod(pods_[slot].pod);
  nodes_[id] = NodeEntry();
  --num_nodes_;
  for (TopologyKey& tk : topology_keys_) {
    if (static_cast<size_t>(id) < tk.node_domain.size()) tk.node_domain[id] = -1;
  }
}

void PodAffinityIndex::SetNamespace(const std::string& name, const LabelMap& labels) {
  namespaces_[name] = labels;
}

void PodAffinityIndex::RemoveNamespace(const std::string& name) { namespaces_.erase(name); }

const LabelMap* PodAffinityIndex::NamespaceLabels(std::string_view ns) const {
  auto it = namespaces_.find(ns);
  return it == namespaces_.end() ? nullptr : &it->second;
}

int32_t PodAffinityIndex::NamespaceId(const std::string& ns) {
  auto [it, inserted] = ns_ids_.emplace(ns, static_cast<int32_t>(pods_by_ns_.size()));
  if (inserted) pods_by_ns_.emplace_back();
  return it->second;
}

StatusOr<AffinityTerm> PodAffinityIndex::NewAffinityTerm(const api::Pod& owner,
                                                         const api::PodAffinityTerm& term) {
  AffinityTerm t;
  const api::LabelSelector* label_selector = term.label_selector ? &*term.label_selector : nullptr;
  api::LabelSelector merged;
  if (label_selector != nullptr && options_.apply_match_label_keys &&
      (!term.match_label_keys.empty() || !term.mismatch_label_keys.empty())) {
    merged = MergeLabelKeys(term, owner.metadata.labels);
    label_selector = &merged;
  }
  KAI_ASSIGN_OR_RETURN(t.selector, LabelSelectorAsSelector(label_selector));
  KAI_ASSIGN_OR_RETURN(
      t.namespace_selector,
      LabelSelectorAsSelector(term.namespace_selector ? &*term.namespace_selector : nullptr));
  // getNamespacesFromPodAffinityTerm: no namespaces and no selector -> the owner's namespace.
  if (term.namespaces.empty() && !term.namespace_selector) {
    t.namespaces.push_back(owner.metadata.namespace_);
  } else {
    t.namespaces = term.namespaces;
    std::sort(t.namespaces.begin(), t.namespaces.end());
    t.namespaces.erase(std::unique(t.namespaces.begin(), t.namespaces.end()), t.namespaces.end());
  }
  t.topology_key = term.topology_key;
  t.topology_key_id = TopologyKeyId(t.topology_key);
  return t;
}

PodAffinityTerms PodAffinityIndex::CompileExistingPodTerms(const api::Pod& pod) {
  PodAffinityTerms out;
  if (!pod.spec.affinity) return out;
  const api::Affinity& a = *pod.spec.affinity;
  auto required = [&](const std::optional<api::PodAffinity>& pa, std::vector<AffinityTerm>* dst) {
    if (!pa) return;
    for (const api::PodAffinityTerm& t : pa->required_during_scheduling_ignored_during_execution) {
      StatusOr<AffinityTerm> c = NewAffinityTerm(pod, t);
      if (!c.ok()) {
        dst->clear();
        return;
      }
      dst->push_back(std::move(c).value());
    }
  };
  auto preferred = [&](const std::optional<api::PodAffinity>& pa,
                       std::vector<WeightedAffinityTerm>* dst) {
    if (!pa) return;
    for (const api::WeightedPodAffinityTerm& t :
         pa->preferred_during_scheduling_ignored_during_execution) {
      StatusOr<AffinityTerm> c = NewAffinityTerm(pod, t.pod_affinity_term);
      if (!c.ok()) {
        dst->clear();
        return;
      }
      dst->push_back({std::move(c).value(), t.weight});
    }
  };
  required(a.pod_affinity, &out.required_affinity);
  required(a.pod_anti_affinity, &out.required_anti_affinity);
  preferred(a.pod_affinity, &out.preferred_affinity);
  preferred(a.pod_anti_affinity, &out.preferred_anti_affinity);
  return out;
}

StatusOr<PodAffinityTerms> PodAffinityIndex::CompileIncomingPodTerms(const api::Pod& pod) {
  PodAffinityTerms out;
  if (!pod.spec.affinity) return out;
  const api::Affinity& a = *pod.spec.affinity;
  std::vector<std::string> errs;
  auto required = [&](const std::optional<api::PodAffinity>& pa, const char* what,
                      std::vector<AffinityTerm>* dst) {
    if (!pa) return;
    for (const api::PodAffinityTerm& t : pa->required_during_scheduling_ignored_during_execution) {
      StatusOr<AffinityTerm> c = NewAffinityTerm(pod, t);
      if (!c.ok()) {
        errs.push_back(std::string(what) + ": " + std::string(c.status().message()));
        dst->clear();
        return;
      }
      dst->push_back(std::move(c).value());
    }
  };
  auto preferred = [&](const std::optional<api::PodAffinity>& pa, const char* what,
                       std::vector<WeightedAffinityTerm>* dst) {
    if (!pa) return;
    for (const api::WeightedPodAffinityTerm& t :
         pa->preferred_during_scheduling_ignored_during_execution) {
      StatusOr<AffinityTerm> c = NewAffinityTerm(pod, t.pod_affinity_term);
      if (!c.ok()) {
        errs.push_back(std::string(what) + ": " + std::string(c.status().message()));
        dst->clear();
        return;
      }
      dst->push_back({std::move(c).value(), t.weight});
    }
  };
  required(a.pod_affinity, "requiredAffinityTerms", &out.required_affinity);
  required(a.pod_anti_affinity, "requiredAntiAffinityTerms", &out.required_anti_affinity);
  preferred(a.pod_affinity, "preferredAffinityTerms", &out.preferred_affinity);
  preferred(a.pod_anti_affinity, "preferredAntiAffinityTerms", &out.preferred_anti_affinity);
  if (!errs.empty()) return InvalidArgumentError(Aggregate(errs));

  // An incoming pod's non-empty namespace selector becomes the list of namespaces it selects
  // now; an empty selector ({}) keeps matching every namespace.
  auto merge = [&](AffinityTerm& t) {
    if (t.namespace_selector.Empty()) return;
    for (const auto& [name, labels] : namespaces_) {
      if (t.namespace_selector.Matches(labels)) t.namespaces.push_back(name);
    }
    std::sort(t.namespaces.begin(), t.namespaces.end());
    t.namespaces.erase(std::unique(t.namespaces.begin(), t.namespaces.end()), t.namespaces.end());
    t.namespace_selector = Selector::Nothing();
  };
  for (AffinityTerm& t : out.required_affinity) merge(t);
  for (AffinityTerm& t : out.required_anti_affinity) merge(t);
  for (WeightedAffinityTerm& t : out.preferred_affinity) merge(t.term);
  for (WeightedAffinityTerm& t : out.preferred_anti_affinity) merge(t.term);
  return out;
}

int32_t PodAffinityIndex::AcquireGroup(std::vector<TermGroup>& groups,
                                       std::unordered_map<std::string, int32_t>& ids,
                                       std::vector<int32_t>& free, const AffinityTerm& term) {
  std::string canonical;
  term.AppendCanonical(&canonical);
  auto it = ids.find(canonical);
  if (it != ids.end()) {
    ++groups[it->second].refs;
    return it->second;
  }
  int32_t id;
  if (!free.empty()) {
    id = free.back();
    free.pop_back();
  } else {
    id = static_cast<int32_t>(groups.size());
    groups.emplace_back();
  }
  TermGroup& g = groups[id];
  g.term = term;
  g.value.clear();
  g.contributing = 0;
  g.refs = 1;
  g.canonical = canonical;
  ids.emplace(std::move(canonical), id);
  return id;
}

void PodAffinityIndex::ReleaseGroup(std::vector<TermGroup>& groups,
                                    std::unordered_map<std::string, int32_t>& ids,
                                    std::vector<int32_t>& free, int32_t id) {
  TermGroup& g = groups[id];
  if (--g.refs > 0) return;
  ids.erase(g.canonical);
  g = TermGroup();
  free.push_back(id);
}

void PodAffinityIndex::AddPod(const api::Pod* pod, NodeId node) {
  if (pod == nullptr || node < 0) return;
  if (Contains(pod)) RemovePod(pod);
  if (static_cast<size_t>(node) >= nodes_.size()) {
    nodes_.resize(node + 1);
    for (TopologyKey& tk : topology_keys_) tk.node_domain.resize(nodes_.size(), -1);
  }
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(pods_.size());
    pods_.emplace_back();
  }
  slot_of_.emplace(pod, slot);
  PodEntry& e = pods_[slot];
  e = PodEntry();
  e.pod = pod;
  e.node = node;
  e.pos_in_node = static_cast<uint32_t>(nodes_[node].pods.size());
  nodes_[node].pods.push_back(slot);
  e.ns = NamespaceId(pod->metadata.namespace_);
  e.pos_in_ns = static_cast<uint32_t>(pods_by_ns_[e.ns].size());
  pods_by_ns_[e.ns].push_back(slot);

  if (pod->spec.affinity &&
      (pod->spec.affinity->pod_affinity || pod->spec.affinity->pod_anti_affinity)) {
    PodAffinityTerms terms = CompileExistingPodTerms(*pod);
    for (const AffinityTerm& t : terms.required_anti_affinity) {
      e.anti_groups.emplace_back(AcquireGroup(anti_groups_, anti_group_ids_, free_anti_groups_, t),
                                 1);
    }
    auto add_score = [&](const AffinityTerm& t, int32_t weight) {
      e.score_groups.emplace_back(
          AcquireGroup(score_groups_, score_group_ids_, free_score_groups_, t), weight);
    };
    if (options_.hard_pod_affinity_weight > 0) {
      for (const AffinityTerm& t : terms.required_affinity) {
        add_score(t, options_.hard_pod_affinity_weight);
      }
    }
    for (const WeightedAffinityTerm& t : terms.preferred_affinity) add_score(t.term, t.weight);
    for (const WeightedAffinityTerm& t : terms.preferred_anti_affinity) {
      add_score(t.term, -t.weight);
    }
  }
  Apply(slot, +1);
}

void PodAffinityIndex::RemovePod(const api::Pod* pod) {
  auto it = slot_of_.find(pod);
  if (it == slot_of_.end()) return;
  const uint32_t slot = it->second;
  slot_of_.erase(it);
  Apply(slot, -1);
  PodEntry& e = pods_[slot];
  for (const auto& [g, w] : e.anti_groups) {
    ReleaseGroup(anti_groups_, anti_group_ids_, free_anti_groups_, g);
  }
  for (const auto& [g, w] : e.score_groups) {
    ReleaseGroup(score_groups_, score_group_ids_, free_score_groups_, g);
  }
  // Swap-remove from the node's and the namespace's lists.
  std::vector<uint32_t>& on_node = nodes_[e.node].pods;
  const uint32_t moved_n = on_node.back();
  on_node[e.pos_in_node] = moved_n;
  pods_[moved_n].pos_in_node = e.pos_in_node;
  on_node.pop_back();
  std::vector<uint32_t>& in_ns = pods_by_ns_[e.ns];
  const uint32_t moved_s = in_ns.back();
  in_ns[e.pos_in_ns] = moved_s;
  pods_[moved_s].pos_in_ns = e.pos_in_ns;
  in_ns.pop_back();
  e = PodEntry();
  free_slots_.push_back(slot);
}

void PodAffinityIndex::Apply(uint32_t slot, int sign) {
  const PodEntry& e = pods_[slot];
  auto apply_groups = [&](std::vector<TermGroup>& groups,
                          const std::vector<std::pair<int32_t, int32_t>>& members) {
    for (const auto& [gid, weight] : members) {
      TermGroup& g = groups[gid];
      const int32_t d = Domain(g.term.topology_key_id, e.node);
      if (d < 0) continue;
      if (static_cast<size_t>(d) >= g.value.size()) g.value.resize(d + 1, 0);
      g.value[d] += sign * weight;
      g.contributing += sign;
    }
  };
  apply_groups(anti_groups_, e.anti_groups);
  apply_groups(score_groups_, e.score_groups);
  for (Query& q : queries_) ApplyToQuery(q, *e.pod, e.node, sign);
}

void PodAffinityIndex::ApplyToQuery(Query& q, const api::Pod& pod, NodeId node, int sign) {
  for (const AffinityTerm& t : q.terms) {
    if (!t.Matches(pod.metadata.namespace_, pod.metadata.labels, nullptr)) return;
  }
  for (size_t i = 0; i < q.terms.size(); ++i) {
    const int32_t d = Domain(q.terms[i].topology_key_id, node);
    if (d < 0) continue;
    std::vector<int64_t>& c = q.counts[i];
    if (static_cast<size_t>(d) >= c.size()) c.resize(d + 1, 0);
    c[d] += sign;
    q.contributing += sign;
  }
}

int32_t PodAffinityIndex::EnsureQuery(std::span<const AffinityTerm> terms) {
  std::string canonical;
  for (const AffinityTerm& t : terms) {
    t.AppendCanonical(&canonical);
    canonical.append(" && ");
  }
  auto it = query_ids_.find(canonical);
  if (it != query_ids_.end()) return it->second;

  const int32_t id = static_cast<int32_t>(queries_.size());
  queries_.emplace_back();
  Query& q = queries_.back();
  q.terms.assign(terms.begin(), terms.end());
  q.counts.resize(q.terms.size());
  for (size_t i = 0; i < q.terms.size(); ++i) {
    q.counts[i].assign(topology_keys_[q.terms[i].topology_key_id].domain_values.size(), 0);
  }
  // Every term must match, so any term with an explicit namespace list bounds the candidates.
  const AffinityTerm* bounded = nullptr;
  for (const AffinityTerm& t : q.terms) {
    if (t.namespace_selector.IsNothing()) {
      bounded = &t;
      break;
    }
  }
  if (bounded != nullptr) {
    for (const std::string& ns : bounded->namespaces) {
      auto nit = ns_ids_.find(ns);
      if (nit == ns_ids_.end()) continue;
      for (uint32_t slot : pods_by_ns_[nit->second]) {
        ApplyToQuery(q, *pods_[slot].pod, pods_[slot].node, +1);
      }
    }
  } else {
    for (const PodEntry& e : pods_) {
      if (e.pod != nullptr) ApplyToQuery(q, *e.pod, e.node, +1);
    }
  }
  query_ids_.emplace(std::move(canonical), id);
  return id;
}

void PodAffinityIndex::ClearQueryCache() {
  queries_.clear();
  query_ids_.clear();
}

}  // namespace kai::k8s_internal
