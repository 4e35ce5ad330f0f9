// SimulatedCluster: what turns localkube from an API server into a local cluster: simulated GPU
// nodes (created from node pools), their simulated kubelet, and the workload controllers
// (Deployment, ReplicaSet, Job). Everything runs in process through the Store.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "kube/base/status.h"
#include "test/localkube/kubelet.h"
#include "test/localkube/node_pool.h"

namespace kai::localkube {

class Store;
class WorkloadControllers;

struct SimulationOptions {
  // Nodes created at start when missing (existing nodes, e.g. reloaded from --data-dir, are
  // left as they are).
  std::vector<NodePool> node_pools;
  KubeletOptions kubelet;
  // Deployment, ReplicaSet and Job controllers (kube-controller-manager's part of a cluster).
  bool controllers = true;
};

class SimulatedCluster {
 public:
  SimulatedCluster(Store* store, SimulationOptions options);
  ~SimulatedCluster();

  // Creates the node-pool nodes (idempotent) and starts the kubelet and the controllers.
  Status Start();
  void Stop();

  bool ManagesNode(std::string_view node) const { return kubelet_.ManagesNode(node); }
  // Until the kubelet and every controller are idle at the same time (tests).
  void WaitIdle();
  SimulatedKubelet* kubelet() { return &kubelet_; }

 private:
  Store* store_;
  SimulationOptions options_;
  SimulatedKubelet kubelet_;
  std::unique_ptr<WorkloadControllers> controllers_;
};

}  // namespace kai::localkube
