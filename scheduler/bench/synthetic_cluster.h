// Deterministic synthetic clusters for the scheduler benchmark (issue 5, "Performance"): GPU
// nodes, a two-level queue tree, and jobs (PodGroups with gangs of 1-16 pods) that are either
// running (placed first-fit without over-committing any node) or pending. Everything is drawn
// from one seeded kai::Random, so a spec and a seed always give the same objects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/base/statusor.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/cache/object_loader.h"

namespace kai::scheduler::bench {

struct SyntheticClusterSpec {
  std::string name;
  int nodes = 10;
  int gpus_per_node = 8;
  int64_t node_cpu_milli = 128000;
  int64_t node_memory_bytes = int64_t{1} << 40;  // 1 TiB
  int node_pods = 110;
  int departments = 2;            // parent queues
  int queues_per_department = 2;  // leaf queues under each
  int64_t running_pods_max = 0;   // running phase stops at this many pods...
  double running_gpu_fill = 0.5;  // ...or once this share of all GPUs is in use (or the
                                  // cluster is full: 200 jobs in a row did not fit)
  int64_t pending_pods = 0;       // then this many pending pods are added
  int max_gang = 16;              // gang sizes are uniform in [1, max_gang]
  double fractional_share = 0.3;  // jobs whose pods ask for a GPU fraction
  double cpu_only_share = 0.2;    // jobs without GPUs; the rest ask for whole GPUs
  uint64_t seed = 42;
};

// Presets: "tiny" (CI smoke), "S", "M", "L" (issue 5). Unknown names are an error.
StatusOr<SyntheticClusterSpec> SpecForSize(const std::string& size);

struct SyntheticCluster {
  LoadedObjects objects;
  WallTime now{};  // the instant creation timestamps are relative to
  int64_t running_pods = 0;
  int64_t pending_pods = 0;
  int64_t jobs = 0;
  int64_t used_gpus = 0;  // whole GPUs held by running pods (shared GPUs count once)
  int64_t event_generation = 0;
};

SyntheticCluster GenerateSyntheticCluster(const SyntheticClusterSpec& spec);

// What the informers would deliver between two cycles: `n` events over the cluster — updates of
// running pods (status churn), deletions of running pods, new pending jobs, node label updates —
// applied to `model` (and mirrored in `cluster` so that a next batch stays consistent).
struct EventBatchStats {
  int pod_updates = 0;
  int pod_deletes = 0;
  int pod_adds = 0;
  int podgroup_adds = 0;
  int node_updates = 0;
};
EventBatchStats ApplyEventBatch(SyntheticCluster* cluster, int n, Random* random,
                                ClusterModel* model);

// The cluster as a Kubernetes List (JSON) that `kai-scheduler simulate --snapshot` reads:
// priority classes, queues, nodes, pod groups, pods.
std::string SyntheticClusterListJson(const SyntheticCluster& cluster);

}  // namespace kai::scheduler::bench
