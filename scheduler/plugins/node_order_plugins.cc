// Node and GPU scoring plugins: nominatednode, nodeavailability, resourcetype,
// gpusharingorder, gpupack, gpuspread, nodeplacement (reference §8, §8.2, §12.3).
#include <limits>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/plugins/node_resource_ranges.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler {

namespace {

// nominatednode: strongly prefer pod.status.nominatedNodeName.
class NominatedNodePlugin : public Plugin {
 public:
  std::string_view Name() const override { return "nominatednode"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddNodeOrderBatchFn([](const PodInfo& task, std::span<const NodeInfo* const> nodes,
                                std::span<double> out, std::span<uint8_t>) {
      const std::string& nominated = task.pod().status.nominated_node_name;
      if (nominated.empty()) return;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i]->name() == nominated) out[i] += scores::kNominatedNode;
      }
    });
  }
};

// nodeavailability: prefer nodes where the task fits in Idle (no waiting for releasing pods).
class NodeAvailabilityPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "nodeavailability"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddNodeOrderBatchFn([ssn](const PodInfo& task, std::span<const NodeInfo* const> nodes,
                                   std::span<double> out, std::span<uint8_t>) {
      std::vector<uint8_t> fits(nodes.size());
      ssn->resource_fit_cache().FitsInIdle(task, nodes, fits);  // NodeInfo::IsTaskAllocatable
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (fits[i] != 0) out[i] += scores::kAvailability;
      }
    });
  }
};

// resourcetype: keep CPU-only tasks on CPU-only nodes.
class ResourceTypePlugin : public Plugin {
 public:
  std::string_view Name() const override { return "resourcetype"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddNodeOrderBatchFn([](const PodInfo& task, std::span<const NodeInfo* const> nodes,
                                std::span<double> out, std::span<uint8_t>) {
      if (!task.IsCpuOnlyRequest()) return;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i]->IsCpuOnlyNode()) out[i] += scores::kResourceType;
      }
    });
  }
};

// gpusharingorder: prefer nodes with an already shared GPU the task fits into.
class GpuSharingOrderPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "gpusharingorder"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddNodeOrderBatchFn([](const PodInfo& task, std::span<const NodeInfo* const> nodes,
                                std::span<double> out, std::span<uint8_t>) {
      if (!task.IsSharedGpuRequest()) return;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i]->CountFittingGpuGroups(task, 1) > 0) out[i] += scores::kGpuSharing;
      }
    });
  }
};

// gpupack / gpuspread: order the candidate GPUs of a node for a fractional task.
class GpuPackPlugin : public Plugin {
 public:
  explicit GpuPackPlugin(bool spread) : spread_(spread) {}
  std::string_view Name() const override { return spread_ ? "gpuspread" : "gpupack"; }
  void OnSessionOpen(Session* ssn) override {
    bool spread = spread_;
    ssn->AddGpuOrderFn([spread](const PodInfo&, const NodeInfo& node,
                                const std::string& group) -> std::optional<double> {
      if (group == kWholeGpuIndicator) return spread ? 1.0 : 0.0;
      std::optional<double> used = node.UsedGpuPortion(group);
      if (!used) return std::nullopt;
      return spread ? 1 - *used : *used;
    });
  }

 private:
  bool spread_;
};

// nodeplacement: bin-pack or spread nodes, on GPUs for GPU tasks and on CPU for CPU-only tasks.
class NodePlacementPlugin : public Plugin {
 public:
  explicit NodePlacementPlugin(const PluginArguments& args) {
    auto get = [&](const char* k) {
      auto it = args.find(k);
      return it == args.end() ? std::string("binpack") : it->second;
    };
    gpu_spread_ = get("gpu") == "spread";
    cpu_spread_ = get("cpu") == "spread";
  }
  std::string_view Name() const override { return "nodeplacement"; }

