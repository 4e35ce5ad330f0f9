// Simulated GPU node pools: what `--nodes/--gpus-per-node/...` and `--node-pools FILE` describe,
// and the Node objects they produce (capacity, NVIDIA GPU feature-discovery labels, addresses,
// conditions). See docs/localkube.md "Simulated cluster".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::localkube {

// Annotation marking a node as simulated: the simulated kubelet keeps its Ready condition and
// lease fresh and runs the pods bound to it (like KWOK's kwok.x-k8s.io/node annotation).
inline constexpr std::string_view kSimulatedNodeAnnotation = "localkube.kai.scheduler/simulated";

struct NodeTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

struct NodePool {
  // Nodes are named <name_prefix><index>, index from 0.
  std::string name_prefix = "node-";
  int count = 0;
  int gpus = 8;
  int64_t gpu_memory_mib = 81920;
  std::string gpu_product = "NVIDIA-A100-SXM4-80GB";
  std::string cpu = "64";
  std::string memory = "512Gi";
  int max_pods = 110;
  std::map<std::string, std::string> labels;  // added to (or overriding) the generated ones
  std::vector<NodeTaint> taints;
};

// "k=v,k2=v2" (--node-labels); errors name the bad entry.
StatusOr<std::map<std::string, std::string>> ParseNodeLabels(std::string_view text);
// "key=value:Effect,key:Effect" (--node-taints, kubectl taint syntax).
StatusOr<std::vector<NodeTaint>> ParseNodeTaints(std::string_view text);
// A node-pool file (YAML or JSON): {nodePools: [{namePrefix, count, gpus, gpuMemory,
// gpuProduct, cpu, memory, maxPods, labels, taints}, ...]} or the list alone. Errors name the
// file, the pool and the field.
StatusOr<std::vector<NodePool>> ParseNodePools(std::string_view text, std::string_view filename);
// Checks a pool (quantities, label syntax, taint effects, node names).
Status ValidateNodePool(const NodePool& pool, std::string_view what);

// The Node object (JSON) of node `index` of `pool`; `ordinal` numbers nodes across all pools and
// chooses the node's InternalIP and podCIDR.
std::string NodeJson(const NodePool& pool, int index, int ordinal, WallTime now);
std::string NodeName(const NodePool& pool, int index);
// Deterministic UUID of GPU `index` of `node` (what the device plugin and NVML report).
std::string GpuUuid(std::string_view node, int index);
// Dotted-quad form of an IPv4 address held in host byte order.
std::string FormatIpv4(uint32_t v);

}  // namespace kai::localkube
