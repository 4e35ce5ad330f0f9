// Label and annotation keys KAI reads and writes (kai-reference §3), and other fixed names.
#pragma once

#include <string_view>

namespace kai::api {

// Defaults of configurable names.
inline constexpr std::string_view kDefaultSchedulerName = "kai-scheduler";
inline constexpr std::string_view kDefaultKaiNamespace = "kai-scheduler";
inline constexpr std::string_view kDefaultQueueLabelKey = "kai.scheduler/queue";
inline constexpr std::string_view kDefaultNodePoolLabelKey = "kai.scheduler/node-pool";
inline constexpr std::string_view kDefaultResourceReservationName = "kai-resource-reservation";
inline constexpr std::string_view kDefaultScaleAdjustNamespace = "kai-scale-adjust";
inline constexpr std::string_view kDefaultQueueName = "default-queue";
inline constexpr std::string_view kDefaultParentQueueName = "default-parent-queue";

// On pods.
inline constexpr std::string_view kPodGroupNameAnnotation = "pod-group-name";
inline constexpr std::string_view kSubGroupLabel = "kai.scheduler/subgroup-name";
inline constexpr std::string_view kGpuFractionAnnotation = "gpu-fraction";
inline constexpr std::string_view kGpuMemoryAnnotation = "gpu-memory";
inline constexpr std::string_view kGpuFractionNumDevicesAnnotation = "gpu-fraction-num-devices";
inline constexpr std::string_view kGpuFractionContainerNameAnnotation =
    "gpu-fraction-container-name";
inline constexpr std::string_view kMpsAnnotation = "mps";
inline constexpr std::string_view kReceivedResourceTypeAnnotation = "received-resource-type";
inline constexpr std::string_view kSharedGpuConfigMapAnnotation = "runai/shared-gpu-configmap";
inline constexpr std::string_view kGpuGroupLabel = "runai-gpu-group";
inline constexpr std::string_view kMultiGpuGroupLabelPrefix = "runai-gpu-group/";
inline constexpr std::string_view kPriorityClassLabel = "priorityClassName";
inline constexpr std::string_view kPreemptibilityLabel = "kai.scheduler/preemptibility";
inline constexpr std::string_view kTaskPriorityLabel = "kai.scheduler/task-priority";
inline constexpr std::string_view kUserLabel = "user";
inline constexpr std::string_view kProjectLabel = "project";
inline constexpr std::string_view kKubeflowJobRoleLabel = "training.kubeflow.org/job-role";
inline constexpr std::string_view kKubeflowReplicaTypeLabel = "training.kubeflow.org/replica-type";
inline constexpr std::string_view kKubeflowReplicaIndexLabel =
    "training.kubeflow.org/replica-index";
inline constexpr std::string_view kRayNodeTypeLabel = "ray.io/node-type";
inline constexpr std::string_view kRayGroupLabel = "ray.io/group";
inline constexpr std::string_view kReserveForGpuIndexAnnotation = "run.ai/reserve_for_gpu_index";
inline constexpr std::string_view kKarpenterDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";
inline constexpr std::string_view kAppLabel = "app";
inline constexpr std::string_view kSharedGpuPodNameLabel = "shared-gpu-pod-name";
inline constexpr std::string_view kSharedGpuPodNamespaceLabel = "shared-gpu-pod-namespace";

// On workloads and PodGroups.
inline constexpr std::string_view kTopologyAnnotation = "kai.scheduler/topology";
inline constexpr std::string_view kTopologyRequiredPlacementAnnotation =
    "kai.scheduler/topology-required-placement";
inline constexpr std::string_view kTopologyPreferredPlacementAnnotation =
    "kai.scheduler/topology-preferred-placement";
inline constexpr std::string_view kSegmentSizeAnnotation = "kai.scheduler/segment-size";
inline constexpr std::string_view kTopOwnerMetadataAnnotation = "kai.scheduler/top-owner-metadata";
inline constexpr std::string_view kLastStartTimestampAnnotation =
    "kai.scheduler/last-start-timestamp";
inline constexpr std::string_view kStalePodGroupTimestampAnnotation =
    "kai.scheduler/stale-podgroup-timestamp";

// On nodes.
inline constexpr std::string_view kGpuMemoryLabel = "nvidia.com/gpu.memory";
inline constexpr std::string_view kGpuCountLabel = "nvidia.com/gpu.count";
inline constexpr std::string_view kMigStrategyLabel = "nvidia.com/mig.strategy";
inline constexpr std::string_view kMigEnabledLabel = "node-role.kubernetes.io/mig-enabled";
inline constexpr std::string_view kGpuWorkerLabel = "node-role.kubernetes.io/gpu-worker";
inline constexpr std::string_view kCpuWorkerLabel = "node-role.kubernetes.io/cpu-worker";
inline constexpr std::string_view kFakeGpuNodeLabel = "run.ai/fake.gpu";

// On BindRequests and events.
inline constexpr std::string_view kSelectedNodeLabel = "selected-node";
inline constexpr std::string_view kNumEvictedPodsAnnotation = "num-evicted-pods";
inline constexpr std::string_view kEvictorPodGroupNameAnnotation = "evictor-pod-group-name";
inline constexpr std::string_view kEvictorPodGroupNamespaceAnnotation =
    "evictor-pod-group-namespace";
inline constexpr std::string_view kEvictorActionTypeAnnotation = "evictor-action-type";

}  // namespace kai::api
