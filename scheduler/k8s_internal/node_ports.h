// NodePorts (kube-scheduler plugins/nodeports + framework.HostPortInfo): a pod's host ports
// must not collide with host ports already used on the node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/pod.h"
#include "scheduler/k8s_internal/status.h"

namespace kai::k8s_internal {

inline constexpr std::string_view kDefaultBindAllHostIP = "0.0.0.0";

// A host port a pod wants, sanitized: empty hostIP -> 0.0.0.0, empty protocol -> TCP.
struct HostPort {
  std::string ip;
  std::string protocol;
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

// util.GetHostPorts: ports with hostPort > 0 of regular containers and of restartable
// (sidecar, restartPolicy: Always) init containers.
std::vector<HostPort> GetHostPorts(const api::PodSpec& spec);

// The host ports in use on one node. The scheduler keeps one per node and updates it as pods
// are placed or removed. Counts uses, so that removing one of two pods that (illegitimately)
// share a port keeps the port in use.
class HostPortUsage {
 public:
  void AddPod(const api::PodSpec& spec);
  void RemovePod(const api::PodSpec& spec);
  void Add(const HostPort& p);
  void Remove(const HostPort& p);

  // HostPortInfo.CheckConflict: 0.0.0.0 on either side conflicts with any IP on the same
  // (protocol, port); otherwise only the same IP does.
  bool CheckConflict(const HostPort& want) const;
  bool empty() const { return used_.empty(); }
  size_t size() const { return used_.size(); }

 private:
  struct Entry {
    HostPort port;
    int32_t count = 0;
  };
  std::vector<Entry> used_;  // a node has few host ports: a flat vector beats any map
};

// PreFilter once per pod (kSkip when it wants no host port), Filter per node.
class NodePortsFilter {
 public:
  static NodePortsFilter PreFilter(const api::Pod& pod);
  const PluginStatus& status() const { return status_; }
  const std::vector<HostPort>& wanted() const { return wanted_; }

  // Unschedulable with "node(s) didn't have free ports for the requested pod ports".
  FilterResult Filter(const HostPortUsage& node_usage) const;

 private:
  PluginStatus status_;
  std::vector<HostPort> wanted_;
};

}  // namespace kai::k8s_internal
