// Historical queue usage (time-based fair share, reference §10) and the client interface.
#pragma once

#include <map>
#include <string>

#include "kube/base/statusor.h"
#include "scheduler/plugins/proportion/resource_share/queue_table.h"

namespace kai::proportion {

// Per queue UID: usage over the window divided by the cluster capacity over the same window,
// per resource (cpu, memory, gpu). Queues without data are absent (usage 0).
struct ClusterUsage {
  std::map<std::string, ResourceQuantities> queues;
};

// A source of usage data (KAI usagedb api.Interface).
class UsageClient {
 public:
  virtual ~UsageClient() = default;
  virtual StatusOr<ClusterUsage> GetResourceUsage() = 0;
};

// Sets ResourceShare::usage of every queue found in `usage`; other queues get 0.
void ApplyUsage(const ClusterUsage& usage, QueueTable& queues);

}  // namespace kai::proportion
