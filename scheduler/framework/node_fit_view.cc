#include "scheduler/framework/node_fit_view.h"

#include <algorithm>

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
  allocatable_idle = node.AvailableResources(false);
  room = node.AvailableResources(true);
  // As NodeInfo::FailuresAgainstUsed computes it, index by index.
  const double used_gpus = node.used.gpu() + node.NumberOfUsedSharedGpus();
  const int n = std::max({map->size(), kCpuIndex + 1, kMemoryIndex + 1, kGpuIndex + 1});
  available.resize(n);
  for (int i = 0; i < n; ++i) {
    available[i] = node.allocatable.Get(i) - (i == kGpuIndex ? used_gpus : node.used.Get(i));
  }
  memory_of_every_gpu = node.memory_of_every_gpu;
}

std::optional<FitFailures> NodeFitView::Failures(const PodInfo& task, const NodeInfo& node,
                                                 std::span<const int> others) const {
  if (FitsInIdle(task, node)) return std::nullopt;
  // FittingFailures' own test against Idle itself: for whole-GPU tasks on a node without missing
  // reservation pods, the one that just failed.
  if ((!task.IsRegularGpuRequest() || missing_reservations) &&
      node.IsValidGpuPortion(task.gpu_req) && task.res_req.LessEqualTo(idle)) {
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
