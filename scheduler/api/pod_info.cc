#include "scheduler/api/pod_info.h"

#include <algorithm>

#include "api/well_known.h"
#include "kube/base/strings.h"

namespace kai::scheduler {

std::string_view PodStatusName(PodStatus s) {
  switch (s) {
    case PodStatus::kPending:
      return "Pending";
    case PodStatus::kAllocated:
      return "Allocated";
    case PodStatus::kPipelined:
      return "Pipelined";
    case PodStatus::kBinding:
      return "Binding";
    case PodStatus::kBound:
      return "Bound";
    case PodStatus::kRunning:
      return "Running";
    case PodStatus::kReleasing:
      return "Releasing";
    case PodStatus::kSucceeded:
      return "Succeeded";
    case PodStatus::kFailed:
      return "Failed";
    case PodStatus::kUnknown:
      return "Unknown";
    case PodStatus::kDeleted:
      return "Deleted";
    case PodStatus::kGated:
      return "Gated";
  }
  return "Unknown";
}

std::string_view ReceivedTypeName(ResourceReceivedType t) {
  switch (t) {
    case ResourceReceivedType::kRegular:
      return "Regular";
    case ResourceReceivedType::kFraction:
      return "Fraction";
    case ResourceReceivedType::kMigInstance:
      return "MigInstance";
    case ResourceReceivedType::kNone:
      break;
  }
  return "";
}

ResourceReceivedType ParseReceivedType(std::string_view s) {
  if (s == "Regular") return ResourceReceivedType::kRegular;
  if (s == "Fraction") return ResourceReceivedType::kFraction;
  if (s == "MigInstance") return ResourceReceivedType::kMigInstance;
  return ResourceReceivedType::kNone;
}

PodStatus TaskStatusFromPod(const api::Pod& pod, bool has_live_bind_request) {
  const std::string& phase = pod.status.phase;
  bool deleting = pod.metadata.deletion_timestamp.has_value();
  if (phase == "Running") return deleting ? PodStatus::kReleasing : PodStatus::kRunning;
  if (phase == "Pending" || phase.empty()) {
    if (deleting) return PodStatus::kReleasing;
    if (!pod.spec.node_name.empty()) return PodStatus::kBound;
    if (has_live_bind_request) return PodStatus::kBinding;
    if (!pod.spec.scheduling_gates.empty()) return PodStatus::kGated;
    return PodStatus::kPending;
  }
  if (phase == "Succeeded") return PodStatus::kSucceeded;
  if (phase == "Failed") return PodStatus::kFailed;
  return PodStatus::kUnknown;
}

std::vector<std::string> GpuGroupsFromPod(const api::Pod& pod) {
  std::vector<std::string> groups;
  const auto& labels = pod.metadata.labels;
  auto it = labels.find(std::string(api::kGpuGroupLabel));
  if (it != labels.end() && !it->second.empty()) groups.push_back(it->second);
  for (const auto& [key, value] : labels) {
    if (key.starts_with(api::kMultiGpuGroupLabelPrefix) && !value.empty()) {
      if (std::find(groups.begin(), groups.end(), value) == groups.end()) groups.push_back(value);
    }
  }
  return groups;
}

namespace {
// Map keys built once (std::map<std::string, ...>::find needs a std::string; the longer names
// would otherwise be allocated for every pod of every snapshot).
const std::string& SubGroupLabelKey() {
  static const std::string* const k = new std::string(api::kSubGroupLabel);
  return *k;
}
const std::string& ReceivedResourceTypeKey() {
  static const std::string* const k = new std::string(api::kReceivedResourceTypeAnnotation);
  return *k;
}
}  // namespace

PodInfo::PodInfo(std::shared_ptr<const api::Pod> pod, const PodRequirements& req,
                 const ResourceVectorMap& vector_map, std::string_view bind_request_node,
                 const std::vector<std::string>* bind_request_groups,
                 std::string_view bind_request_received)
    : pod_(std::move(pod)) {
  const api::ObjectMeta& meta = pod_->metadata;
  uid_ = meta.uid.empty() ? meta.namespace_ + "/" + meta.name : meta.uid;
  key_ = meta.namespace_ + "/" + meta.name;
  auto pg = meta.annotations.find(std::string(api::kPodGroupNameAnnotation));
  if (pg != meta.annotations.end() && !pg->second.empty())
    job_ = meta.namespace_ + "/" + pg->second;
  auto sg = meta.labels.find(SubGroupLabelKey());
  if (sg != meta.labels.end()) subgroup_name_ = sg->second;
  if (meta.creation_timestamp) creation_time_ = *meta.creation_timestamp;

  has_bind_request = !bind_request_node.empty();
  node_name = pod_->spec.node_name.empty() ? std::string(bind_request_node) : pod_->spec.node_name;
  status = TaskStatusFromPod(*pod_, has_bind_request);

  gpu_req = req.gpu;
  request_type = req.request_type;
  is_legacy_mig = req.legacy_mig;

  res_req = ResourceVector(vector_map.size());
  for (const auto& [name, value] : req.requests) {
    int idx = vector_map.Index(name);
    if (idx >= 0 && idx != kGpuIndex) res_req.Set(idx, res_req.Get(idx) + value);
  }
  res_req.Set(kPodsIndex, 1);
  res_req.Set(kGpuIndex, gpu_req.Gpus());
  for (const auto& [name, count] : gpu_req.MigResources()) {
    int idx = vector_map.Index(name);
    if (idx >= 0) res_req.Set(idx, static_cast<double>(count));
  }
  accepted = ResourceVector(vector_map.size());

  if (bind_request_groups != nullptr && !bind_request_groups->empty()) {
    gpu_groups = *bind_request_groups;
  } else {
    gpu_groups = GpuGroupsFromPod(*pod_);
  }
  if (!bind_request_received.empty()) {
    received_type = ParseReceivedType(bind_request_received);
  } else {
    auto rt = meta.annotations.find(ReceivedResourceTypeKey());
    if (rt != meta.annotations.end()) received_type = ParseReceivedType(rt->second);
  }
}

namespace {

void AppendSelector(std::string* out, const api::LabelSelector& s) {
  for (const auto& [k, v] : s.match_labels) out->append(StrCat("ml:", k, "=", v, ";"));
  for (const auto& e : s.match_expressions) {
    *out += "me:" + e.key + " " + e.operator_;
    for (const auto& v : e.values) *out += "," + v;
    *out += ";";
  }
}

void AppendNodeTerm(std::string* out, const api::NodeSelectorTerm& t) {
  for (const auto& e : t.match_expressions) {
    *out += "e:" + e.key + " " + e.operator_;
    for (const auto& v : e.values) *out += "," + v;
    *out += ";";
  }
  for (const auto& e : t.match_fields) {
    *out += "f:" + e.key + " " + e.operator_;
    for (const auto& v : e.values) *out += "," + v;
    *out += ";";
  }
}

void AppendPodAffinity(std::string* out, const api::PodAffinity& a) {
  for (const auto& t : a.required_during_scheduling_ignored_during_execution) {
    *out += "r:" + t.topology_key + ":";
    if (t.label_selector) AppendSelector(out, *t.label_selector);
    for (const auto& n : t.namespaces) *out += "ns:" + n + ";";
  }
  for (const auto& w : a.preferred_during_scheduling_ignored_during_execution) {
    *out += "p" + std::to_string(w.weight) + ":" + w.pod_affinity_term.topology_key + ":";
    if (w.pod_affinity_term.label_selector)
      AppendSelector(out, *w.pod_affinity_term.label_selector);
  }
}

}  // namespace

const std::string& PodInfo::SchedulingConstraintsSignature() const {
  if (!signature_.empty()) return signature_;
  // A canonical text of the scheduling-relevant spec (KAI hashes the same fields with SHA-256;
  // equality is all that matters, so the text itself is the key).
  std::string s;
  const api::PodSpec& spec = pod_->spec;
  s += "ns:";
  for (const auto& [k, v] : spec.node_selector) s.append(StrCat(k, "=", v, ";"));
  if (spec.affinity) {
    if (spec.affinity->node_affinity) {
      const auto& na = *spec.affinity->node_affinity;
      if (na.required_during_scheduling_ignored_during_execution) {
        for (const auto& t :
             na.required_during_scheduling_ignored_during_execution->node_selector_terms) {
          s += "|nr:";
          AppendNodeTerm(&s, t);
        }
      }
      for (const auto& p : na.preferred_during_scheduling_ignored_during_execution) {
        s += "|np" + std::to_string(p.weight) + ":";
        AppendNodeTerm(&s, p.preference);
      }
    }
    if (spec.affinity->pod_affinity) {
      s += "|pa:";
      AppendPodAffinity(&s, *spec.affinity->pod_affinity);
    }
    if (spec.affinity->pod_anti_affinity) {
      s += "|paa:";
      AppendPodAffinity(&s, *spec.affinity->pod_anti_affinity);
    }
  }
  s += "|tol:";
  for (const auto& t : spec.tolerations) {
    s += t.key + "," + t.operator_ + "," + t.value + "," + t.effect + ";";
  }
  s += "|pc:" + spec.priority_class_name;
  if (spec.priority) s += "|p:" + std::to_string(*spec.priority);
  s += "|tsc:";
  for (const auto& c : spec.topology_spread_constraints) {
    s += std::to_string(c.max_skew) + "," + c.topology_key + "," + c.when_unsatisfiable + ";";
    if (c.label_selector) AppendSelector(&s, *c.label_selector);
  }
  s += "|hp:";
  for (const auto& c : spec.containers) {
    for (const auto& p : c.ports) {
      if (p.host_port > 0) s += std::to_string(p.host_port) + "/" + p.protocol + ";";
    }
  }
  s += "|pvc:";
  for (const auto& v : spec.volumes) {
    if (v.persistent_volume_claim) s += v.persistent_volume_claim->claim_name + ";";
  }
  signature_ = std::move(s);
  return signature_;
}

}  // namespace kai::scheduler
