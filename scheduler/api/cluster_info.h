// ClusterInfo: one session's snapshot of the cluster (KAI pkg/scheduler/api/cluster_info.go).
// It owns the mutable per-session objects; Kubernetes objects inside are shared and immutable.
#pragma once

#include <glog/logging.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/topology.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/pod_info.h"
#include "scheduler/api/podgroup_info.h"
#include "scheduler/api/queue_info.h"
#include "scheduler/api/resource.h"

namespace kai::scheduler {

struct ClusterInfo {
  std::unique_ptr<ResourceVectorMap> vector_map = std::make_unique<ResourceVectorMap>();

  // Every pod of the snapshot (also foreign and unassigned ones): the first
  // `num_reservation_tasks` are the GPU-sharing reservation pods, then the others, each run in
  // namespace/name order (FindTask searches the two runs instead of keeping a key index).
  std::vector<std::unique_ptr<PodInfo>> tasks;
  size_t num_reservation_tasks = 0;

  // Nodes by name (std::map: iteration is by name, deterministic).
  std::map<std::string, std::unique_ptr<NodeInfo>> nodes;
  // The same nodes as a vector in name order (what KAI gets from maps.Values).
  std::vector<NodeInfo*> node_list;

  std::map<PodGroupId, std::unique_ptr<PodGroupInfo>> jobs;
  // Jobs that had a Pending task when the session opened, in uid order (set by the Session).
  // A session only ever makes Pending again the tasks it placed itself, so every job with a
  // Pending task at any point of the session is in this list; scans for pending jobs (the
  // victim simulations run thousands of them) walk it instead of every job.
  std::vector<PodGroupInfo*> jobs_pending_at_open;
  bool jobs_pending_at_open_set = false;
  size_t num_jobs_at_open = 0;  // the list is only used while `jobs` has not changed size
  std::map<std::string, std::unique_ptr<QueueInfo>> queues;
  // Whether every queue's session index and parent link are set (IndexQueues, by the Session).
  bool queues_indexed = false;
  // A number unique to the session this cluster belongs to (0: none); JobOf's memo key.
  uint64_t session_epoch = 0;
  std::map<std::string, std::shared_ptr<const api::Topology>> topologies;
  // "namespace/name" of existing ConfigMaps.
  std::set<std::string> config_maps;

  // Normalized historical usage per queue UID from the usage database (time-based fair share,
  // reference §10): resource ("gpu", "cpu", "memory") -> usage / cluster capacity over the
  // window. Empty without a usage database.
  std::map<std::string, std::map<std::string, double>> queue_usage;

  // Smallest GPU memory of a node (KAI's MinNodeGPUMemory, §24.1); used to convert GPU-memory
  // requests into GPUs for fairness.
  std::optional<int64_t> min_node_gpu_memory;

  // BindRequests the cache should delete after this snapshot (failed, pointing to a missing
  // node, or made for an earlier pod of the name): "namespace/name" and the uid the delete is
  // preconditioned on, so a newer BindRequest under the name is never the one deleted.
  struct StaleBindRequest {
    std::string key;
    std::string uid;
    bool operator==(const StaleBindRequest&) const = default;
  };
  std::vector<StaleBindRequest> stale_bind_requests;

  NodeInfo* FindNode(const std::string& name) const {
    if (session_epoch != 0 && node_index_.epoch == session_epoch) {
      auto it = node_index_.by_name.find(name);
      NodeInfo* n = it == node_index_.by_name.end() ? nullptr : it->second;
      DCHECK_EQ(n, FindNodeInMap(name)) << "stale node index for " << name;
      return n;
    }
    return FindNodeInMap(name);
  }
  // Hashes every node's name for FindNode until session_epoch changes (nodes do not change during
  // a session). Statement operations look nodes up by name for every pod they move, and the
  // tree's string comparisons were 3% of a victim search.
  void IndexNodes() {
    node_index_.by_name.clear();
    node_index_.by_name.reserve(nodes.size());
    for (const auto& [name, node] : nodes) node_index_.by_name.emplace(name, node.get());
    node_index_.epoch = session_epoch;
  }
  PodGroupInfo* FindJob(const PodGroupId& id) const {
    auto it = jobs.find(id);
    return it == jobs.end() ? nullptr : it->second.get();
  }
  QueueInfo* FindQueue(const std::string& id) const {
    auto it = queues.find(id);
    return it == queues.end() ? nullptr : it->second.get();
  }
  // Gives each queue its index in `queues` (name order) and its parent queue (nullptr for a root
  // or a missing parent). Queues do not change during a session.
  void IndexQueues() {
    int i = 0;
    for (auto& [name, q] : queues) {
      q->set_session_links(i++, q->parent().empty() ? nullptr : FindQueue(q->parent()));
    }
    queues_indexed = true;
  }
  // FindQueue(q.parent()): nullptr for a root queue and for a missing parent.
  const QueueInfo* ParentOf(const QueueInfo& q) const {
    if (queues_indexed) return q.session_parent();
    return q.parent().empty() ? nullptr : FindQueue(q.parent());
  }
  // FindJob(task.job()), memoized on the task for the session (the session's jobs do not change
  // while it runs; copies of a task made before it carry another session's number).
  PodGroupInfo* JobOf(const PodInfo& task) const {
    if (session_epoch == 0) return FindJob(task.job());
    if (task.session_job_epoch != session_epoch) {
      task.session_job = FindJob(task.job());
      task.session_job_epoch = session_epoch;
    }
    DCHECK_EQ(task.session_job, FindJob(task.job())) << "stale job memo of task " << task.key();
    return task.session_job;
  }
  // FindQueue(job.queue()), memoized on the job.
  const QueueInfo* QueueOf(const PodGroupInfo& job) const {
    if (!job.queue_resolved) {
      job.cached_queue = FindQueue(job.queue());
      job.queue_resolved = true;
    }
    return job.cached_queue;
  }
  NodeInfo* FindNodeInMap(const std::string& name) const {
    auto it = nodes.find(name);
    return it == nodes.end() ? nullptr : it->second.get();
  }
  PodInfo* FindTask(const std::string& key) const {
    auto find = [&](auto first, auto last) -> PodInfo* {
      auto it = std::lower_bound(
          first, last, key,
          [](const std::unique_ptr<PodInfo>& t, const std::string& k) { return t->key() < k; });
      return it != last && (*it)->key() == key ? it->get() : nullptr;
    };
    const size_t reservations = std::min(num_reservation_tasks, tasks.size());
    PodInfo* t = find(tasks.begin() + static_cast<std::ptrdiff_t>(reservations), tasks.end());
    return t != nullptr
               ? t
               : find(tasks.begin(), tasks.begin() + static_cast<std::ptrdiff_t>(reservations));
  }

 private:
  // FindNode's index: keys view the node map's keys. Never copied (a copy's keys would view the
  // source's map): a copied ClusterInfo starts without one.
  struct NodeIndex {
    NodeIndex() = default;
    NodeIndex(const NodeIndex& /*other*/) {}
    NodeIndex& operator=(const NodeIndex& /*other*/) {
      by_name.clear();
      epoch = 0;
      return *this;
    }
    uint64_t epoch = 0;  // the session_epoch it was built for (0: none)
    std::unordered_map<std::string_view, NodeInfo*> by_name;
  };
  NodeIndex node_index_;
};

}  // namespace kai::scheduler
