#include "scheduler/bench/converging_cycles.h"

#include <cstdio>
#include <iostream>
#include <set>
#include <string>

#include "scheduler/app/cluster_response.h"

namespace kai::scheduler::bench {
namespace {

// Records the decisions for ApplyDecisionsToModel and remembers what was bound (the recorder
// keeps only each pod's last decision; it marks the evicted ones itself).
class ChurnSink : public DecisionSink {
 public:
  Status Bind(const BindDecision& d) override {
    bound_.insert(d.pod_key);
    return recorder_.Bind(d);
  }
  Status Evict(const EvictDecision& d) override { return recorder_.Evict(d); }
  void Pipelined(const PipelineDecision& d) override { recorder_.Pipelined(d); }

  const DecisionRecorder& recorder() const { return recorder_; }
  const std::set<std::string>& bound() const { return bound_; }

 private:
  DecisionRecorder recorder_;
  std::set<std::string> bound_;
};

}  // namespace

std::vector<ConvergedCycle> RunConvergingCycles(const SyntheticCluster& cluster,
                                                const CycleSetup& setup, int cycles,
                                                Duration period) {
  ClusterModel model;
  model.AddAll(cluster.objects);
  // Warm, as a running scheduler's model is after its first snapshot.
  if (setup.recycle) model.Recycle(model.Snapshot(*setup.params, nullptr));
  std::vector<ConvergedCycle> out;
  std::set<std::string> evicted_before;
  for (int i = 0; i < cycles; ++i) {
    const WallTime now = cluster.now + period * i;
    ChurnSink decisions;
    ConvergedCycle c;
    c.result =
        RunCycle(model, setup, now, /*record=*/false, &decisions, [&](const ClusterInfo& closed) {
          for (const auto& t : closed.tasks) {
            if (t->status == PodStatus::kPending) ++c.pending_pods_after;
            if (IsActiveUsedStatus(t->status)) ++c.running_pods_after;
          }
          ApplyDecisionsToModel(closed, decisions.recorder(), now, &model);
        });
    for (const auto& [key, d] : decisions.recorder().decisions()) {
      if (!d.evicted) continue;
      c.evicted_bound_this_cycle += decisions.bound().count(key);
      c.evicted_again += !evicted_before.insert(key).second;
    }
    std::cerr << "converging cycle " << i + 1 << ": " << c.result.total_cpu_ms << " ms CPU, "
              << c.result.binds << " binds, " << c.result.evictions << " evictions, "
              << c.result.pipelined << " pipelined, " << c.pending_pods_after
              << " pods pending; evicted: " << c.evicted_bound_this_cycle << " bound this cycle, "
              << c.evicted_again << " evicted before\n";
    out.push_back(std::move(c));
  }
  return out;
}

std::string ConvergingCyclesJson(const std::vector<ConvergedCycle>& cycles) {
  std::string out = "[";
  char buf[512];
  for (size_t i = 0; i < cycles.size(); ++i) {
    const CycleResult& r = cycles[i].result;
    std::snprintf(buf, sizeof(buf),
                  "%s\n        {\"cycle\": %zu, \"total_ms\": %.1f, \"total_cpu_ms\": %.1f, "
                  "\"snapshot_cpu_ms\": %.1f",
                  i == 0 ? "" : ",", i + 1, r.total_ms, r.total_cpu_ms, r.snapshot_cpu_ms);
    out += buf;
    for (size_t a = 0; a < r.actions.size(); ++a) {
      std::snprintf(buf, sizeof(buf), ", \"%s_cpu_ms\": %.1f", r.actions[a].first.c_str(),
                    r.actions_cpu[a]);
      out += buf;
    }
    std::snprintf(buf, sizeof(buf),
                  ", \"binds\": %d, \"evictions\": %d, \"pipelined\": %d, "
                  "\"pending_pods_after\": %lld, \"running_pods_after\": %lld, "
                  "\"evicted_bound_this_cycle\": %lld, \"evicted_again\": %lld,\n         "
                  "\"action_counts\": {",
                  r.binds, r.evictions, r.pipelined,
                  static_cast<long long>(cycles[i].pending_pods_after),
                  static_cast<long long>(cycles[i].running_pods_after),
                  static_cast<long long>(cycles[i].evicted_bound_this_cycle),
                  static_cast<long long>(cycles[i].evicted_again));
    out += buf;
    out += ActionCountsJson(r.action_counts) + "}}";
  }
  out += cycles.empty() ? "]" : "\n      ]";
  return out;
}

}  // namespace kai::scheduler::bench
