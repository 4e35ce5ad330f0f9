// NodeFitView: what NodeInfo::FittingFailuresUnlessAllocatable reads of a node for a task that
// asks for whole GPUs, a GPU fraction or no GPU, flattened into plain vectors once per accounting
// version.
//
// Why: the fit cache records the errors of every new task shape on every node of the cluster
// (~1,600 shapes x 4,000 nodes in the L benchmark). Through the general path each node costs a
// few hundred instructions (the used-GPU count, the reservation-pod check, per-resource Get
// calls, a MIG-name test per extended resource); through a view it is a few comparisons of
// contiguous doubles. The fit tests and the failure flags are NodeInfo's own, on the
// materialised vectors. Debug builds check every fit-cache answer against a fresh node-by-node
// computation.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/api/fit_errors.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/pod_info.h"

namespace kai::scheduler {

struct NodeFitView {
  static constexpr uint64_t kNeverBuilt = ~uint64_t{0};

  // Tasks a view answers for: whole-GPU, fractional or CPU-only requests, not best effort, no GPU
  // memory, no MIG profile (the others need the node's GPU memory and MIG accounting).
  static bool Answers(const PodInfo& task);

  // Flattens the node as it is now; `usable` is false when the node needs the general path (more
  // than 64 resources: failures beyond the first 64 are kept apart).
  void Build(const NodeInfo& node, uint64_t accounting_version);

  // FittingFailuresUnlessAllocatable for a task Answers() accepts on `node`, the node the view
  // was built from (still at that version): nullopt when it fits in Idle.
  std::optional<FitFailures> Failures(const PodInfo& task, const NodeInfo& node) const;

  // NodeInfo::IsTaskAllocatable for a task Answers() accepts.
  bool FitsInIdle(const PodInfo& task, const NodeInfo& node) const {
    return node.IsTaskAllocatableWithin(task, allocatable_idle);
  }
  // NodeInfo::IsTaskAllocatableOnReleasingOrIdle for a task Answers() accepts.
  bool HasRoom(const PodInfo& task, const NodeInfo& node) const {
    return node.IsTaskAllocatableWithin(task, room);
  }

  uint64_t version = kNeverBuilt;
  bool usable = false;
  const ResourceVectorMap* map = nullptr;
  int map_size = 0;  // the map's size when built (a grown map needs a rebuild)
  ResourceVector idle;
  ResourceVector allocatable_idle;  // NodeInfo::AvailableResources(false)
  ResourceVector room;              // NodeInfo::AvailableResources(true)
  bool missing_reservations = false;
  ResourceVector unused;  // NodeInfo::UnusedResources()
};

}  // namespace kai::scheduler
