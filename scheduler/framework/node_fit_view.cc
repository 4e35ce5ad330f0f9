#include "scheduler/framework/node_fit_view.h"

#include <algorithm>
#include <cmath>

namespace kai::scheduler {

bool NodeFitView::Answers(const PodInfo& task) {
  return (task.IsRegularGpuRequest() || task.IsFractionRequest()) && !task.IsBestEffort() &&
         task.gpu_req.GpuMemory() == 0 && task.gpu_req.MigResources().empty();
}

std::vector<int> NodeFitView::OtherResources(const ResourceVectorMap& map) {
  std::vector<int> out;
  for (int i = 0; i < map.size(); ++i) {
    if (i == kCpuIndex || i == kMemoryIndex || i == kGpuIndex) continue;
    if (IsMigResource(map.NameAt(i))) continue;
    out.push_back(i);
  }
  return out;
}

void NodeFitView::Build(const NodeInfo& node, uint64_t accounting_version) {
  version = accounting_version;
  map = &node.vector_map();
  map_size = map->size();
  usable = map->size() <= 64;
  if (!usable) return;
  idle = node.idle;
  missing_reservations = node.NumGroupsWithoutReservationPod() > 0;
  const int missing = node.NumGroupsWithoutReservationPod();
  allocatable_idle = idle;
  if (missing > 0) {
    // Reservation pods the binder still has to create take pod slots (NodeInfo::IsTaskAllocatable
    // reads Idle through the same adjustment).
    allocatable_idle.Resize(kPodsIndex + 1);
    allocatable_idle.Set(kPodsIndex, allocatable_idle.Get(kPodsIndex) - missing);
  }
  // Idle + Releasing as NodeInfo's AvailableView computes it, entry by entry.
  const int room_size = std::max({idle.size(), node.releasing.size(), kPodsIndex + 1});
  room = ResourceVector(room_size);
  for (int i = 0; i < room_size; ++i) {
    double v = idle.Get(i);
    if (i < node.releasing.size()) v += node.releasing.Get(i);
    if (i == kPodsIndex) v = v - missing;
    room.Set(i, v);
  }
  // As NodeInfo::FailuresAgainstUsed computes it, index by index.
  const double used_gpus = node.used.gpu() + node.NumberOfUsedSharedGpus();
  const int n = std::max({map->size(), kCpuIndex + 1, kMemoryIndex + 1, kGpuIndex + 1});
  available.resize(n);
  for (int i = 0; i < n; ++i) {
    available[i] = node.allocatable.Get(i) - (i == kGpuIndex ? used_gpus : node.used.Get(i));
  }
  memory_of_every_gpu = node.memory_of_every_gpu;
  shared_groups = !node.used_shared_gpus_memory.empty();
}

bool NodeFitView::FitsIn(const PodInfo& task, const NodeInfo& node, bool valid_portion,
                         const ResourceVector& vec) const {
  if (task.IsRegularGpuRequest()) return valid_portion && task.res_req.LessEqualTo(vec);
  // A fraction: everything but GPUs within Idle, then enough whole or shared devices.
  for (int i = 0; i < task.res_req.size(); ++i) {
    if (i == kGpuIndex) continue;
    if (task.res_req.Get(i) > vec.Get(i)) return false;
  }
  if (!valid_portion) return false;
  const auto whole = static_cast<int64_t>(std::floor(vec.gpu()));
  // Without shared groups the count is 0 without asking the node.
  const int64_t shared = shared_groups ? node.FractionTaskGpusAllocatableDeviceCount(task) : 0;
  return whole + shared >= task.gpu_req.NumDevices();
}

std::optional<FitFailures> NodeFitView::Failures(const PodInfo& task, const NodeInfo& node,
                                                 bool valid_portion,
                                                 std::span<const int> others) const {
  if (FitsInIdle(task, node, valid_portion)) return std::nullopt;
  // FittingFailures' own test against Idle itself: for whole-GPU tasks on a node without missing
  // reservation pods, the one that just failed.
  if ((!task.IsRegularGpuRequest() || missing_reservations) && valid_portion &&
      task.res_req.LessEqualTo(idle)) {
    return std::nullopt;
  }
  // The failures against allocatable - used, as FailuresAgainstUsed sets them.
  FitFailures f;
  const GpuRequirement& req = task.gpu_req;
  if (req.Gpus() > available[kGpuIndex]) f.Set(kGpuIndex);
  f.gpu_memory = req.GpuMemory() > memory_of_every_gpu;
  if (static_cast<int64_t>(task.res_req.milli_cpu()) > static_cast<int64_t>(available[kCpuIndex])) {
    f.Set(kCpuIndex);
  }
  if (task.res_req.memory() > available[kMemoryIndex]) f.Set(kMemoryIndex);
  for (int i : others) {
    auto req_q = static_cast<int64_t>(task.res_req.Get(i));
    if (req_q > 0 && static_cast<int64_t>(available[i]) < req_q) f.Set(i);
  }
  return f;
}

}  // namespace kai::scheduler
