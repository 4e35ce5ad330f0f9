// ReplicaSetController: kube-controller-manager's ReplicaSet controller, in process: keeps
// spec.replicas active pods (created from the template with a controller ownerReference,
// deleted in controller.ActivePods order when too many) and the status counts (replicas,
// fullyLabeledReplicas, readyReplicas, availableReplicas with minReadySeconds,
// observedGeneration). Level-triggered: a ReplicaSet is reconciled whenever it or one of its
// pods changes, and on resync.
#pragma once

#include <memory>
#include <string>

#include "kube/base/status.h"
#include "test/localkube/controller_context.h"
#include "test/localkube/reconcile_loop.h"

namespace kai::localkube {

class PodSummaries;

class ReplicaSetController {
 public:
  explicit ReplicaSetController(ControllerContext ctx);
  ~ReplicaSetController();

  void Start() { loop_.Start(); }
  void Stop() { loop_.Stop(); }
  ReconcileLoop& loop() { return loop_; }

  void OnReplicaSet(const ObjectPtr& old, const ObjectPtr& now);
  void OnPod(const ObjectPtr& old, const ObjectPtr& now);

 private:
  Status Reconcile(const std::string& key);

  ControllerContext ctx_;
  std::unique_ptr<PodSummaries> pods_;  // worker thread only
  ReconcileLoop loop_;
};

}  // namespace kai::localkube
