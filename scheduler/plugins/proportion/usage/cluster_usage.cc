#include "scheduler/plugins/proportion/usage/cluster_usage.h"

namespace kai::proportion {

void ApplyUsage(const ClusterUsage& usage, QueueTable& queues) {
  for (QueueIndex q = 0; q < queues.size(); ++q) {
    auto it = usage.queues.find(queues[q].uid);
    for (ResourceName r : kAllResources) {
      queues[q].share(r).usage = it == usage.queues.end() ? 0 : it->second[r];
    }
  }
}

}  // namespace kai::proportion
