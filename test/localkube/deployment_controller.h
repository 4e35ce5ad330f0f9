// DeploymentController: kube-controller-manager's Deployment controller, in process and
// simplified: a ReplicaSet per pod template (named <deployment>-<pod-template-hash>, selector and
// template labels extended with pod-template-hash, controller ownerReference, revision
// annotations), RollingUpdate (maxSurge/maxUnavailable, unhealthy old replicas first, old
// ReplicaSets scaled down as new pods become available) and Recreate, scaling, cleanup beyond
// revisionHistoryLimit, and status (replicas, updated/ready/available/unavailable,
// observedGeneration, Available and Progressing conditions) so that `kubectl rollout status`
// works. Not implemented: proportional scaling of several active ReplicaSets, rollback
// (rollbackTo), progressDeadlineSeconds, paused-deployment conditions.
#pragma once

#include <string>

#include "kube/base/status.h"
#include "test/localkube/controller_context.h"
#include "test/localkube/reconcile_loop.h"

namespace kai::localkube {

class DeploymentController {
 public:
  explicit DeploymentController(ControllerContext ctx);
  ~DeploymentController();

  void Start() { loop_.Start(); }
  void Stop() { loop_.Stop(); }
  ReconcileLoop& loop() { return loop_; }

  void OnDeployment(const ObjectPtr& old, const ObjectPtr& now);
  void OnReplicaSet(const ObjectPtr& old, const ObjectPtr& now);
  void OnPod(const ObjectPtr& old, const ObjectPtr& now);

 private:
  Status Reconcile(const std::string& key);

  ControllerContext ctx_;
  ReconcileLoop loop_;
};

}  // namespace kai::localkube
