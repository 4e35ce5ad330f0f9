#include "scheduler/bench/bench_cycle.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "kube/base/random.h"

namespace kai::scheduler::bench {
namespace {

class CountingSink : public DecisionSink {
 public:
  CountingSink(bool record, DecisionSink* also) : record_(record), also_(also) {}
  Status Bind(const BindDecision& d) override {
    ++binds;
    if (also_ != nullptr) KAI_RETURN_IF_ERROR(also_->Bind(d));
    if (record_) {
      std::string line = "bind " + d.pod_key + " " + d.node + " " + d.received_resource_type + " " +
                         d.gpu_portion + " groups=" + std::to_string(d.gpu_groups.size());
      lines.push_back(std::move(line));
    }
    return Status::OK();
  }
  Status Evict(const EvictDecision& d) override {
    ++evictions;
    if (also_ != nullptr) KAI_RETURN_IF_ERROR(also_->Evict(d));
    if (record_)
      lines.push_back("evict " + d.pod_key + " by " + d.metadata.action + ": " + d.message);
    return Status::OK();
  }
  void Pipelined(const PipelineDecision& d) override {
    ++pipelined;
    if (also_ != nullptr) also_->Pipelined(d);
    if (record_) lines.push_back("pipeline " + d.pod_key + " " + d.node);
  }
  int binds = 0, evictions = 0, pipelined = 0;
  std::vector<std::string> lines;

 private:
  bool record_;
  DecisionSink* also_;
};

}  // namespace

double MsSince(BenchClock::time_point start) {
  return std::chrono::duration<double, std::milli>(BenchClock::now() - start).count();
}

double CpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

std::string Stats::Json() const {
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  char buf[160];
  if (s.empty()) return "null";
  std::snprintf(buf, sizeof(buf), "{\"min\": %.3f, \"median\": %.3f, \"max\": %.3f}", s.front(),
                s[s.size() / 2], s.back());
  return buf;
}

long PeakRssKib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

std::string ActionCountsJson(const std::map<std::string, Session::ActionCounts, std::less<>>& m) {
  std::string out;
  for (const auto& [action, n] : m) {
    if (!out.empty()) out += ", ";
    out += "\"" + action + "\": {\"scenarios_simulated\": " + std::to_string(n.simulated) +
           ", \"scenarios_filtered\": " + std::to_string(n.filtered) +
           ", \"podgroups_acted_on\": " + std::to_string(n.acted_on) +
           ", \"podgroups_scheduled\": " + std::to_string(n.scheduled) +
           ", \"job_budget_stops\": " + std::to_string(n.job_budget_stops) +
           ", \"action_budget_stops\": " + std::to_string(n.action_budget_stops) +
           ", \"backoff_skips\": " + std::to_string(n.backoff_skips) +
           ", \"final_rejections\": " + std::to_string(n.final_rejections) + "}";
  }
  return out;
}

CycleResult RunCycle(const ClusterModel& model, const CycleSetup& setup, WallTime now, bool record,
                     DecisionSink* also,
                     const std::function<void(const ClusterInfo&)>& after_close) {
  const SchedulerConfiguration& conf = *setup.conf;
  const SchedulerParams& params = *setup.params;
  CycleResult r;
  FixedWallClock clock(now);
  SeededRandom random(7);
  CountingSink sink(record, also);
  auto start = BenchClock::now();
  double cpu_start = CpuMs();
  auto t = BenchClock::now();
  std::vector<std::string> warnings;
  std::unique_ptr<ClusterInfo> snapshot = setup.full_snapshot
                                              ? model.FullSnapshot(params, &warnings)
                                              : model.Snapshot(params, &warnings);
  r.snapshot_ms = MsSince(t);
  r.snapshot_cpu_ms = CpuMs() - cpu_start;
  t = BenchClock::now();
  auto session =
      std::make_unique<Session>("bench", std::move(snapshot), conf, params, &sink, &clock, &random);
  Session& ssn = *session;
  ssn.set_failed_search_backoff(setup.backoff);
  ssn.Open(*setup.plugins);
  r.open_ms = MsSince(t);
  for (const std::string& name : conf.actions) {
    const ActionRegistry::Builder* b = setup.actions->Find(name);
    if (b == nullptr) continue;
    t = BenchClock::now();
    double cpu = CpuMs();
    (*b)()->Execute(&ssn);
    r.actions.emplace_back(name, MsSince(t));
    r.actions_cpu.push_back(CpuMs() - cpu);
    std::cerr << "  action " << name << ": " << r.actions_cpu.back() << " ms CPU";
    if (auto it = ssn.action_counts().find(name); it != ssn.action_counts().end()) {
      std::cerr << ", scenarios simulated " << it->second.simulated << ", filtered "
                << it->second.filtered;
      if (it->second.job_budget_stops + it->second.action_budget_stops > 0) {
        std::cerr << ", searches stopped by a budget: " << it->second.job_budget_stops
                  << " jobs, action " << it->second.action_budget_stops;
      }
    }
    const ResourceFitCache& fc = ssn.resource_fit_cache();
    std::cerr << ", fit cache hits " << fc.hits() << " misses " << fc.misses() << " node rechecks "
              << fc.node_rechecks() << " column passes " << fc.column_passes() << " log updates "
              << fc.log_updates() << "\n";
  }
  t = BenchClock::now();
  ssn.Close();
  r.close_ms = MsSince(t);
  r.total_ms = MsSince(start);
  r.total_cpu_ms = CpuMs() - cpu_start;
  r.action_counts = ssn.action_counts();
  r.binds = sink.binds;
  r.evictions = sink.evictions;
  r.pipelined = sink.pipelined;
  for (const auto& [id, job] : ssn.cluster().jobs) {
    if (job->NumPending() > 0 && !job->job_fit_errors.empty()) ++r.unschedulable_jobs;
    if (!record) continue;
    for (const auto& e : job->job_fit_errors) {
      sink.lines.push_back("job " + id + " " + e.reason + ": " + e.message);
    }
    // Per-task explanations too (pod conditions are built from them), in task uid order.
    for (const auto& [uid, fe] : job->task_fit_errors) {
      std::string line = "task ";
      line.append(id).append(" ").append(uid).append(": ").append(fe.Message());
      sink.lines.push_back(std::move(line));
    }
  }
  r.decision_lines = std::move(sink.lines);
  if (after_close) after_close(ssn.cluster());
  // What the cycle pays after its results were read: the session and its snapshot go away.
  double cpu = CpuMs();
  if (setup.recycle) model.Recycle(ssn.TakeCluster());
  session.reset();
  r.release_cpu_ms = CpuMs() - cpu;
  return r;
}

}  // namespace kai::scheduler::bench
