// BindRequestReconciler: kai-binder's reconcile loop (KAI pkg/binder/controllers and
// pkg/binder/binding, reference §14.2), written as Reconcile(key) -> result over a BinderClient.
//
// Every step reads the current state first, so a restart at any point converges without binding
// twice or leaking a reservation pod:
//
//   1. BindRequest gone / being deleted / Succeeded / Failed with no retries left: nothing.
//   2. Pod already bound (spec.nodeName set): Succeeded (a restart after the binding).
//   3. Sync the node's reservations; for a fractional allocation reserve every selected GPU
//      group (reservation pod, GPU UUID, group label); wait (requeue) while a reservation pod has
//      not reported its GPU.
//   4. GPU-sharing ConfigMaps, the received-resource-type annotation, then pods/binding. A
//      failed binding call re-reads the pod: bound to the selected node counts as success (the
//      answer was lost), and if the pod cannot be read nothing is undone.
//   5. On failure: delete the ConfigMaps, remove the group labels, sync the node's reservations
//      (a reservation pod nobody else needs is deleted).
//   6. Status: Succeeded, or Failed with the reason; with backoffLimit, retried after
//      2^failedAttempts seconds while failedAttempts < backoffLimit. Pod event and PodBound
//      condition as KAI writes them.
#pragma once

#include <optional>
#include <string>

#include "controllers/binder/binder_client.h"
#include "controllers/binder/binder_options.h"
#include "controllers/binder/gpu_sharing.h"
#include "controllers/binder/resource_reservation.h"
#include "kube/base/clock.h"

namespace kai::binder {

struct ReconcileResult {
  enum class Outcome {
    kNothingToDo,
    kBound,
    kAlreadyBound,
    kWaitingForReservation,
    kFailed,    // status Failed, no retries left
    kRetrying,  // status Failed, retried after requeue_after (backoffLimit)
    kInvalidDeleted,
    kError,  // could not read or write: requeue with the rate limiter
  };
  Outcome outcome = Outcome::kNothingToDo;
  std::optional<Duration> requeue_after;
  // Non-OK for kError (requeue with backoff) and, as information, for kFailed / kRetrying.
  Status error;
};

std::string_view OutcomeName(ReconcileResult::Outcome o);

class BindRequestReconciler {
 public:
  BindRequestReconciler(BinderClient* client, BinderOptions options, Clock* clock);

  ReconcileResult Reconcile(const std::string& ns, const std::string& name);

  // Event hooks of the live binder's watches (reference §12.5 triggers).
  void OnBindRequestDeleted(const api::BindRequest& br);
  // A pod with the KAI scheduler name finished or was deleted.
  void OnPodCompletedOrDeleted(const api::Pod& pod);
  // At start-up: sync every GPU group.
  Status SyncAll() { return reservation_.Sync(); }

  // Phase Succeeded, or Failed without retries left, or being deleted: nothing to do.
  static bool IsActionable(const api::BindRequest& br);

  ResourceReservation& reservation() { return reservation_; }

 private:
  struct BindOutcome {
    Status error;
    bool waiting = false;
    bool invalid = false;
    bool unknown = false;  // the binding call failed and the pod could not be read back
  };
  BindOutcome Bind(const api::Pod& pod, const api::BindRequest& br);
  void Rollback(const api::Pod& pod, const api::BindRequest& br);
  // Returns the retry delay when the failure will be retried; patches the status when it
  // changed. *patch_error is set when the status could not be written.
  std::optional<Duration> UpdateStatus(api::BindRequest* br, const Status& err,
                                       Status* patch_error);
  void UpdatePodCondition(const api::BindRequest& br, const api::Pod& pod);

  BinderClient* client_;
  BinderOptions options_;
  Clock* clock_;
  ResourceReservation reservation_;
  GpuSharing gpu_sharing_;
};

}  // namespace kai::binder
