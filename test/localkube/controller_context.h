// What the in-process workload controllers share: the store, the clock and informer caches.
#pragma once

#include "kube/base/clock.h"
#include "test/localkube/object_cache.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

class Store;

inline const GroupVersionResource kPodsResource{"", "v1", "pods"};
inline const GroupVersionResource kReplicaSetsResource{"apps", "v1", "replicasets"};
inline const GroupVersionResource kDeploymentsResource{"apps", "v1", "deployments"};
inline const GroupVersionResource kJobsResource{"batch", "v1", "jobs"};

struct ControllerContext {
  Store* store = nullptr;
  Clock* clock = nullptr;
  ObjectCache* pods = nullptr;         // index "controller": controller owner uid
  ObjectCache* replicasets = nullptr;  // index "controller"
  ObjectCache* deployments = nullptr;
  ObjectCache* jobs = nullptr;
};

}  // namespace kai::localkube
