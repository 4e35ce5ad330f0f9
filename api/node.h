// Node (core/v1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/affinity.h"
#include "api/codec.h"
#include "api/meta.h"
#include "api/quantity.h"
#include "api/type_info.h"

namespace kai::api {

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string pod_cidr;
  std::string provider_id;
  bool operator==(const NodeSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("unschedulable", s.unschedulable);
    v("taints", s.taints);
    v("podCIDR", s.pod_cidr);
    v("providerID", s.provider_id);
  }
};

struct NodeCondition {
  std::string type;  // Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable
  std::string status;
  std::optional<WallTime> last_heartbeat_time;
  std::optional<WallTime> last_transition_time;
  std::string reason;
  std::string message;
  bool operator==(const NodeCondition&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("status", s.status);
    v("lastHeartbeatTime", s.last_heartbeat_time);
    v("lastTransitionTime", s.last_transition_time);
    v("reason", s.reason);
    v("message", s.message);
  }
};

struct NodeAddress {
  std::string type;
  std::string address;
  bool operator==(const NodeAddress&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("type", s.type);
    v("address", s.address);
  }
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  bool operator==(const NodeStatus&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("capacity", s.capacity);
    v("allocatable", s.allocatable);
    v("conditions", s.conditions);
    v("addresses", s.addresses);
  }
};

struct Node {
  static constexpr TypeInfo kTypeInfo{"", "v1", "Node", "nodes", false};
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  RawDocument raw;
  bool operator==(const Node&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
    v("status", s.status);
  }
};
KAI_API_DECLARE_CODEC(Node);

}  // namespace kai::api
