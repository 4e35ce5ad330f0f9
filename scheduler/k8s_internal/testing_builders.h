// Test-only builders mirroring kube-scheduler's st.MakePod() / st.MakeNode() wrappers, so that
// upstream unit-test tables port line by line.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/node.h"
#include "api/pod.h"

namespace kai::k8s_internal::testing {

using Labels = std::map<std::string, std::string>;

inline api::LabelSelectorRequirement Req(std::string key, std::string op,
                                         std::vector<std::string> values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}

inline api::LabelSelector Sel(std::vector<api::LabelSelectorRequirement> exprs,
                              Labels match_labels = {}) {
  api::LabelSelector s;
  s.match_expressions = std::move(exprs);
  s.match_labels = std::move(match_labels);
  return s;
}

inline api::PodAffinityTerm Term(std::optional<api::LabelSelector> selector,
                                 std::string topology_key, std::vector<std::string> namespaces = {},
                                 std::optional<api::LabelSelector> namespace_selector = {}) {
  api::PodAffinityTerm t;
  t.label_selector = std::move(selector);
  t.topology_key = std::move(topology_key);
  t.namespaces = std::move(namespaces);
  t.namespace_selector = std::move(namespace_selector);
  return t;
}

inline api::WeightedPodAffinityTerm Weighted(int32_t weight, api::PodAffinityTerm term) {
  return {weight, std::move(term)};
}

inline api::NodeSelectorRequirement NReq(std::string key, std::string op,
                                         std::vector<std::string> values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}

inline api::NodeSelectorTerm NTerm(std::vector<api::NodeSelectorRequirement> exprs,
                                   std::vector<api::NodeSelectorRequirement> fields = {}) {
  api::NodeSelectorTerm t;
  t.match_expressions = std::move(exprs);
  t.match_fields = std::move(fields);
  return t;
}

enum class Kind { kRequired, kPreferred };

class PodBuilder {
 public:
  PodBuilder& Name(std::string n) {
    pod_.metadata.name = std::move(n);
    return *this;
  }
  PodBuilder& Namespace(std::string ns) {
    pod_.metadata.namespace_ = std::move(ns);
    return *this;
  }
  PodBuilder& Node(std::string n) {
    pod_.spec.node_name = std::move(n);
    return *this;
  }
  PodBuilder& Label(std::string k, std::string v) {
    pod_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  PodBuilder& Labels(const testing::Labels& l) {
    for (const auto& [k, v] : l) pod_.metadata.labels[k] = v;
    return *this;
  }
  PodBuilder& NodeSelector(const testing::Labels& l) {
    pod_.spec.node_selector = l;
    return *this;
  }
  PodBuilder& Affinity(api::Affinity a) {
    pod_.spec.affinity = std::move(a);
    return *this;
  }
  PodBuilder& NodeAffinityRequired(std::vector<api::NodeSelectorTerm> terms) {
    NodeAff().required_during_scheduling_ignored_during_execution =
        api::NodeSelector{std::move(terms)};
    return *this;
  }
  PodBuilder& NodeAffinityPreferred(int32_t weight, api::NodeSelectorTerm term) {
    NodeAff().preferred_during_scheduling_ignored_during_execution.push_back(
        {weight, std::move(term)});
    return *this;
  }

  // st.PodAffinityIn / NotIn / Exists and their anti-affinity twins (preferred weight 1).
  PodBuilder& PodAffinityIn(std::string key, std::string topo, std::vector<std::string> vals,
                            Kind kind = Kind::kRequired) {
    return AddTerm(false, Term(Sel({Req(std::move(key), "In", std::move(vals))}), std::move(topo)),
                   kind);
  }
  PodBuilder& PodAffinityNotIn(std::string key, std::string topo, std::vector<std::string> vals,
                               Kind kind = Kind::kRequired) {
    return AddTerm(
        false, Term(Sel({Req(std::move(key), "NotIn", std::move(vals))}), std::move(topo)), kind);
  }
  PodBuilder& PodAffinityExists(std::string key, std::string topo, Kind kind = Kind::kRequired) {
    return AddTerm(false, Term(Sel({Req(std::move(key), "Exists")}), std::move(topo)), kind);
  }
  PodBuilder& PodAntiAffinityIn(std::string key, std::string topo, std::vector<std::string> vals,
                                Kind kind = Kind::kRequired) {
    return AddTerm(true, Term(Sel({Req(std::move(key), "In", std::move(vals))}), std::move(topo)),
                   kind);
  }
  PodBuilder& PodAntiAffinityNotIn(std::string key, std::string topo, std::vector<std::string> vals,
                                   Kind kind = Kind::kRequired) {
    return AddTerm(
        true, Term(Sel({Req(std::move(key), "NotIn", std::move(vals))}), std::move(topo)), kind);
  }
  PodBuilder& PodAntiAffinityExists(std::string key, std::string topo,
                                    Kind kind = Kind::kRequired) {
    return AddTerm(true, Term(Sel({Req(std::move(key), "Exists")}), std::move(topo)), kind);
  }
  PodBuilder& RequiredAffinity(api::PodAffinityTerm t) {
    return AddTerm(false, std::move(t), Kind::kRequired);
  }
  PodBuilder& RequiredAntiAffinity(api::PodAffinityTerm t) {
    return AddTerm(true, std::move(t), Kind::kRequired);
  }
  PodBuilder& PreferredAffinity(int32_t weight, api::PodAffinityTerm t) {
    PodAff(false).preferred_during_scheduling_ignored_during_execution.push_back(
        {weight, std::move(t)});
    return *this;
  }
  PodBuilder& PreferredAntiAffinity(int32_t weight, api::PodAffinityTerm t) {
    PodAff(true).preferred_during_scheduling_ignored_during_execution.push_back(
        {weight, std::move(t)});
    return *this;
  }

  PodBuilder& Toleration(std::string key, std::string op, std::string value, std::string effect) {
    api::Toleration t;
    t.key = std::move(key);
    t.operator_ = std::move(op);
    t.value = std::move(value);
    t.effect = std::move(effect);
    pod_.spec.tolerations.push_back(std::move(t));
    return *this;
  }
  // "PROTOCOL/IP/PORT" strings, as the upstream node-ports tests write them.
  PodBuilder& HostPorts(const std::vector<std::string>& specs) {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    for (const std::string& s : specs) {
      const size_t a = s.find('/');
      const size_t b = s.find('/', a + 1);
      api::ContainerPort p;
      p.protocol = s.substr(0, a);
      p.host_ip = s.substr(a + 1, b - a - 1);
      p.host_port = std::stoi(s.substr(b + 1));
      c.ports.push_back(p);
    }
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  PodBuilder& InitContainerPort(bool sidecar, int32_t host_port, std::string protocol = "TCP") {
    api::Container c;
    c.name = "init" + std::to_string(pod_.spec.init_containers.size());
    if (sidecar) c.restart_policy = "Always";
    api::ContainerPort p;
    p.container_port = host_port;
    p.host_port = host_port;
    p.protocol = std::move(protocol);
    c.ports.push_back(p);
    pod_.spec.init_containers.push_back(std::move(c));
    return *this;
  }

  api::Pod Obj() const { return pod_; }

 private:
  api::NodeAffinity& NodeAff() {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    if (!pod_.spec.affinity->node_affinity) pod_.spec.affinity->node_affinity.emplace();
    return *pod_.spec.affinity->node_affinity;
  }
  api::PodAffinity& PodAff(bool anti) {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    auto& slot = anti ? pod_.spec.affinity->pod_anti_affinity : pod_.spec.affinity->pod_affinity;
    if (!slot) slot.emplace();
    return *slot;
  }
  PodBuilder& AddTerm(bool anti, api::PodAffinityTerm t, Kind kind) {
    api::PodAffinity& pa = PodAff(anti);
    if (kind == Kind::kRequired) {
      pa.required_during_scheduling_ignored_during_execution.push_back(std::move(t));
    } else {
      pa.preferred_during_scheduling_ignored_during_execution.push_back({1, std::move(t)});
    }
    return *this;
  }

  api::Pod pod_;
};

inline PodBuilder MakePod() { return PodBuilder(); }

class NodeBuilder {
 public:
  NodeBuilder& Name(std::string n) {
    node_.metadata.name = std::move(n);
    return *this;
  }
  NodeBuilder& Label(std::string k, std::string v) {
    node_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  NodeBuilder& Labels(const testing::Labels& l) {
    for (const auto& [k, v] : l) node_.metadata.labels[k] = v;
    return *this;
  }
  NodeBuilder& Taint(std::string key, std::string value, std::string effect) {
    api::Taint t;
    t.key = std::move(key);
    t.value = std::move(value);
    t.effect = std::move(effect);
    node_.spec.taints.push_back(std::move(t));
    return *this;
  }
  NodeBuilder& Unschedulable(bool u = true) {
    node_.spec.unschedulable = u;
    return *this;
  }
  NodeBuilder& Condition(std::string type, std::string status) {
    api::NodeCondition c;
    c.type = std::move(type);
    c.status = std::move(status);
    node_.status.conditions.push_back(std::move(c));
    return *this;
  }
  api::Node Obj() const { return node_; }

 private:
  api::Node node_;
};

inline NodeBuilder MakeNode(std::string name = "", const Labels& labels = {}) {
  NodeBuilder b;
  b.Name(std::move(name)).Labels(labels);
  return b;
}

}  // namespace kai::k8s_internal::testing
