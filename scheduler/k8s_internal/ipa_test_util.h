// Test-only: a small cluster (nodes, existing pods, namespaces) loaded into a PodAffinityIndex,
// standing in for kube-scheduler's cache.NewSnapshot in the ported InterPodAffinity tables.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "scheduler/k8s_internal/pod_affinity_index.h"
#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal::testing {

// The namespaces of upstream's interpodaffinity tests.
inline std::vector<std::pair<std::string, Labels>> UpstreamNamespaces() {
  return {{"subteam1.team1", {{"team", "team1"}}},
          {"subteam2.team1", {{"team", "team1"}}},
          {"subteam1.team2", {{"team", "team2"}}},
          {"subteam2.team2", {{"team", "team2"}}}};
}

class Cluster {
 public:
  Cluster(std::vector<api::Node> nodes, std::vector<api::Pod> pods, PodAffinityOptions options = {},
          const std::vector<std::pair<std::string, Labels>>& namespaces = UpstreamNamespaces())
      : index_(options) {
    for (const auto& [name, labels] : namespaces) index_.SetNamespace(name, labels);
    for (api::Node& n : nodes) {
      ids_[n.metadata.name] = static_cast<NodeId>(nodes_.size());
      nodes_.push_back(std::move(n));
      index_.SetNode(ids_[nodes_.back().metadata.name], nodes_.back());
    }
    for (api::Pod& p : pods) Add(std::move(p));
  }

  // Adds an existing pod on the node named by spec.nodeName. Pods on unknown nodes are kept
  // on an id the index has no node for (as a snapshot ignores pods of missing nodes).
  const api::Pod& Add(api::Pod pod) {
    pods_.push_back(std::move(pod));
    index_.AddPod(&pods_.back(), Id(pods_.back().spec.node_name));
    return pods_.back();
  }

  NodeId Id(const std::string& node_name) {
    auto it = ids_.find(node_name);
    if (it != ids_.end()) return it->second;
    const NodeId id = static_cast<NodeId>(1000 + unknown_.size());
    unknown_[node_name] = id;
    ids_[node_name] = id;
    return id;
  }

  PodAffinityIndex& index() { return index_; }
  const std::vector<api::Node>& nodes() const { return nodes_; }
  std::deque<api::Pod>& pods() { return pods_; }

 private:
  PodAffinityIndex index_;
  std::vector<api::Node> nodes_;
  std::deque<api::Pod> pods_;  // stable addresses: the index keeps pointers
  std::map<std::string, NodeId> ids_;
  std::map<std::string, NodeId> unknown_;
};

}  // namespace kai::k8s_internal::testing
