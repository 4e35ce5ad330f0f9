#include "controllers/binder/resource_reservation.h"

#include <glog/logging.h>
#include <openssl/evp.h>

#include <algorithm>
#include <set>

#include "api/json_quote.h"
#include "api/well_known.h"
#include "controllers/binder/gpu_sharing.h"

namespace kai::binder {

namespace {

bool IsRunningOrPending(const api::Pod& pod) {
  return pod.status.phase == "Running" || pod.status.phase == "Pending";
}

std::string PodKey(const api::Pod& p) { return p.metadata.namespace_ + "/" + p.metadata.name; }

}  // namespace

std::vector<std::string> GpuGroupsOfPod(const api::Pod& pod) {
  std::set<std::string> groups;
  for (const auto& [k, v] : pod.metadata.labels) {
    if (k == api::kGpuGroupLabel && !v.empty()) groups.insert(v);
    if (k.rfind(api::kMultiGpuGroupLabelPrefix, 0) == 0 && !v.empty()) groups.insert(v);
  }
  return {groups.begin(), groups.end()};
}

ResourceReservation::ResourceReservation(BinderClient* client, BinderOptions options, Clock* clock)
    : client_(client), options_(std::move(options)), clock_(clock) {}

std::mutex& ResourceReservation::GroupMutex(const std::string& group) {
  std::lock_guard<std::mutex> lock(groups_mu_);
  auto& m = group_mutexes_[group];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

std::string ResourceReservation::ReservationPodName(const std::string& node,
                                                    const std::string& group) {
  std::string input = node + "/" + group;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(input.data(), input.size(), digest, &len, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  std::string out = std::string(kReservationPodPrefix) + "-";
  for (int i = 0; i < 8; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

api::Pod ResourceReservation::BuildReservationPod(const api::Pod& source, const std::string& node,
                                                  const std::string& group) const {
  api::Pod pod;
  pod.metadata.name = ReservationPodName(node, group);
  pod.metadata.namespace_ = options_.resource_reservation_namespace;
  pod.metadata.labels[std::string(api::kAppLabel)] = options_.resource_reservation_app_label;
  pod.metadata.labels[std::string(api::kGpuGroupLabel)] = group;
  pod.metadata.annotations[std::string(api::kKarpenterDoNotDisruptAnnotation)] = "true";
  pod.spec.node_name = node;
  pod.spec.tolerations = source.spec.tolerations;
  if (!options_.runtime_class_name.empty()) {
    pod.spec.runtime_class_name = options_.runtime_class_name;
  }
  pod.spec.service_account_name = options_.resource_reservation_service_account;

  api::Container c;
  c.name = std::string(kReservationContainerName);
  c.image = options_.resource_reservation_pod_image;
  c.image_pull_policy = "IfNotPresent";
  api::ResourceRequirements res;
  if (options_.resource_reservation_pod_resources) {
    res = *options_.resource_reservation_pod_resources;
    res.limits.erase("nvidia.com/gpu");
    res.requests.erase("nvidia.com/gpu");
  }
  res.limits["nvidia.com/gpu"] = api::Quantity::FromInt(1);
  res.requests["nvidia.com/gpu"] = api::Quantity::FromInt(1);
  c.resources = std::move(res);
  for (const char* name : {"POD_NAME", "POD_NAMESPACE"}) {
    api::EnvVar e;
    e.name = name;
    api::EnvVarSource src;
    src.field_ref.json = std::string("{\"fieldPath\":\"metadata.") +
                         (std::string(name) == "POD_NAME" ? "name" : "namespace") + "\"}";
    e.value_from = src;
    c.env.push_back(std::move(e));
  }
  if (options_.fake_gpu_nodes) {
    c.image = "ubuntu";
    c.args = {"sleep", "infinity"};
  }
  pod.spec.containers.push_back(std::move(c));
  return pod;
}

bool ResourceReservation::IsScalingUp() {
  PodQuery q;
  q.namespace_ = options_.scale_adjust_namespace;
  auto pods = client_->ListPods(q);
  if (!pods.ok()) {
    LOG(ERROR) << "Could not list scaling pods: " << pods.status();
    return false;
  }
  for (const auto& p : *pods) {
    for (const auto& c : p.status.conditions) {
      if (c.type == "PodScheduled" && c.status != "True") return true;
    }
  }
  return false;
}

Status ResourceReservation::LabelPod(const api::Pod& pod, const std::string& group) {
  std::string key = IsMultiFraction(pod) ? std::string(api::kMultiGpuGroupLabelPrefix) + group
                                         : std::string(api::kGpuGroupLabel);
  auto it = pod.metadata.labels.find(key);
  if (it != pod.metadata.labels.end() && it->second == group) return Status::OK();
  Status s = client_->MergePatchPod(
      pod.metadata.namespace_, pod.metadata.name,
      "{\"metadata\":{\"labels\":{" + api::JsonQuote(key) + ":" + api::JsonQuote(group) + "}}}");
  if (!s.ok()) {
    return s.WithPrefix("failed to patch pod <" + PodKey(pod) + "> with GPU group label");
  }
  return Status::OK();
}

StatusOr<ResourceReservation::Reservation> ResourceReservation::ReserveGpuDevice(
    const api::Pod& pod, const std::string& node, const std::string& group) {
  std::lock_guard<std::mutex> lock(GroupMutex(group));
  PodQuery q;
  q.namespace_ = options_.resource_reservation_namespace;
  q.labels[std::string(api::kGpuGroupLabel)] = group;
  KAI_ASSIGN_OR_RETURN(std::vector<api::Pod> found, client_->ListPods(q));
  std::sort(found.begin(), found.end(),
            [](const api::Pod& a, const api::Pod& b) { return a.metadata.name < b.metadata.name; });
  const api::Pod* live = nullptr;
  bool terminating = false;
  for (const auto& p : found) {
    if (p.metadata.deletion_timestamp) {
      terminating = true;
    } else if (live == nullptr) {
      live = &p;
    }
  }
  if (live != nullptr) {
    auto idx = live->metadata.annotations.find(std::string(api::kReserveForGpuIndexAnnotation));
    if (idx != live->metadata.annotations.end() && !idx->second.empty()) {
      Status s = LabelPod(pod, group);
      if (!s.ok()) {
        Status sync = SyncForGpuGroupLocked(group, "");
        if (!sync.ok()) LOG(ERROR) << "Failed to sync reservation for gpu group " << group;
        return s;
      }
      return Reservation{true, idx->second};
    }
    WallTime created = live->metadata.creation_timestamp.value_or(clock_->Now());
    if (clock_->Now() - created >= options_.resource_reservation_allocation_timeout) {
      Status d = client_->DeletePod(live->metadata.namespace_, live->metadata.name, 0);
      if (!d.ok() && !IsNotFound(d)) LOG(ERROR) << "failed to delete reservation pod: " << d;
      return DeadlineExceededError("failed waiting for GPU reservation pod to allocate: " +
                                   PodKey(*live));
    }
    return Reservation{false, ""};
  }
  if (terminating) return Reservation{false, ""};  // wait until the old one is gone
  if (IsScalingUp()) {
    return UnavailableError("cluster is scaling up, could not create reservation pod");
  }
  api::Pod desired = BuildReservationPod(pod, node, group);
  auto created = client_->CreatePod(desired);
  if (!created.ok()) {
    if (!IsAlreadyExists(created.status())) {
      return created.status().WithPrefix("failed to create GPU reservation pod " + PodKey(desired) +
                                         " on node " + node);
    }
    // The name is per (node, group): whoever created it made the same reservation.
  }
  return Reservation{false, ""};
}

Status ResourceReservation::RemovePodGpuGroupsConnection(const std::string& ns,
                                                         const std::string& name) {
  auto pod = client_->GetPod(ns, name, /*fresh=*/true);
  if (!pod.ok()) return IsNotFound(pod.status()) ? Status::OK() : pod.status();
  std::string removals;
  for (const auto& [k, v] : pod->metadata.labels) {
    if (k == api::kGpuGroupLabel || k.rfind(api::kMultiGpuGroupLabelPrefix, 0) == 0) {
      removals += (removals.empty() ? "" : ",") + api::JsonQuote(k) + ":null";
    }
  }
  if (removals.empty()) return Status::OK();
  return client_->MergePatchPod(ns, name, "{\"metadata\":{\"labels\":{" + removals + "}}}");
}

StatusOr<bool> ResourceReservation::HasActiveBindRequests(const std::string& group,
                                                          const std::string& ignore) {
  KAI_ASSIGN_OR_RETURN(std::vector<api::BindRequest> brs, client_->ListBindRequests());
  for (const auto& br : brs) {
    if (br.metadata.namespace_ + "/" + br.metadata.name == ignore) continue;
    if (std::find(br.spec.selected_gpu_groups.begin(), br.spec.selected_gpu_groups.end(), group) ==
        br.spec.selected_gpu_groups.end()) {
      continue;
    }
    if (br.status.phase == api::kBindRequestPhaseFailed) continue;
    // A BindRequest protects the group while its pod lives, bound (the pod label can lag
    // behind) or not yet. A finished pod never uses the GPU again, whatever the request's phase
    // says: its Succeeded write may not have landed when the pod completes, and no later event
    // would bring the group back here. A pod not found counts as gone only once its request
    // succeeded (the cache may not show a pod just created; the request's own reconcile cleans up
    // when its pod is really gone).
    const bool succeeded = br.status.phase == api::kBindRequestPhaseSucceeded;
    auto pod = client_->GetPod(br.metadata.namespace_, br.spec.pod_name);
    if (!pod.ok()) {
      if (IsNotFound(pod.status())) {
        if (succeeded) continue;
        return true;
      }
      return pod.status();
    }
    if (pod->status.phase == "Succeeded" || pod->status.phase == "Failed") continue;
    return true;
  }
  return false;
}

Status ResourceReservation::SyncForGpuGroup(const std::string& group,
                                            const std::string& ignore_bind_request) {
  std::lock_guard<std::mutex> lock(GroupMutex(group));
  return SyncForGpuGroupLocked(group, ignore_bind_request);
}

Status ResourceReservation::SyncForGpuGroupLocked(const std::string& group,
                                                  const std::string& ignore_bind_request) {
  PodQuery single;
  single.labels[std::string(api::kGpuGroupLabel)] = group;
  KAI_ASSIGN_OR_RETURN(std::vector<api::Pod> pods, client_->ListPods(single));
  PodQuery multi;
  multi.labels[std::string(api::kMultiGpuGroupLabelPrefix) + group] = group;
  KAI_ASSIGN_OR_RETURN(std::vector<api::Pod> multi_pods, client_->ListPods(multi));
  pods.insert(pods.end(), multi_pods.begin(), multi_pods.end());
  std::sort(pods.begin(), pods.end(),
            [](const api::Pod& a, const api::Pod& b) { return PodKey(a) < PodKey(b); });

  std::vector<const api::Pod*> reservations, fractions;
  for (const auto& p : pods) {
    if (p.metadata.namespace_ == options_.resource_reservation_namespace) {
      reservations.push_back(&p);
    } else if (IsRunningOrPending(p)) {
      fractions.push_back(&p);
    }
  }
  if (!fractions.empty() && reservations.empty()) {
    // The GPU these pods were told about is no longer reserved for them.
    for (const api::Pod* p : fractions) {
      if (p->status.phase != "Running") continue;
      LOG(WARNING) << "Found pod without reservation, deleting " << PodKey(*p) << " gpuGroup "
                   << group;
      Status s = client_->DeletePod(p->metadata.namespace_, p->metadata.name, std::nullopt);
      if (!s.ok() && !IsNotFound(s)) return s;
    }
  }
  if (!reservations.empty() && fractions.empty()) {
    KAI_ASSIGN_OR_RETURN(bool active, HasActiveBindRequests(group, ignore_bind_request));
    if (active) return Status::OK();
    for (const api::Pod* r : reservations) {
      if (r->metadata.deletion_timestamp) continue;
      LOG(INFO) << "No fraction pod left for gpu group " << group << ", deleting reservation pod "
                << PodKey(*r);
      Status s = client_->DeletePod(r->metadata.namespace_, r->metadata.name, 0);
      if (!s.ok() && !IsNotFound(s)) {
        return s.WithPrefix("failed to delete reservation pod");
      }
    }
  }
  return Status::OK();
}

Status ResourceReservation::SyncForPods(const std::vector<api::Pod>& pods) {
  std::set<std::string> groups;
  for (const auto& p : pods) {
    for (const auto& g : GpuGroupsOfPod(p)) groups.insert(g);
  }
  for (const auto& g : groups) KAI_RETURN_IF_ERROR(SyncForGpuGroup(g));
  return Status::OK();
}

Status ResourceReservation::Sync() {
  PodQuery q;
  q.has_labels.push_back(std::string(api::kGpuGroupLabel));
  KAI_ASSIGN_OR_RETURN(std::vector<api::Pod> pods, client_->ListPods(q));
  return SyncForPods(pods);
}

Status ResourceReservation::SyncForNode(const std::string& node,
                                        const std::string& ignore_bind_request) {
  PodQuery q;
  q.has_labels.push_back(std::string(api::kGpuGroupLabel));
  q.node_name = node;
  KAI_ASSIGN_OR_RETURN(std::vector<api::Pod> pods, client_->ListPods(q));
  std::set<std::string> groups;
  for (const auto& p : pods) {
    for (const auto& g : GpuGroupsOfPod(p)) groups.insert(g);
  }
  for (const auto& g : groups) KAI_RETURN_IF_ERROR(SyncForGpuGroup(g, ignore_bind_request));
  return Status::OK();
}

}  // namespace kai::binder