  void OnSessionOpen(Session* ssn) override {
    ssn->AddNodePreOrderFn([this](const PodInfo& task, const NodeSet& nodes) {
      bool cpu = task.IsCpuOnlyRequest();
      if (cpu ? cpu_spread_ : gpu_spread_) return;
      const NodeResourceRanges::Range range = node_ranges_.Of(cpu ? kCpuIndex : kGpuIndex, nodes);
      ranges_[task.uid()] = range;
      last_task_ = &task;
      last_range_ = range;
    });
    ssn->AddNodeOrderBatchFn([this](const PodInfo& task, std::span<const NodeInfo* const> nodes,
                                    std::span<double> out, std::span<uint8_t>) {
      bool cpu = task.IsCpuOnlyRequest();
      if (cpu ? cpu_spread_ : gpu_spread_) {
        for (size_t i = 0; i < nodes.size(); ++i) out[i] += SpreadScore(*nodes[i], cpu);
        return;
      }
      int idx = cpu ? kCpuIndex : kGpuIndex;
      double min = 0, max = 0;
      if (&task == last_task_) {
        // Scoring right after the pre-order of the same task (the usual case): no map lookup.
        min = last_range_.first;
        max = last_range_.second;
      } else if (auto it = ranges_.find(task.uid()); it != ranges_.end()) {
        min = it->second.first;
        max = it->second.second;
      }
      if (max == 0) return;
      for (size_t i = 0; i < nodes.size(); ++i) {
        const NodeInfo& node = *nodes[i];
        if (node.allocatable.Get(idx) == 0) continue;
        if (min == max) {
          out[i] += scores::kMaxHighDensity;
          continue;
        }
        double cur = node.NonAllocatedResource(idx);
        out[i] += scores::kMaxHighDensity * (1 - (cur - min) / (max - min));
      }
    });
  }

 private:
  // The share of the node's GPUs (CPU for CPU-only tasks) that is free or being freed.
  static double SpreadScore(const NodeInfo& node, bool cpu) {
    double count = 0;
    double non_allocated = 0;
    if (!cpu) {
      count = static_cast<double>(node.NumberOfGpusInNode());
      if (count == 0) return 0.0;
      non_allocated = node.IdleAndReleasingGpus();
    } else {
      count = node.allocatable.Get(kCpuIndex);
      if (count == 0) return 0.0;
      non_allocated = node.NonAllocatedResource(kCpuIndex);
    }
    return non_allocated / count;
  }

 private:
  bool gpu_spread_ = false;
  bool cpu_spread_ = false;
  NodeResourceRanges node_ranges_;
  // By pod uid, hashed: every node ordering of every simulation writes its range, and a tree of
  // them was 2% of a reclaim. (By uid, not address: a snapshot can hold two PodInfos with one
  // uid, and KAI's map by uid gives them one entry.)
  std::unordered_map<std::string, std::pair<double, double>> ranges_;
  const PodInfo* last_task_ = nullptr;
  std::pair<double, double> last_range_{0, 0};
};

}  // namespace

std::unique_ptr<Plugin> NewNominatedNodePlugin(const PluginArguments&) {
  return std::make_unique<NominatedNodePlugin>();
}
std::unique_ptr<Plugin> NewNodeAvailabilityPlugin(const PluginArguments&) {
  return std::make_unique<NodeAvailabilityPlugin>();
}
std::unique_ptr<Plugin> NewResourceTypePlugin(const PluginArguments&) {
  return std::make_unique<ResourceTypePlugin>();
}
std::unique_ptr<Plugin> NewGpuSharingOrderPlugin(const PluginArguments&) {
  return std::make_unique<GpuSharingOrderPlugin>();
}
std::unique_ptr<Plugin> NewGpuPackPlugin(const PluginArguments&) {
  return std::make_unique<GpuPackPlugin>(false);
}
std::unique_ptr<Plugin> NewGpuSpreadPlugin(const PluginArguments&) {
  return std::make_unique<GpuPackPlugin>(true);
}
std::unique_ptr<Plugin> NewNodePlacementPlugin(const PluginArguments& args) {
  return std::make_unique<NodePlacementPlugin>(args);
}

}  // namespace kai::scheduler
