// Container resource requirements and well-known resource names.
#pragma once

#include <string_view>

#include "api/quantity.h"

namespace kai::api {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourceNvidiaGpu = "nvidia.com/gpu";
// Reported by the podgroup controller for GPU-memory requests (KAI §12.7).
inline constexpr std::string_view kResourceGpuMemory = "run.ai/gpu.memory";

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  bool operator==(const ResourceRequirements&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("limits", s.limits);
    v("requests", s.requests);
  }
};

}  // namespace kai::api
