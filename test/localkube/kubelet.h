// SimulatedKubelet: the kubelet of every simulated node (nodes annotated
// localkube.kai.scheduler/simulated=true), in process through the Store, like KWOK.
//
// Nodes: keeps the Ready condition's heartbeat and the node's Lease in kube-node-lease fresh.
// Pods bound to a simulated node: admission (resources against allocatable, like the real
// kubelet: a pod that does not fit fails with reason OutOf<resource>), then Running with
// conditions, container statuses, pod/host IPs and GPU devices (nvidia.com/gpu requests get
// distinct device indexes, published in containerStatuses[].allocatedResourcesStatus; a KAI
// resource-reservation pod also gets the run.ai/reserve_for_gpu_index annotation its real
// container writes); optional completion after a run duration (annotations below, restart
// policy honoured); graceful termination: when a deleted pod's grace period (or its
// termination duration) ends, a terminal status and then a delete with grace 0.
//
// Level-triggered: every decision is derived from the stored objects (a restart or a lost
// event loses nothing); store changes and timers on the injected clock queue the work, and a
// periodic resync re-queues everything.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "kube/base/clock.h"
#include "kube/base/status.h"
#include "kube/base/statusor.h"
#include "test/localkube/object_cache.h"
#include "test/localkube/reconcile_loop.h"

namespace kai::localkube {

class Store;

// Pod annotations the simulated kubelet understands.
// Go duration ("30s", "1m30s"): the containers exit after running that long (0s: at once).
inline constexpr std::string_view kRunDurationAnnotation = "localkube.kai.scheduler/run-duration";
// Exit code of the containers when the run duration ends (default 0): non-zero makes a
// restartPolicy Never pod Failed (OnFailure/Always restart the containers).
inline constexpr std::string_view kExitCodeAnnotation = "localkube.kai.scheduler/exit-code";
// How long the containers take to exit after SIGTERM when the pod is deleted (default: they
// ignore SIGTERM and are killed when the grace period ends).
inline constexpr std::string_view kTerminationDurationAnnotation =
    "localkube.kai.scheduler/termination-duration";
// On a simulated node: "false" makes the kubelet report Ready=False (KubeletNotReady).
inline constexpr std::string_view kNodeReadyAnnotation = "localkube.kai.scheduler/node-ready";

struct KubeletOptions {
  // Namespace of KAI's GPU reservation pods (binder --resource-reservation-namespace).
  std::string reservation_namespace = "kai-resource-reservation";
  // How often the Ready condition's lastHeartbeatTime is refreshed (kubelet
  // nodeStatusReportFrequency) and the Lease renewed (renewInterval = 1/4 of 40 s).
  Duration node_status_interval = std::chrono::minutes(1);
  Duration lease_renew_interval = std::chrono::seconds(10);
  int lease_duration_seconds = 40;
  // Re-queue every pod and node (the safety net of a level-triggered controller).
  Duration resync_period = std::chrono::minutes(5);
};

class SimulatedKubelet {
 public:
  SimulatedKubelet(Store* store, KubeletOptions options);
  ~SimulatedKubelet();

  Status Start();
  void Stop();

  // True when `node` is a simulated node (thread-safe; used by the store to leave graceful pod
  // deletion on such nodes to this kubelet).
  bool ManagesNode(std::string_view node) const;
  // Until every queued or due item is processed (tests).
  void WaitIdle();
  uint64_t reconciled() const { return loop_.processed(); }

 private:
  struct PodResources;
  struct NodeUsage;
  // What admission reads from a node, parsed once per node resourceVersion.
  struct NodeFacts {
    uint64_t resource_version = 0;
    std::map<std::string, int64_t> allocatable_milli;
    std::string host_ip;  // first InternalIP
    std::string pod_cidr;
  };

  Status Reconcile(const std::string& key);
  Status ReconcileNode(const std::string& name);
  Status ReconcilePod(const std::string& key);
  void OnNode(const ObjectPtr& old, const ObjectPtr& now);
  void OnPod(const ObjectPtr& old, const ObjectPtr& now);
  const PodResources* Resources(const ObjectPtr& pod);
  NodeUsage Usage(const std::string& node, const std::string& exclude_key);
  StatusOr<const NodeFacts*> FactsOf(const ObjectPtr& node);

  Store* store_;
  Clock* clock_;
  KubeletOptions options_;
  ObjectCache nodes_;
  ObjectCache pods_;
  ReconcileLoop loop_;
  mutable std::mutex managed_mu_;
  std::set<std::string, std::less<>> managed_;
  // Worker thread only: requests, devices and IP of pods, parsed once per pod uid.
  std::unordered_map<std::string, std::unique_ptr<PodResources>> resources_;
  // Worker thread only: by node name (a burst of admissions on a node parses it once).
  std::unordered_map<std::string, NodeFacts> node_facts_;
  // Worker thread only: precise times of a pod's lifecycle as this kubelet saw them. Stored
  // timestamps have whole seconds; these are used while they match what is stored, so a run
  // duration or grace period counts from the real instant (after a restart, the stored
  // timestamps alone decide).
  struct PodTimes {
    std::string uid;
    std::optional<WallTime> started;  // current run of the containers
    std::optional<WallTime> exited;   // last exit (CrashLoopBackOff)
    std::optional<WallTime> kill_at;  // deletion seen + grace period
  };
  std::unordered_map<std::string, PodTimes> times_;
};

}  // namespace kai::localkube
