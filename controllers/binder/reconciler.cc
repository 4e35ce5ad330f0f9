#include "controllers/binder/reconciler.h"

#include <glog/logging.h>

#include <map>
#include <string>
#include <utility>

#include "api/pod_condition.h"
#include "api/well_known.h"

namespace kai::binder {

std::string_view OutcomeName(ReconcileResult::Outcome o) {
  switch (o) {
    case ReconcileResult::Outcome::kNothingToDo:
      return "NothingToDo";
    case ReconcileResult::Outcome::kBound:
      return "Bound";
    case ReconcileResult::Outcome::kAlreadyBound:
      return "AlreadyBound";
    case ReconcileResult::Outcome::kWaitingForReservation:
      return "WaitingForReservation";
    case ReconcileResult::Outcome::kFailed:
      return "Failed";
    case ReconcileResult::Outcome::kRetrying:
      return "Retrying";
    case ReconcileResult::Outcome::kInvalidDeleted:
      return "InvalidDeleted";
    case ReconcileResult::Outcome::kError:
      return "Error";
  }
  return "";
}

BindRequestReconciler::BindRequestReconciler(BinderClient* client, BinderOptions options,
                                             Clock* clock)
    : client_(client),
      options_(std::move(options)),
      clock_(clock),
      // options_ is declared (so initialised) before these two; `options` was moved from.
      reservation_(client, options_, clock),
      gpu_sharing_(client, options_.cdi_enabled) {}

bool BindRequestReconciler::IsActionable(const api::BindRequest& br) {
  if (br.metadata.deletion_timestamp) return false;
  if (br.status.phase == api::kBindRequestPhaseSucceeded) return false;
  if (br.status.phase == api::kBindRequestPhaseFailed) {
    return br.spec.backoff_limit && br.status.failed_attempts < *br.spec.backoff_limit;
  }
  return true;
}

ReconcileResult BindRequestReconciler::Reconcile(const std::string& ns, const std::string& name) {
  using Outcome = ReconcileResult::Outcome;
  auto br = client_->GetBindRequest(ns, name);
  if (!br.ok()) {
    if (IsNotFound(br.status())) return {};
    return ReconcileResult{Outcome::kError, std::nullopt, br.status()};
  }
  if (!IsActionable(*br)) return {};

  Status err;
  bool already_bound = false;
  auto pod = client_->GetPod(ns, br->spec.pod_name);
  if (!pod.ok()) {
    if (!IsNotFound(pod.status()))
      return ReconcileResult{Outcome::kError, std::nullopt, pod.status()};
    err = pod.status();
  } else if (br->IsForAnotherPod(pod->metadata.uid)) {
    // Chosen for an earlier pod of this name: never bind this one by it. The garbage collector
    // or the scheduler deletes it; until then look again, in case our pod cache is the one
    // behind (then the BindRequest is for the pod the cache has not seen yet).
    return ReconcileResult{
        Outcome::kError, std::nullopt,
        FailedPreconditionError("BindRequest " + ns + "/" + name + " was made for another pod " +
                                "of that name (owner uid differs from the pod's " +
                                pod->metadata.uid + "); not binding by it")};
  } else if (!pod->spec.node_name.empty()) {
    already_bound = true;
  } else {
    auto node = client_->GetNode(br->spec.selected_node);
    if (!node.ok()) {
      if (!IsNotFound(node.status())) {
        return ReconcileResult{Outcome::kError, std::nullopt, node.status()};
      }
      err = node.status();
    } else {
      BindOutcome b = Bind(*pod, *br);
      if (b.waiting) {
        return ReconcileResult{Outcome::kWaitingForReservation, options_.reservation_poll_interval,
                               Status::OK()};
      }
      if (b.invalid) {
        LOG(INFO) << "BindRequest " << ns << "/" << name
                  << " has no selected GPU groups for a fractional pod; deleting it so that a "
                     "valid one is created";
        Status d = client_->DeleteBindRequest(ns, name, br->metadata.uid);
        // 409: the scheduler already replaced it (the uid precondition failed).
        if (!d.ok() && !IsNotFound(d) && !IsAborted(d)) {
          return ReconcileResult{Outcome::kError, std::nullopt, d};
        }
        return ReconcileResult{Outcome::kInvalidDeleted, std::nullopt, b.error};
      }
      if (b.unknown) {
        // Whether the pod got bound is not known: change nothing and look again.
        return ReconcileResult{Outcome::kError, std::nullopt, b.error};
      }
      err = b.error;
      if (!err.ok()) {
        LOG(ERROR) << "Failed to bind pod " << ns << "/" << pod->metadata.name << " to node "
                   << br->spec.selected_node << ": " << err;
        Rollback(*pod, *br);
      }
    }
  }

  Status patch_error;
  std::optional<Duration> retry = UpdateStatus(&*br, err, &patch_error);
  if (pod.ok()) UpdatePodCondition(*br, *pod);
  if (!patch_error.ok()) return ReconcileResult{Outcome::kError, std::nullopt, patch_error};
  if (err.ok()) {
    return ReconcileResult{already_bound ? Outcome::kAlreadyBound : Outcome::kBound, std::nullopt,
                           Status::OK()};
  }
  if (retry) return ReconcileResult{Outcome::kRetrying, retry, err};
  return ReconcileResult{Outcome::kFailed, std::nullopt, err};
}

BindRequestReconciler::BindOutcome BindRequestReconciler::Bind(const api::Pod& pod,
                                                               const api::BindRequest& br) {
  BindOutcome out;
  const std::string pod_key = pod.metadata.namespace_ + "/" + pod.metadata.name;
  const std::string& node = br.spec.selected_node;
  Status s = reservation_.SyncForNode(node);
  if (!s.ok()) {
    out.error =
        s.WithPrefix("failed to sync reservation for pod <" + pod_key + "> on node <" + node + ">");
    return out;
  }
  std::vector<std::string> gpu_ids;
  if (IsSharedGpuAllocation(br)) {
    if (br.spec.selected_gpu_groups.empty()) {
      out.invalid = true;
      out.error = InvalidArgumentError(
          "no selected GPU groups for fractional pod: invalid binding request");
      return out;
    }
    for (const auto& group : br.spec.selected_gpu_groups) {
      auto r = reservation_.ReserveGpuDevice(pod, node, group);
      if (!r.ok()) {
        std::string prefix = "failed to reserve GPUs for pod <";
        prefix.append(pod_key).append("> in gpu group <").append(group).append(">");
        out.error = r.status().WithPrefix(prefix);
        return out;
      }
      if (!r->ready) {
        out.waiting = true;  // keep going: the other groups' pods start in parallel
        continue;
      }
      gpu_ids.push_back(r->gpu_id);
    }
    if (out.waiting) return out;
  }
  s = gpu_sharing_.PreBind(pod, br, gpu_ids);
  if (!s.ok()) {
    out.error = s;
    return out;
  }
  // KAI merge-patches this annotation before binding; the Binding carries it instead (the
  // registry merges a Binding's annotations into the pod's), one write and one pod event less,
  // and no annotated pod is left unbound when the binding fails.
  std::map<std::string, std::string> annotations;
  auto rt = pod.metadata.annotations.find(std::string(api::kReceivedResourceTypeAnnotation));
  if (rt == pod.metadata.annotations.end() || rt->second != br.spec.received_resource_type) {
    annotations.emplace(api::kReceivedResourceTypeAnnotation, br.spec.received_resource_type);
  }
  LOG(INFO) << "Binding pod " << pod_key << " to node " << node;
  s = client_->CreateBinding(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid, node,
                             annotations);
  if (!s.ok()) {
    // The binding may have happened with its answer lost (a timeout, a retried POST answered
    // with a conflict): look at the pod itself before undoing anything.
    auto fresh = client_->GetPod(pod.metadata.namespace_, pod.metadata.name, /*fresh=*/true);
    if (!fresh.ok()) {
      out.unknown = true;
      out.error = s;
      return out;
    }
    if (fresh->spec.node_name == node) return out;
  }
  if (!s.ok()) {
    out.error = s.WithPrefix("failed to bind pod <" + pod_key + "> to node <" + node + ">");
  }
  return out;
}

void BindRequestReconciler::Rollback(const api::Pod& pod, const api::BindRequest& br) {
  const std::string pod_key = pod.metadata.namespace_ + "/" + pod.metadata.name;
  LOG(INFO) << "Rolling back for failed bind attempt of " << pod_key;
  Status s = gpu_sharing_.Rollback(pod, br);
  if (!s.ok()) LOG(ERROR) << "failed to rollback plugins for pod <" << pod_key << ">: " << s;
  if (IsSharedGpuAllocation(br)) {
    s = reservation_.RemovePodGpuGroupsConnection(pod.metadata.namespace_, pod.metadata.name);
    if (!s.ok()) {
      LOG(ERROR) << "failed to remove GPU group label from pod <" << pod_key
                 << "> during rollback: " << s;
    }
    s = reservation_.SyncForNode(br.spec.selected_node,
                                 br.metadata.namespace_ + "/" + br.metadata.name);
    if (!s.ok()) {
      LOG(ERROR) << "failed to sync reservation pods for node <" << br.spec.selected_node
                 << "> during rollback: " << s;
    }
    // Groups whose reservation pod is not on the node yet (still being created) too.
    for (const auto& g : br.spec.selected_gpu_groups) {
      s = reservation_.SyncForGpuGroup(g, br.metadata.namespace_ + "/" + br.metadata.name);
      if (!s.ok()) LOG(ERROR) << "failed to sync gpu group " << g << " during rollback: " << s;
    }
  }
}

std::optional<Duration> BindRequestReconciler::UpdateStatus(api::BindRequest* br, const Status& err,
                                                            Status* patch_error) {
  api::BindRequestStatus original = br->status;
  std::optional<Duration> retry;
  if (!err.ok()) {
    if (br->spec.backoff_limit && *br->spec.backoff_limit > br->status.failed_attempts) {
      retry = std::chrono::seconds(int64_t{1} << std::min(br->status.failed_attempts, 30));
      br->status.failed_attempts++;
    }
    br->status.phase = std::string(api::kBindRequestPhaseFailed);
    br->status.reason = std::string(err.message());
  } else {
    br->status.phase = std::string(api::kBindRequestPhaseSucceeded);
  }
  if (br->status == original) return retry;
  // Written only to this uid: the scheduler may have replaced the BindRequest meanwhile (its
  // node vanished), and this outcome is not its successor's.
  Status s = client_->UpdateBindRequestStatus(br->metadata.namespace_, br->metadata.name,
                                              br->metadata.uid, br->status);
  if (IsAborted(s) || IsNotFound(s)) {
    LOG(INFO) << "BindRequest " << br->metadata.namespace_ << "/" << br->metadata.name
              << " was replaced or deleted while it was handled; its status is not written: " << s;
  } else if (!s.ok()) {
    LOG(ERROR) << "Failed to patch status for BindRequest " << br->metadata.namespace_ << "/"
               << br->metadata.name << ": " << s;
    *patch_error = s;
  }
  return retry;
}

void BindRequestReconciler::UpdatePodCondition(const api::BindRequest& br, const api::Pod& pod) {
  api::PodCondition c;
  c.type = "PodBound";
  BinderEvent e{"Pod", pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid, "", "", ""};
  if (br.status.phase == api::kBindRequestPhaseSucceeded) {
    c.status = "True";
    c.reason = "Bound";
    c.message = "Pod bound successfully to node " + br.spec.selected_node;
    e.type = "Normal";
    e.reason = "Bound";
  } else {
    c.status = "False";
    c.reason = "BindingError";
    c.message = "Failed to bind pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                " to node " + br.spec.selected_node + ": " + br.status.reason;
    e.type = "Warning";
    e.reason = "BindingError";
  }
  e.message = c.message;
  client_->RecordEvent(e);
  if (auto patch = api::PodConditionPatch(pod, c, clock_->Now())) {
    Status s = client_->PatchPodStatus(pod.metadata.namespace_, pod.metadata.name, *patch);
    if (!s.ok()) LOG(ERROR) << "Failed to patch pod status " << pod.metadata.name << ": " << s;
  }
}

void BindRequestReconciler::OnBindRequestDeleted(const api::BindRequest& br) {
  if (!IsSharedGpuAllocation(br)) return;
  for (const auto& g : br.spec.selected_gpu_groups) {
    Status s = reservation_.SyncForGpuGroup(g);
    if (!s.ok()) LOG(ERROR) << "Failed to sync reservation for GPU Group " << g << ": " << s;
  }
}

void BindRequestReconciler::OnPodCompletedOrDeleted(const api::Pod& pod) {
  if (pod.spec.scheduler_name != options_.scheduler_name) return;
  for (const auto& g : GpuGroupsOfPod(pod)) {
    Status s = reservation_.SyncForGpuGroup(g);
    if (!s.ok())
      LOG(ERROR) << "failed to sync reservation on pod " << pod.metadata.name << ": " << s;
  }
}

}  // namespace kai::binder
