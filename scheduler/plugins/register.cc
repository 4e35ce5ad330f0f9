#include "scheduler/plugins/plugins.h"
#include "scheduler/plugins/proportion/proportion.h"

namespace kai::scheduler {

void RegisterDefaultPlugins(PluginRegistry* registry) {
  registry->Register("proportion", NewProportionPlugin);
  registry->Register("priority", NewPriorityPlugin);
  registry->Register("elastic", NewElasticPlugin);
  registry->Register("kubeflow", NewKubeflowPlugin);
  registry->Register("ray", NewRayPlugin);
  registry->Register("taskorder", NewTaskOrderPlugin);
  registry->Register("subgrouporder", NewSubGroupOrderPlugin);
  registry->Register("nominatednode", NewNominatedNodePlugin);
  registry->Register("nodeavailability", NewNodeAvailabilityPlugin);
  registry->Register("resourcetype", NewResourceTypePlugin);
  registry->Register("gpusharingorder", NewGpuSharingOrderPlugin);
  registry->Register("gpupack", NewGpuPackPlugin);
  registry->Register("gpuspread", NewGpuSpreadPlugin);
  registry->Register("nodeplacement", NewNodePlacementPlugin);
  registry->Register("minruntime", NewMinRuntimePlugin);
  registry->Register("predicates", NewPredicatesPlugin);
  registry->Register("podaffinity", NewPodAffinityPlugin);
  registry->Register("dynamicresources", NewDynamicResourcesPlugin);
  registry->Register("snapshot", NewSnapshotPlugin);
  registry->Register("topology", NewTopologyPlugin);
}

}  // namespace kai::scheduler
