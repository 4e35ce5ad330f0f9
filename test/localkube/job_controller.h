// JobController: kube-controller-manager's Job controller (batch/v1), in process: pods from the
// template (generateName <job>-, controller ownerReference, the job's labels, finalizer
// batch.kubernetes.io/job-tracking), parallelism and completions (NonIndexed and Indexed with
// batch.kubernetes.io/job-completion-index), finished pods counted through
// status.uncountedTerminatedPods before their tracking finalizer is removed (so deleted or
// evicted pods count as failed, as with the real controller), backoffLimit with the pod
// re-creation back-off (10 s doubling, max 6 min), activeDeadlineSeconds, suspend, Complete and
// Failed conditions, status active/ready/terminating/succeeded/failed/startTime/completionTime,
// and ttlSecondsAfterFinished (the TTL controller). Not implemented: podFailurePolicy,
// successPolicy, backoffLimitPerIndex, podReplacementPolicy Failed, managedBy.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "kube/base/status.h"
#include "test/localkube/controller_context.h"
#include "test/localkube/reconcile_loop.h"

namespace kai::localkube {

class PodSummaries;

class JobController {
 public:
  explicit JobController(ControllerContext ctx);
  ~JobController();

  void Start() { loop_.Start(); }
  void Stop() { loop_.Stop(); }
  ReconcileLoop& loop() { return loop_; }

  void OnJob(const ObjectPtr& old, const ObjectPtr& now);
  void OnPod(const ObjectPtr& old, const ObjectPtr& now);

 private:
  Status Reconcile(const std::string& key);
  Status ReconcileJob(const std::string& key);
  // Removes the tracking finalizer of a pod whose Job is gone.
  Status ReleaseOrphan(const std::string& pod_key);

  struct Backoff {
    std::string uid;
    int64_t failures = 0;
    WallTime last;
  };

  ControllerContext ctx_;
  std::unique_ptr<PodSummaries> pods_;                // worker thread only
  std::unordered_map<std::string, Backoff> backoff_;  // by job key; worker thread only
  ReconcileLoop loop_;
};

}  // namespace kai::localkube
