// kai_scheduler_bench --converge N: N cycles over one cluster that absorbs each cycle's decisions
// before the next (scheduler/app/cluster_response.h: bound pods run, pipelined ones wait,
// evicted ones come back pending), with the clock advanced by the schedule period. The first
// cycle on a freshly generated cluster is a worst case (every queue far from its fair share);
// the later ones are what a running scheduler pays once its decisions have taken effect, and
// whether they stop evicting shows the decisions settle instead of undoing each other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kube/base/clock.h"
#include "scheduler/bench/bench_cycle.h"
#include "scheduler/bench/synthetic_cluster.h"

namespace kai::scheduler::bench {

struct ConvergedCycle {
  CycleResult result;
  int64_t pending_pods_after = 0;  // pods still Pending when the cycle closed
  int64_t running_pods_after = 0;  // pods holding resources (Running, Bound, Binding, Releasing)
  // Churn: evicted pods that this same cycle had bound (allocate placed them, a later action
  // took them as victims), and evicted pods that an earlier cycle of the series evicted too.
  int64_t evicted_bound_this_cycle = 0;
  int64_t evicted_again = 0;
};

std::vector<ConvergedCycle> RunConvergingCycles(const SyntheticCluster& cluster,
                                                const CycleSetup& setup, int cycles,
                                                Duration period);

// [{"cycle": 1, "total_ms": ..., "total_cpu_ms": ..., "<action>_cpu_ms": ..., "binds": ...}, ...]
std::string ConvergingCyclesJson(const std::vector<ConvergedCycle>& cycles);

}  // namespace kai::scheduler::bench
