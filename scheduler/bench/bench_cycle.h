// One scheduling cycle as kai_scheduler_bench measures it: snapshot, session open, each
// configured action, close, each timed in wall and CPU time, with the decisions counted (and,
// on request, recorded as text for diffs between builds).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kube/base/clock.h"
#include "scheduler/actions/actions.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/framework/session.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler::bench {

using BenchClock = std::chrono::steady_clock;

double MsSince(BenchClock::time_point start);
double CpuMs();  // CPU time of the process
long PeakRssKib();

// min / median / max of a figure over repetitions, as JSON.
struct Stats {
  std::vector<double> samples;
  void Add(double v) { samples.push_back(v); }
  std::string Json() const;
};

// The session's clock: wall time fixed at `now` (the generated timestamps are relative to the
// cluster's now), monotonic time real, so search budgets run out as they would live.
class FixedWallClock final : public Clock {
 public:
  explicit FixedWallClock(WallTime now) : now_(now) {}
  WallTime Now() const override { return now_; }
  MonoTime NowMonotonic() const override { return RealClock::Get()->NowMonotonic(); }
  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 MonoTime deadline) override {
    return RealClock::Get()->WaitUntil(cv, lock, deadline);
  }

 private:
  WallTime now_;
};

struct CycleResult {
  double snapshot_ms = 0, open_ms = 0, close_ms = 0, total_ms = 0, total_cpu_ms = 0;
  double snapshot_cpu_ms = 0, release_cpu_ms = 0;
  // Per action: wall and CPU milliseconds.
  std::vector<std::pair<std::string, double>> actions;
  std::vector<double> actions_cpu;
  int binds = 0, evictions = 0, pipelined = 0, unschedulable_jobs = 0;
  std::vector<std::string> decision_lines;
  // Per action: victim-search scenarios (the work the evicting actions' times scale with) and
  // pod groups tried / scheduled.
  std::map<std::string, Session::ActionCounts, std::less<>> action_counts;
};

// {"reclaim": {"scenarios_simulated": N, ...}, ...} without the enclosing braces.
std::string ActionCountsJson(const std::map<std::string, Session::ActionCounts, std::less<>>& m);

struct CycleSetup {
  const SchedulerConfiguration* conf = nullptr;
  const SchedulerParams* params = nullptr;
  const PluginRegistry* plugins = nullptr;
  const ActionRegistry* actions = nullptr;
  bool full_snapshot = false;  // FullSnapshot() instead of the incremental snapshot
  bool recycle = true;         // hand the used snapshot back to the model
  FailedSearchBackoff* backoff = nullptr;
};

// `record`: keep every decision and unschedulable message as text lines. `also`: a sink that
// sees every decision too. `after_close`: called with the closed session's cluster before it is
// handed back (not timed).
CycleResult RunCycle(const ClusterModel& model, const CycleSetup& setup, WallTime now, bool record,
                     DecisionSink* also = nullptr,
                     const std::function<void(const ClusterInfo&)>& after_close = nullptr);

}  // namespace kai::scheduler::bench
