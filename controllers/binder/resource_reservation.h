// GPU-sharing reservation pods (KAI pkg/binder/binding/resourcereservation, reference §12.4,
// §12.5, §20). A shared GPU group is backed by one pod in the reservation namespace that holds a
// whole GPU (nvidia.com/gpu: 1) on the node and reports the device's UUID in its
// run.ai/reserve_for_gpu_index annotation; every fractional pod of the group carries the group
// label. Sync keeps the two consistent: a group whose reservation pod is gone loses its running
// fractional pods, and a reservation pod whose group has neither fractional pods nor an active
// BindRequest is deleted (freeing the GPU).
//
// Differences from KAI (docs/binder.md): waiting for the GPU UUID does not block a worker; the
// caller is told to come back (KAI watches for up to the allocation timeout). The reservation pod
// name is derived from node and group, so concurrent or repeated creates collide on one object.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/pod.h"
#include "controllers/binder/binder_client.h"
#include "controllers/binder/binder_options.h"
#include "kube/base/clock.h"

namespace kai::binder {

inline constexpr std::string_view kReservationPodPrefix = "gpu-reservation";
inline constexpr std::string_view kReservationContainerName = "resource-reservation";

// Group ids a pod carries (runai-gpu-group=<g>, runai-gpu-group/<g>=<g>), sorted.
std::vector<std::string> GpuGroupsOfPod(const api::Pod& pod);

class ResourceReservation {
 public:
  ResourceReservation(BinderClient* client, BinderOptions options, Clock* clock);

  struct Reservation {
    bool ready = false;  // false: the reservation pod has not reported its GPU yet
    std::string gpu_id;  // the GPU UUID when ready
  };
  // Makes sure the group has a reservation pod on `node` and, once it reports its GPU, labels
  // `pod` with the group. Idempotent.
  StatusOr<Reservation> ReserveGpuDevice(const api::Pod& pod, const std::string& node,
                                         const std::string& group);
  // Removes every GPU-group label from the pod (rollback).
  Status RemovePodGpuGroupsConnection(const std::string& ns, const std::string& name);

  // Sync for every group / the groups with pods on a node / one group. `ignore_bind_request`
  // ("namespace/name") does not count as an active BindRequest (the one being rolled back).
  Status Sync();
  Status SyncForNode(const std::string& node, const std::string& ignore_bind_request = "");
  Status SyncForGpuGroup(const std::string& group, const std::string& ignore_bind_request = "");

  // The reservation pod KAI creates for a group (spec in reference §20).
  api::Pod BuildReservationPod(const api::Pod& source, const std::string& node,
                               const std::string& group) const;
  // "gpu-reservation-" + 16 hex digits of SHA-256("<node>/<group>").
  static std::string ReservationPodName(const std::string& node, const std::string& group);

 private:
  std::mutex& GroupMutex(const std::string& group);
  Status SyncForGpuGroupLocked(const std::string& group, const std::string& ignore_bind_request);
  StatusOr<bool> HasActiveBindRequests(const std::string& group, const std::string& ignore);
  Status SyncForPods(const std::vector<api::Pod>& pods);
  bool IsScalingUp();
  Status LabelPod(const api::Pod& pod, const std::string& group);

  BinderClient* client_;
  BinderOptions options_;
  Clock* clock_;
  std::mutex groups_mu_;
  std::map<std::string, std::unique_ptr<std::mutex>> group_mutexes_;
};

}  // namespace kai::binder
