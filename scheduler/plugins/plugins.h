// The scheduler's plugins (KAI pkg/scheduler/plugins, reference §8), registered explicitly.
// Score constants (pkg/scheduler/plugins/scores) define a strict precedence because node
// scores are summed: nominated node >> pod affinity >> topology >> shared-GPU fit >> idle fit
// >> CPU-job-on-CPU-node >> bin-pack / spread.
#pragma once

#include <memory>

#include "scheduler/framework/session.h"

namespace kai::scheduler {

namespace scores {
inline constexpr double kMaxHighDensity = 9;
inline constexpr double kResourceType = 10;
inline constexpr double kAvailability = 100;
inline constexpr double kGpuSharing = 1000;
inline constexpr double kTopology = 10000;
inline constexpr double kK8sPlugins = 100000;
inline constexpr double kNominatedNode = 1000000;
}  // namespace scores

std::unique_ptr<Plugin> NewPriorityPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewElasticPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewKubeflowPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewRayPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewTaskOrderPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewSubGroupOrderPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewNominatedNodePlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewNodeAvailabilityPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewResourceTypePlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewGpuSharingOrderPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewGpuPackPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewGpuSpreadPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewNodePlacementPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewMinRuntimePlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewPredicatesPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewPodAffinityPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewTopologyPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewDynamicResourcesPlugin(const PluginArguments& args);
std::unique_ptr<Plugin> NewSnapshotPlugin(const PluginArguments& args);

// Every built-in plugin (proportion included when its library is built in).
void RegisterDefaultPlugins(PluginRegistry* registry);

}  // namespace kai::scheduler
