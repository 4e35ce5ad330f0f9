// Bounds on the amounts the scheduler reads from objects.
//
// The API server accepts quantities up to 2^63-1 (Quantity.Value() saturates there) and any
// int64 in the GPU annotations and labels. The scheduler computes with them: GPU counts x 100
// (two-decimal rounding), devices x GPU memory, MIG slices x instances, sums over a node's pods,
// casts back to integers in the fit checks. At int64's edge those overflow, which is undefined
// behaviour; on x86 a request of 2^63 millicores cast back became INT64_MIN and fitted every
// node (KAI's Go has the same casts). So every amount is clamped where it is read, to bounds far
// above any real node under which all of that arithmetic is exact. A pod's bound is above a
// node's, so a request beyond every real node still fits no node after the clamp.
#pragma once

#include <cstdint>
#include <string_view>

namespace kai::scheduler {

// Any resource: CPU in millicores, memory and storage in bytes, pods, extended resources.
inline constexpr double kMaxNodeAmount = 0x1p52;  // 4.5e15: 4 PiB, 4.5e12 cores
inline constexpr double kMaxPodAmount = 0x1p53;   // still an exact double
// GPU devices: nvidia.com/gpu, MIG instances, the gpu-fraction-num-devices annotation. Lower
// than the rest: GPU sharing walks a node's devices one by one for every fractional pod (as KAI
// does), and time-sliced device plugins advertise hundreds, not tens of thousands.
inline constexpr int64_t kMaxNodeGpuDevices = int64_t{1} << 14;
inline constexpr int64_t kMaxPodGpuDevices = kMaxNodeGpuDevices + 1;
// The memory of one GPU in MiB (nvidia.com/gpu.memory label, gpu-memory annotation).
inline constexpr int64_t kMaxNodeGpuMemoryMib = int64_t{1} << 30;  // 1 PiB
inline constexpr int64_t kMaxPodGpuMemoryMib = kMaxNodeGpuMemoryMib + 1;
// MIG profile slices and memory in a resource name ("nvidia.com/mig-<g>g.<m>gb").
inline constexpr int64_t kMaxMigProfileNumber = int64_t{1} << 20;

// Whether `resource` counts GPU devices (whole GPUs or MIG instances).
bool IsGpuDeviceResource(std::string_view resource);

// The bound of `resource` for a node / a pod.
double NodeAmountBound(std::string_view resource);
double PodAmountBound(std::string_view resource);

// `amount` of `resource` clamped to the node / pod bound.
double ClampNodeAmount(std::string_view resource, double amount);
double ClampPodAmount(std::string_view resource, double amount);

}  // namespace kai::scheduler
