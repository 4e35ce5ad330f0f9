// Topology (kai.scheduler/v1alpha1, cluster-scoped): ordered node-label levels, highest first.
#pragma once

#include <string>
#include <vector>

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"

namespace kai::api {

struct TopologyLevel {
  std::string node_label;
  bool operator==(const TopologyLevel&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("nodeLabel", s.node_label);
  }
};

struct TopologySpec {
  std::vector<TopologyLevel> levels;
  bool operator==(const TopologySpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("levels", s.levels);
  }
};

struct Topology {
  static constexpr TypeInfo kTypeInfo{"kai.scheduler", "v1alpha1", "Topology", "topologies", false};
  ObjectMeta metadata;
  TopologySpec spec;
  RawDocument raw;
  bool operator==(const Topology&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
  }
};
KAI_API_DECLARE_CODEC(Topology);

}  // namespace kai::api
