// KAI's pod status model (pkg/scheduler/api/pod_status) and its status sets (reference §6.6).
#pragma once

#include <string_view>

namespace kai::scheduler {

enum class PodStatus {
  kPending,
  kAllocated,  // session only: decided this cycle, a BindRequest will be written
  kPipelined,  // session only: placed on resources that are being released
  kBinding,    // a live BindRequest exists
  kBound,
  kRunning,
  kReleasing,
  kSucceeded,
  kFailed,
  kUnknown,
  kDeleted,
  kGated,
};

std::string_view PodStatusName(PodStatus s);

// Allocated, Pipelined, Binding, Bound, Running, Pending, Gated.
inline bool IsAliveStatus(PodStatus s) {
  switch (s) {
    case PodStatus::kAllocated:
    case PodStatus::kPipelined:
    case PodStatus::kBinding:
    case PodStatus::kBound:
    case PodStatus::kRunning:
    case PodStatus::kPending:
    case PodStatus::kGated:
      return true;
    default:
      return false;
  }
}

// Consume node resources: Allocated, Pipelined, Binding, Bound, Running, Releasing.
inline bool IsActiveUsedStatus(PodStatus s) {
  switch (s) {
    case PodStatus::kAllocated:
    case PodStatus::kPipelined:
    case PodStatus::kBinding:
    case PodStatus::kBound:
    case PodStatus::kRunning:
    case PodStatus::kReleasing:
      return true;
    default:
      return false;
  }
}

// Count toward a gang: Allocated, Pipelined, Binding, Bound, Running.
inline bool IsActiveAllocatedStatus(PodStatus s) {
  switch (s) {
    case PodStatus::kAllocated:
    case PodStatus::kPipelined:
    case PodStatus::kBinding:
    case PodStatus::kBound:
    case PodStatus::kRunning:
      return true;
    default:
      return false;
  }
}

// Queue accounting: Allocated, Bound, Binding, Running.
inline bool IsAllocatedStatus(PodStatus s) {
  switch (s) {
    case PodStatus::kAllocated:
    case PodStatus::kBound:
    case PodStatus::kBinding:
    case PodStatus::kRunning:
      return true;
    default:
      return false;
  }
}

// Allocated, Bound, Running, Releasing.
inline bool IsBoundStatus(PodStatus s) {
  switch (s) {
    case PodStatus::kAllocated:
    case PodStatus::kBound:
    case PodStatus::kRunning:
    case PodStatus::kReleasing:
      return true;
    default:
      return false;
  }
}

}  // namespace kai::scheduler
