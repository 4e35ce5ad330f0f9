#include "scheduler/framework/node_fit_view.h"

namespace kai::scheduler {

bool NodeFitView::Answers(const PodInfo& task) {
  return (task.IsRegularGpuRequest() || task.IsFractionRequest()) && !task.IsBestEffort() &&
         task.gpu_req.GpuMemory() == 0 && task.gpu_req.MigResources().empty();
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
  unused = node.UnusedResources();
}

std::optional<FitFailures> NodeFitView::Failures(const PodInfo& task, const NodeInfo& node) const {
  if (FitsInIdle(task, node)) return std::nullopt;
  // FittingFailures' own test against Idle itself: for whole-GPU tasks on a node without missing
  // reservation pods, the one that just failed.
  if ((!task.IsRegularGpuRequest() || missing_reservations) &&
      node.IsValidGpuPortion(task.gpu_req) && task.res_req.LessEqualTo(idle)) {
    return std::nullopt;
  }
  return node.FailuresWithin(task, unused);
}

}  // namespace kai::scheduler
