#include "test/localkube/simulated_cluster.h"

#include "test/localkube/errors.h"
#include "test/localkube/store.h"
#include "test/localkube/workload_controllers.h"

namespace kai::localkube {

SimulatedCluster::SimulatedCluster(Store* store, SimulationOptions options)
    : store_(store), options_(std::move(options)), kubelet_(store, options_.kubelet) {
  if (options_.controllers) controllers_ = std::make_unique<WorkloadControllers>(store);
}

SimulatedCluster::~SimulatedCluster() { Stop(); }

Status SimulatedCluster::Start() {
  WriteOptions wo;
  wo.field_manager = "kubelet";
  const WallTime now = store_->clock()->Now();
  int ordinal = 0;
  for (const NodePool& pool : options_.node_pools) {
    for (int i = 0; i < pool.count; ++i, ++ordinal) {
      auto r = store_->Create({"", "v1", "nodes"}, "", NodeJson(pool, i, ordinal, now), wo);
      if (!r.ok() && !IsAlreadyExists(r.status())) {
        return Status(r.status().code(), "creating node " + NodeName(pool, i) + ": " +
                                             std::string(r.status().message()));
      }
    }
  }
  KAI_RETURN_IF_ERROR(kubelet_.Start());
  if (controllers_) KAI_RETURN_IF_ERROR(controllers_->Start());
  return Status::OK();
}

void SimulatedCluster::Stop() {
  if (controllers_) controllers_->Stop();
  kubelet_.Stop();
}

void SimulatedCluster::WaitIdle() {
  // Work moves between loops and the garbage collector, so wait until a full pass finds
  // everything idle.
  auto count = [&] {
    return kubelet_.reconciled() + (controllers_ ? controllers_->reconciled() : 0);
  };
  for (;;) {
    const uint64_t before = count();
    kubelet_.WaitIdle();
    if (controllers_) controllers_->WaitIdle();
    store_->WaitForGarbageCollector();
    kubelet_.WaitIdle();
    if (before == count()) return;
  }
}

}  // namespace kai::localkube
