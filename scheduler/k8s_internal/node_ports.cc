#include "scheduler/k8s_internal/node_ports.h"

namespace kai::k8s_internal {
namespace {

HostPort Sanitize(const api::ContainerPort& p) {
  HostPort hp;
  hp.ip = p.host_ip.empty() ? std::string(kDefaultBindAllHostIP) : p.host_ip;
  hp.protocol = p.protocol.empty() ? std::string("TCP") : p.protocol;
  hp.port = p.host_port;
  return hp;
}

void AppendPorts(const api::Container& c, std::vector<HostPort>* out) {
  for (const api::ContainerPort& p : c.ports) {
    if (p.host_port > 0) out->push_back(Sanitize(p));
  }
}

}  // namespace

std::vector<HostPort> GetHostPorts(const api::PodSpec& spec) {
  std::vector<HostPort> out;
  for (const api::Container& c : spec.init_containers) {
    // Only init containers that run for the pod's whole life (native sidecars).
    if (c.restart_policy == "Always") AppendPorts(c, &out);
  }
  for (const api::Container& c : spec.containers) AppendPorts(c, &out);
  return out;
}

void HostPortUsage::Add(const HostPort& p) {
  if (p.port <= 0) return;
  for (Entry& e : used_) {
    if (e.port == p) {
      ++e.count;
      return;
    }
  }
  used_.push_back({p, 1});
}

void HostPortUsage::Remove(const HostPort& p) {
  if (p.port <= 0) return;
  for (size_t i = 0; i < used_.size(); ++i) {
    if (used_[i].port == p) {
      if (--used_[i].count == 0) {
        used_[i] = std::move(used_.back());
        used_.pop_back();
      }
      return;
    }
  }
}

void HostPortUsage::AddPod(const api::PodSpec& spec) {
  for (const HostPort& p : GetHostPorts(spec)) Add(p);
}

void HostPortUsage::RemovePod(const api::PodSpec& spec) {
  for (const HostPort& p : GetHostPorts(spec)) Remove(p);
}

bool HostPortUsage::CheckConflict(const HostPort& want) const {
  if (want.port <= 0) return false;
  const bool want_all = want.ip == kDefaultBindAllHostIP;
  for (const Entry& e : used_) {
    if (e.port.port != want.port || e.port.protocol != want.protocol) continue;
    if (want_all || e.port.ip == kDefaultBindAllHostIP || e.port.ip == want.ip) return true;
  }
  return false;
}

NodePortsFilter NodePortsFilter::PreFilter(const api::Pod& pod) {
  NodePortsFilter f;
  f.wanted_ = GetHostPorts(pod.spec);
  if (f.wanted_.empty()) f.status_ = PluginStatus::Skip();
  return f;
}

FilterResult NodePortsFilter::Filter(const HostPortUsage& node_usage) const {
  for (const HostPort& p : wanted_) {
    if (node_usage.CheckConflict(p)) {
      return FilterResult::Fail(Code::kUnschedulable, kErrReasonNodePorts);
    }
  }
  return FilterResult::Success();
}

}  // namespace kai::k8s_internal
