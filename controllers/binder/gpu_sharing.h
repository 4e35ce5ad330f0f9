// The binder's GPU-sharing step (KAI pkg/binder/plugins/gpusharing and
// pkg/binder/common/gpusharingconfigmap, reference §12.2, §12.4): before a fractional pod is
// bound, the two per-pod ConfigMaps the admission webhook pointed the container at are created
// (owned by the pod) and filled with the reserved GPUs (NVIDIA_VISIBLE_DEVICES) and the portion
// (GPU_PORTION); a failed bind deletes them again.
#pragma once

#include <string>
#include <vector>

#include "api/bind_request.h"
#include "api/pod.h"
#include "controllers/binder/binder_client.h"
#include "kube/base/statusor.h"

namespace kai::binder {

inline constexpr std::string_view kNvidiaVisibleDevices = "NVIDIA_VISIBLE_DEVICES";
inline constexpr std::string_view kGpuPortion = "GPU_PORTION";
inline constexpr std::string_view kNumOfGpusBC = "RUNAI_NUM_OF_GPUS";           // deprecated
inline constexpr std::string_view kVisibleDevicesBC = "RUNAI-VISIBLE-DEVICES";  // deprecated
inline constexpr std::string_view kCdiDevicePrefix = "k8s.device-plugin.nvidia.com/gpu=";

// The container that receives the shared GPU: the one named by gpu-fraction-container-name
// (regular containers first, then init containers), else the first container.
struct ContainerRef {
  const api::Container* container = nullptr;
  int index = 0;
  bool init = false;
};
StatusOr<ContainerRef> FractionContainerRef(const api::Pod& pod);

// "<runai/shared-gpu-configmap>-<index>" ("-i<index>" for init containers); an error when the
// pod lacks the annotation (the admission webhook sets it).
StatusOr<std::string> CapabilitiesConfigMapName(const api::Pod& pod, const ContainerRef& ref);
// "<capabilities name>-evar".
StatusOr<std::string> DirectEnvVarsConfigMapName(const api::Pod& pod, const ContainerRef& ref);

// receivedResourceType == Fraction.
bool IsSharedGpuAllocation(const api::BindRequest& br);
// gpu-fraction-num-devices > 1: the pod is labelled runai-gpu-group/<g>=<g> per group.
bool IsMultiFraction(const api::Pod& pod);

class GpuSharing {
 public:
  GpuSharing(BinderClient* client, bool cdi_enabled) : client_(client), cdi_(cdi_enabled) {}

  // Creates (or adopts) both ConfigMaps and writes the visible devices and the portion. Every
  // step is idempotent, so a retry after a crash converges.
  Status PreBind(const api::Pod& pod, const api::BindRequest& br,
                 const std::vector<std::string>& gpu_ids);
  // Deletes both ConfigMaps (already gone is fine).
  Status Rollback(const api::Pod& pod, const api::BindRequest& br);

 private:
  Status UpsertConfigMap(const api::Pod& pod, const std::string& name);
  Status UpdateData(const api::Pod& pod, const std::string& name,
                    const std::vector<std::pair<std::string, std::string>>& set,
                    const std::vector<std::pair<std::string, std::string>>& set_if_present);

  BinderClient* client_;
  bool cdi_;
};

}  // namespace kai::binder
