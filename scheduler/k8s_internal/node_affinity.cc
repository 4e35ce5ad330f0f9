#include "scheduler/k8s_internal/node_affinity.h"

#include <algorithm>
#include <set>

namespace kai::k8s_internal {
namespace {

constexpr std::string_view kObjectNameField = "metadata.name";

bool IsEmptyTerm(const api::NodeSelectorTerm& term) {
  return term.match_expressions.empty() && term.match_fields.empty();
}

const api::NodeSelector* RequiredSelector(const api::PodSpec& spec) {
  if (!spec.affinity || !spec.affinity->node_affinity) return nullptr;
  const auto& req =
      spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution;
  return req ? &*req : nullptr;
}

}  // namespace

NodeSelectorTermMatcher NodeSelectorTermMatcher::Compile(const api::NodeSelectorTerm& term,
                                                         std::string_view path) {
  NodeSelectorTermMatcher m;
  if (!term.match_expressions.empty()) {
    StatusOr<Selector> sel = NodeSelectorRequirementsAsSelector(
        term.match_expressions, std::string(path) + ".matchExpressions");
    if (!sel.ok()) {
      m.parse_error_ = sel.status();
    } else {
      m.labels_ = std::move(sel).value();
    }
  }
  if (!term.match_fields.empty()) {
    m.has_fields_ = true;
    for (size_t i = 0; i < term.match_fields.size(); ++i) {
      const api::NodeSelectorRequirement& r = term.match_fields[i];
      const std::string p = std::string(path) + ".matchFields[" + std::to_string(i) + "]";
      if (r.operator_ == "In" || r.operator_ == "NotIn") {
        if (r.values.size() != 1) {
          if (m.parse_error_.ok()) {
            m.parse_error_ =
                InvalidArgumentError(p + ".values: Invalid value: must have one element");
          }
          continue;
        }
        m.fields_.push_back({r.key, r.operator_ == "In", r.values[0]});
      } else if (m.parse_error_.ok()) {
        m.parse_error_ = InvalidArgumentError(p + ".operator: Unsupported value: \"" + r.operator_ +
                                              "\": supported values: \"In\", \"NotIn\"");
      }
    }
  }
  return m;
}

bool NodeSelectorTermMatcher::Matches(const api::Node& node) const {
  if (!parse_error_.ok()) return false;
  if (labels_ && !labels_->Matches(node.metadata.labels)) return false;
  // Node fields hold only metadata.name, and only when the name is set; an unnamed node
  // passes any field requirement (fields.Set is empty).
  if (has_fields_ && !node.metadata.name.empty()) {
    for (const FieldRequirement& f : fields_) {
      const std::string_view actual =
          f.key == kObjectNameField ? std::string_view(node.metadata.name) : std::string_view();
      if ((actual == f.value) != f.in) return false;
    }
  }
  return true;
}

NodeSelectorMatcher NodeSelectorMatcher::Compile(const api::NodeSelector& selector) {
  NodeSelectorMatcher m;
  m.terms_.reserve(selector.node_selector_terms.size());
  for (size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    const api::NodeSelectorTerm& term = selector.node_selector_terms[i];
    if (IsEmptyTerm(term)) continue;  // nil or empty term selects no objects
    m.terms_.push_back(
        NodeSelectorTermMatcher::Compile(term, "nodeSelectorTerms[" + std::to_string(i) + "]"));
  }
  return m;
}

bool NodeSelectorMatcher::Matches(const api::Node& node) const {
  for (const NodeSelectorTermMatcher& t : terms_) {
    if (t.Matches(node)) return true;
  }
  return false;
}

Status NodeSelectorMatcher::FirstError() const {
  for (const NodeSelectorTermMatcher& t : terms_) {
    if (t.parse_error()) return t.error();
  }
  return Status::OK();
}

RequiredNodeAffinity RequiredNodeAffinity::FromPod(const api::PodSpec& spec) {
  RequiredNodeAffinity r;
  r.node_selector_.assign(spec.node_selector.begin(), spec.node_selector.end());
  if (const api::NodeSelector* sel = RequiredSelector(spec)) {
    r.affinity_ = NodeSelectorMatcher::Compile(*sel);
  }
  return r;
}

bool RequiredNodeAffinity::Matches(const api::Node& node) const {
  const LabelMap& labels = node.metadata.labels;
  for (const auto& [k, v] : node_selector_) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return !affinity_ || affinity_->Matches(node);
}

bool HasRequiredNodeAffinity(const api::PodSpec& spec) {
  return !spec.node_selector.empty() || RequiredSelector(spec) != nullptr;
}

NodeAffinityFilter NodeAffinityFilter::PreFilter(const api::Pod& pod) {
  NodeAffinityFilter f;
  const api::NodeSelector* required = RequiredSelector(pod.spec);
  if (required == nullptr && pod.spec.node_selector.empty()) {
    f.status_ = PluginStatus::Skip();
    return f;
  }
  f.required_ = RequiredNodeAffinity::FromPod(pod.spec);
  if (required == nullptr || required->node_selector_terms.empty()) return f;

  // Affinity to specific nodes by name: when every term pins metadata.name (In), the pod can
  // only land on the union of the pinned names.
  std::optional<std::set<std::string>> names;
  for (const api::NodeSelectorTerm& term : required->node_selector_terms) {
    std::optional<std::set<std::string>> term_names;
    for (const api::NodeSelectorRequirement& r : term.match_fields) {
      if (r.key != kObjectNameField || r.operator_ != "In") continue;
      std::set<std::string> s(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(s);
      } else {
        std::set<std::string> both;
        std::set_intersection(term_names->begin(), term_names->end(), s.begin(), s.end(),
                              std::inserter(both, both.end()));
        term_names = std::move(both);
      }
    }
    if (!term_names) return f;  // this term admits any node: terms are ORed
    if (!names) names.emplace();
    names->insert(term_names->begin(), term_names->end());
  }
  if (names && names->empty()) {
    f.status_ = PluginStatus(Code::kUnschedulableAndUnresolvable,
                             std::string(kErrReasonNodeAffinityConflict));
  } else if (names) {
    f.node_names_ = std::vector<std::string>(names->begin(), names->end());
  }
  return f;
}

FilterResult NodeAffinityFilter::Filter(const api::Node& node) const {
  if (!required_.Matches(node)) {
    return FilterResult::Fail(Code::kUnschedulableAndUnresolvable, kErrReasonNodeAffinity);
  }
  return FilterResult::Success();
}

NodeAffinityScorer NodeAffinityScorer::PreScore(const api::Pod& pod) {
  NodeAffinityScorer s;
  const auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity ||
      affinity->node_affinity->preferred_during_scheduling_ignored_during_execution.empty()) {
    s.status_ = PluginStatus::Skip();
    return s;
  }
  const auto& terms = affinity->node_affinity->preferred_during_scheduling_ignored_during_execution;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].weight == 0 || IsEmptyTerm(terms[i].preference)) continue;
    NodeSelectorTermMatcher m =
        NodeSelectorTermMatcher::Compile(terms[i].preference, "[" + std::to_string(i) + "]");
    if (m.parse_error()) {
      s.status_ = PluginStatus(Code::kError, std::string(m.error().message()));
      s.terms_.clear();
      return s;
    }
    s.terms_.emplace_back(std::move(m), terms[i].weight);
  }
  return s;
}

int64_t NodeAffinityScorer::Score(const api::Node& node) const {
  int64_t score = 0;
  for (const auto& [term, weight] : terms_) {
    if (term.Matches(node)) score += weight;
  }
  return score;
}

void NodeAffinityScorer::NormalizeScore(std::span<int64_t> scores) {
  DefaultNormalizeScore(kMaxNodeScore, false, scores.data(), scores.size());
}

}  // namespace kai::k8s_internal
