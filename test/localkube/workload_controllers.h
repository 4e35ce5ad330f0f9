// WorkloadControllers: the part of kube-controller-manager a local cluster needs so that
// `kubectl apply -f deployment.yaml` or `job.yaml` behaves as users expect: the Deployment,
// ReplicaSet and Job controllers (and the Job TTL), in process through the Store, sharing
// informer caches. Level-triggered, with a periodic resync.
#pragma once

#include <cstdint>
#include <memory>

#include "kube/base/clock.h"
#include "kube/base/status.h"
#include "test/localkube/object_cache.h"
#include "test/localkube/reconcile_loop.h"

namespace kai::localkube {

class Store;
class ReplicaSetController;
class DeploymentController;
class JobController;

class WorkloadControllers {
 public:
  explicit WorkloadControllers(Store* store, Duration resync_period = std::chrono::minutes(5),
                               Duration job_pod_batch_period = std::chrono::seconds(1));
  ~WorkloadControllers();

  Status Start();
  void Stop();
  // Until every controller is idle (tests).
  void WaitIdle();
  uint64_t reconciled() const;

 private:
  Duration resync_period_;
  ObjectCache pods_;
  ObjectCache replicasets_;
  ObjectCache deployments_;
  ObjectCache jobs_;
  std::unique_ptr<ReplicaSetController> replicaset_;
  std::unique_ptr<DeploymentController> deployment_;
  std::unique_ptr<JobController> job_;
  ReconcileLoop resync_;
};

}  // namespace kai::localkube
