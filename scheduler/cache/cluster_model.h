// ClusterModel: the scheduler's incrementally maintained view of the cluster, and the per-cycle
// snapshot built from it (KAI cache + cluster_info snapshot, reference §6.4).
//
// Objects arrive as add/update/delete events (from informers in the live mode, from the loader
// in `simulate`). Everything derived from an object alone (effective requests, GPU requirement,
// node facts) is computed once per object version and kept here; Kubernetes objects are shared
// immutable pointers.
//
// Incremental snapshot: the model also keeps the previous snapshot's objects (tasks, node
// accounting, jobs, queues) and, per event, marks what it made stale (a pod, the nodes and jobs
// its old and new versions belong to, a PodGroup, a node). Snapshot() rebuilds only those
// objects in the kept state and hands the session a copy of it (sessions mutate their snapshot
// freely; the kept state is never given out). Rare changes (queues, priority classes, the
// shard's node set or resource names, scheduler parameters) rebuild the kept state whole.
// FullSnapshot() is the from-scratch construction, kept as the reference: debug builds compare
// every Snapshot() with it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/api/cluster_info.h"
#include "scheduler/cache/implicit_podgroup.h"
#include "scheduler/cache/object_loader.h"
#include "scheduler/conf/scheduler_conf.h"

namespace kai::scheduler {

// Derives the scheduler's view of a pod's requests from its effective requests and GPU
// annotations (§6.5, §12.1). Problems with annotations end up in `warnings`.
PodRequirements ComputePodRequirements(const api::Pod& pod, const ResourceAmounts& requests);

class ClusterModel {
 public:
  void UpsertNode(LoadedNode node);
  void DeleteNode(const std::string& name);
  void UpsertPod(LoadedPod pod);
  void DeletePod(const std::string& key);  // namespace/name
  // A new version of a pod whose containers did not change (status, node, labels): its effective
  // requests are kept.
  void ReplacePodObject(std::shared_ptr<const api::Pod> pod);
  void UpsertPodGroup(std::shared_ptr<const api::PodGroup> pg);
  void DeletePodGroup(const std::string& key);
  void UpsertQueue(std::shared_ptr<const api::Queue> q);
  void DeleteQueue(const std::string& name);
  void UpsertPriorityClass(std::shared_ptr<const api::PriorityClass> pc);
  void DeletePriorityClass(const std::string& name);
  void UpsertTopology(std::shared_ptr<const api::Topology> t);
  void DeleteTopology(const std::string& name);
  void UpsertConfigMap(std::shared_ptr<const api::ConfigMap> cm);
  void DeleteConfigMap(const std::string& key);
  // The model learns BindRequests from two sources, the scheduler's own writes and the informer,
  // which can be behind them: an informer event of a BindRequest the scheduler already deleted,
  // or of a stale one it replaced under the same name, must not undo what the scheduler knows.
  //
  // Ignored (returns false) for a BindRequest the scheduler deleted (ForgetDeletedBindRequest)
  // until the informer's DELETED of it arrived.
  bool UpsertBindRequest(std::shared_ptr<const api::BindRequest> br);
  // Forgets the BindRequest `key`; with a `uid`, only if the model's has that uid (or none), and
  // the uid is no longer ignored. Returns false only when it kept a BindRequest of another uid.
  bool DeleteBindRequest(const std::string& key, std::string_view uid = {});
  // The scheduler deleted BindRequest `key` of `uid` (or found it gone): forgets it now and
  // ignores the informer's late events of it until its DELETED. Returns as DeleteBindRequest.
  bool ForgetDeletedBindRequest(const std::string& key, const std::string& uid);

  // Adds everything a loader read.
  void AddAll(const LoadedObjects& objects);

  // Applied to every PodGroup when a snapshot is built: the live scheduler shows its own
  // in-flight status writes to the next session (scheduler/outputs/status_update_queue.h).
  using PodGroupOverlay =
      std::function<std::shared_ptr<const api::PodGroup>(std::shared_ptr<const api::PodGroup>)>;
  void set_podgroup_overlay(PodGroupOverlay overlay) { podgroup_overlay_ = std::move(overlay); }

