// PodInfo: KAI's task (pkg/scheduler/api/pod_info). The Kubernetes Pod it describes is shared
// and immutable; everything a session changes (status, node, GPU groups, accepted resources) is
// held here, so copying a PodInfo into a new snapshot copies only a few small fields.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/pod.h"
#include "kube/base/clock.h"
#include "scheduler/api/pod_status.h"
#include "scheduler/api/resource.h"

namespace kai::scheduler {

class PodGroupInfo;

enum class ResourceRequestType { kRegular, kFraction, kGpuMemory, kMigInstance };
enum class ResourceReceivedType { kNone, kRegular, kFraction, kMigInstance };

std::string_view ReceivedTypeName(ResourceReceivedType t);
ResourceReceivedType ParseReceivedType(std::string_view s);

// Everything derived from a pod's spec that scheduling needs, computed once per pod version
// (the incremental model caches it; see cache/cluster_model.h).
struct PodRequirements {
  // Effective requests (max(sum of containers + sidecars, each init container) + overhead),
  // "cpu" in millicores, everything else in base units; "nvidia.com/gpu" and MIG profiles are
  // not listed here (they are in `gpu`).
  std::map<std::string, double> requests;
  GpuRequirement gpu;
  ResourceRequestType request_type = ResourceRequestType::kRegular;
  bool legacy_mig = false;
  // Problems found while reading GPU annotations (the pod is still modelled; messages are
  // surfaced as warnings by the loader).
  std::vector<std::string> warnings;
};

// The PodGroup id of a pod: "<namespace>/<pod-group-name>" (KAI keys by the bare name; we
// qualify it with the namespace, see docs/scheduler.md "Differences").
using PodGroupId = std::string;

class PodInfo {
 public:
  // Builds a task from a pod and its derived requirements. `bind_request_node` /
  // `bind_request_groups` / `bind_request_received` describe a live BindRequest (empty = none).
  PodInfo(std::shared_ptr<const api::Pod> pod, const PodRequirements& req,
          const ResourceVectorMap& vector_map, std::string_view bind_request_node = {},
          const std::vector<std::string>* bind_request_groups = nullptr,
          std::string_view bind_request_received = {});

  // Identity.
  const std::string& uid() const { return uid_; }
  const std::string& name() const { return pod_->metadata.name; }
  const std::string& namespace_() const { return pod_->metadata.namespace_; }
  // "namespace/name"
  const std::string& key() const { return key_; }
  const PodGroupId& job() const { return job_; }
  // A pod without a `pod-group-name` annotation is given the job of one the snapshot made up
  // for it (ClusterModel, "implicit PodGroups").
  void set_job(PodGroupId job) {
    job_ = std::move(job);
    session_job_epoch = 0;
  }
  const std::string& subgroup_name() const { return subgroup_name_; }
  const api::Pod& pod() const { return *pod_; }
  const std::shared_ptr<const api::Pod>& pod_ptr() const { return pod_; }
  WallTime creation_time() const { return creation_time_; }

  // Mutable scheduling state.
  PodStatus status = PodStatus::kPending;
  std::string node_name;
  bool is_virtual_status = false;
  bool is_legacy_mig = false;
  ResourceRequestType request_type = ResourceRequestType::kRegular;
  ResourceReceivedType received_type = ResourceReceivedType::kNone;
  ResourceVector res_req;
  ResourceVector accepted;
  GpuRequirement gpu_req;
  GpuRequirement accepted_gpu;
  std::vector<std::string> gpu_groups;
  bool has_bind_request = false;
  bool is_reservation = false;
  // The pod names another scheduler (spec.schedulerName != the snapshot's --scheduler-name):
  // set where the snapshot is built, so per-session passes need not read the pod object.
  bool of_other_scheduler = false;
  // Position among the snapshot's tasks while ClusterModel copies its kept snapshot: the copies
  // of nodes and jobs re-point their task pointers through it (cache/cluster_model.h).
  uint32_t snapshot_slot = 0;
  // ClusterInfo::JobOf's memo: this pod's job in the session numbered session_job_epoch.
  mutable PodGroupInfo* session_job = nullptr;
  mutable uint64_t session_job_epoch = 0;
  // NodeInfo::FindEntry's hint: this pod's entry in the task map whose layout was
  // node_entry_layout (a value no other map, copy or later layout ever has).
  mutable const void* node_entry = nullptr;
  mutable uint64_t node_entry_layout = 0;

  bool IsMigProfileRequest() const { return request_type == ResourceRequestType::kMigInstance; }
  bool IsFractionRequest() const { return request_type == ResourceRequestType::kFraction; }
  bool IsGpuMemoryRequest() const { return request_type == ResourceRequestType::kGpuMemory; }
  bool IsRegularGpuRequest() const { return request_type == ResourceRequestType::kRegular; }
  bool IsSharedGpuRequest() const { return IsFractionRequest() || IsGpuMemoryRequest(); }
  bool IsFractionCandidate() const { return IsSharedGpuRequest(); }
  bool IsMigCandidate() const { return IsMigProfileRequest(); }
  bool IsFractionAllocation() const { return received_type == ResourceReceivedType::kFraction; }
  bool IsSharedGpuAllocation() const { return IsFractionAllocation(); }
  bool IsRequireAnyKindOfGpu() const {
    return gpu_req.Gpus() > 0 || IsGpuMemoryRequest() || IsMigProfileRequest();
  }
  bool IsCpuOnlyRequest() const { return !IsRequireAnyKindOfGpu(); }
  bool IsBestEffort() const {
    return gpu_req.IsEmpty() && res_req.IsZero() && !IsGpuMemoryRequest();
  }

  // Pending tasks (and, in simulations, tasks this session evicted) are candidates.
  bool ShouldAllocate(bool real_allocation) const {
    return status == PodStatus::kPending ||
           (!real_allocation && status == PodStatus::kReleasing && is_virtual_status);
  }

  // Scheduling-constraints signature (§7.7), computed lazily.
  const std::string& SchedulingConstraintsSignature() const;

 private:
  std::shared_ptr<const api::Pod> pod_;
  std::string uid_;
  std::string key_;
  PodGroupId job_;
  std::string subgroup_name_;
  WallTime creation_time_{};
  mutable std::string signature_;
};

// KAI getTaskStatus (pod phase + deletion + node + BindRequest + gates).
PodStatus TaskStatusFromPod(const api::Pod& pod, bool has_live_bind_request);

// GPU group ids recorded on a pod (label runai-gpu-group, or runai-gpu-group/<g> labels).
std::vector<std::string> GpuGroupsFromPod(const api::Pod& pod);

}  // namespace kai::scheduler