  // A fresh snapshot for one session. A pod for this scheduler without a `pod-group-name`
  // annotation is a job of one under its implicit PodGroup (implicit_podgroup.h); a pod naming a
  // PodGroup that does not exist (yet) is not scheduled. Inconsistencies that do not stop
  // scheduling (a pod naming a missing PodGroup, bad GPU annotations, ...) are reported in
  // `warnings`.
  std::unique_ptr<ClusterInfo> Snapshot(const SchedulerParams& params,
                                        std::vector<std::string>* warnings) const;
  // Hands back a snapshot this model gave out, once nothing points into it any more (its session
  // closed and its results were read): the next Snapshot() copies the kept state into its
  // objects — copy-assignment into existing strings, vectors and map nodes, most of them holding
  // the same pods and nodes — instead of allocating a new copy (and freeing this one). Any
  // ClusterInfo is accepted (every field is overwritten). Serialized with Snapshot().
  void Recycle(std::unique_ptr<ClusterInfo> used) const;
  // The same snapshot built from scratch from every object (no kept state): the reference the
  // incremental path must equal, and what a cache without incremental maintenance pays.
  std::unique_ptr<ClusterInfo> FullSnapshot(const SchedulerParams& params,
                                            std::vector<std::string>* warnings) const;

  ClusterModel();
  ~ClusterModel();
  ClusterModel(const ClusterModel&) = delete;
  ClusterModel& operator=(const ClusterModel&) = delete;

  size_t num_pods() const { return pods_.size(); }
  size_t num_nodes() const { return nodes_.size(); }

 private:
  struct PodEntry {
    LoadedPod loaded;
    PodRequirements requirements;
    // For a pod without a `pod-group-name` annotation (built with the default label keys).
    std::optional<ImplicitPodGroup> implicit;
  };
  std::map<std::string, LoadedNode> nodes_;
  std::map<std::string, PodEntry> pods_;
  std::map<std::string, std::shared_ptr<const api::PodGroup>> podgroups_;
  std::map<std::string, std::shared_ptr<const api::Queue>> queues_;
  std::map<std::string, std::shared_ptr<const api::PriorityClass>> priority_classes_;
  std::map<std::string, std::shared_ptr<const api::Topology>> topologies_;
  std::map<std::string, std::shared_ptr<const api::ConfigMap>> config_maps_;
  std::map<std::string, std::shared_ptr<const api::BindRequest>> bind_requests_;
  // Key -> uid of a BindRequest the scheduler deleted whose DELETED the informer has not
  // delivered yet. One per key (a newer deletion under the key replaces it); cleared whole past
  // kMaxDeletedBindRequests, for BindRequests the informer never saw (created and deleted while
  // its watch was down), which only reopens the rare race it closes.
  std::map<std::string, std::string> deleted_bind_requests_;
  static constexpr size_t kMaxDeletedBindRequests = 10000;
  PodGroupOverlay podgroup_overlay_;

  // Incremental snapshot (the second half of cluster_model.cc).
  struct KeptSnapshot;
  // Stale for good, so deleted before the session and never a pod's binding: failed with no
  // retries left, for a node not in `nodes` (this shard's), or made for an earlier pod of the
  // name (api::BindRequest::IsForAnotherPod).
  bool IsStale(const api::BindRequest& br,
               const std::map<std::string, std::unique_ptr<NodeInfo>>& nodes) const;
  void IndexBindRequest(const std::string& key, const api::BindRequest* old_br,
                        const api::BindRequest* new_br);
  // deleted_bind_requests_'s entry for `key` if it is `uid`'s, else its end().
  std::map<std::string, std::string>::iterator FindDeletedBindRequest(const std::string& key,
                                                                      std::string_view uid);
  void CountPodResources(const PodEntry& e, int delta);
  void RebuildKept(const SchedulerParams& params, const std::string& params_key) const;
  void ApplyDirty(const SchedulerParams& params) const;
  void RebuildTask(const SchedulerParams& params, const std::string& key) const;
  void RebuildNode(const SchedulerParams& params, const std::string& name) const;
  void RebuildJob(const SchedulerParams& params, const std::string& id) const;
  void CopyKept(const SchedulerParams& params, std::vector<std::string>* warnings,
                ClusterInfo* c) const;
  // Resources requested by pods beyond cpu/memory (they shape the resource vector), counted.
  std::map<std::string, int> pod_extra_resources_;
  // Pod key ("namespace/pod") -> keys of the BindRequests naming it.
  std::map<std::string, std::set<std::string>> bind_requests_by_pod_;
  // What changed since the kept snapshot was brought up to date.
  mutable std::set<std::string> dirty_pods_;
  mutable std::set<std::string> dirty_nodes_;
  mutable std::set<std::string> dirty_podgroups_;  // PodGroup keys
  mutable bool structure_changed_ = true;          // queues, priority classes
  mutable std::unique_ptr<KeptSnapshot> kept_;
  // A snapshot handed back by Recycle(): the next Snapshot() fills it.
  mutable std::unique_ptr<ClusterInfo> recycled_;
};

}  // namespace kai::scheduler
