// kai_scheduler_bench: scheduling-cycle benchmark on synthetic clusters (issue 5). Prints JSON.
//
//   kai_scheduler_bench [--sizes tiny,S,M,L] [--repetitions N] [--events N] [--seed S]
//                       [--actions LIST] [--dump-decisions PREFIX] [--snapshot incremental|full]
//                       [--recycle on|off] [--search-budget default|off|DURATION]
//                       [--failed-search-backoff MIN] [--converge N]
//                       [--write-snapshot PREFIX] [--min-runtime DURATION]
//                       [--pending-pods N]
//
// Per size it reports, each as min / median / max over the repetitions (milliseconds):
//   snapshot.full_rebuild   a new ClusterModel filled with every object, then a snapshot (what a
//                           cache without incremental maintenance pays each cycle, like KAI)
//   snapshot.from_model     a snapshot of the warm, unchanged model (with the incremental
//                           snapshot: only the copy for the session); also as CPU time
//   snapshot.apply_events   applying a batch of informer events (pod status churn, completed
//                           pods, new pending jobs, node updates) to the model
//   snapshot.incremental    the snapshot right after such a batch (the model's kept snapshot
//                           brought up to date, then copied for the session); also as CPU time
//   snapshot.incremental_full  the same state built from scratch (ClusterModel::FullSnapshot,
//                           the construction before the incremental snapshot), right after, so
//                           the pair is measured side by side; also as CPU time
//   cycle.<action>          each configured action, and session open / close; also as CPU
//                           time (cycle.<action>_cpu_ms)
//   cycle.total             snapshot + open + every action + close
//   cycle.release_cpu       after the cycle's results were read: destroying the session and its
//                           snapshot (not part of cycle.total)
//   cycle.next_snapshot_cpu the snapshot taken right after the cycle (recycling: copied into the
//                           objects the session used); release + next snapshot is what the copy
//                           for the session costs per cycle in steady state
// Times are wall clock; cycle.total_cpu_ms is the process CPU time of the cycle (the machine is
// shared, so CPU time is the steadier figure). The benchmark is single-threaded. Also reported:
// the peak resident set size of the process after the size ran (sizes run in the order
// given, so the figure for a size includes the earlier ones).
//
// --dump-decisions writes PREFIX-<size>.txt with every decision and unschedulable message of
// the first cycle, so that two builds can be compared (`diff`): optimisations must not change
// decisions. --snapshot full makes the cycles use FullSnapshot (the reference construction).
// Every snapshot of the warm models is handed back once used (ClusterModel::Recycle), so each
// snapshot after the first is copied into the previous one's objects; --recycle off drops them
// instead (then cycle.release_cpu_ms is the cost of destroying them).
// --search-budget: the victim searches' time budgets (scenarioSearchBudgets) run on the real
// monotonic clock, as live: "default" keeps upstream's (20s per action, 5s per job), "off" makes
// them unlimited (the exhaustive search every decision dump before the budgets was made with),
// a Go duration sets the per-action budget. action_counts report the searches a budget stopped.
// --failed-search-backoff MIN: jobs whose search failed are not searched again by that action
// for MIN (doubling per failure), kept across the repetitions as a live scheduler keeps it
// across cycles, so repetitions after the first show the steady state
// (action_counts_last_repetition).
// --converge N: after the repetitions, N cycles over a fresh copy of the cluster that absorbs
// each cycle's decisions before the next, the clock one schedule period later each time
// (bench/converging_cycles.h); reported per cycle under "converging_cycles".
// --min-runtime DURATION sets the minruntime plugin's defaultPreemptMinRuntime and
// defaultReclaimMinRuntime (SchedulingShard spec.minRuntime): jobs that started less than that
// long ago are not taken as victims.
// --pending-pods N replaces the size's number of pending pods (the running part of the cluster
// is generated the same): e.g. L with 6 is KAI's own large-cluster measurement, one new
// workload on a busy 4,000-node / 140,000-pod cluster (KAI-Scheduler issue #315).
// --write-snapshot PREFIX writes each size's generated cluster to PREFIX-<size>.json, a List
// that `kai-scheduler simulate --snapshot` replays.
#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "scheduler/actions/actions.h"
#include "scheduler/bench/bench_cycle.h"
#include "scheduler/bench/converging_cycles.h"
#include "scheduler/bench/synthetic_cluster.h"
#include "scheduler/framework/session.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler::bench {
namespace {

struct Options {
  std::vector<std::string> sizes{"S", "M", "L"};
  int repetitions = 3;
  int events = -1;  // default: 1% of the pods
  uint64_t seed = 42;
  std::vector<std::string> actions;
  std::string dump_prefix;
  bool full_snapshot = false;
  // Hand every snapshot back to its model once used (ClusterModel::Recycle), as simulate does.
  bool recycle = true;
  std::string search_budget = "default";
  std::string failed_search_backoff;  // "" = off
  int converge = 0;                   // cycles of the converging series; 0 = none
  std::string snapshot_prefix;        // --write-snapshot
  std::string min_runtime;            // "" = the plugin's default (0)
  int64_t pending_pods = -1;          // -1 = the size's own
};

void Usage() {
  std::cerr << "usage: kai_scheduler_bench [--sizes tiny,S,M,L] [--repetitions N] [--events N] "
               "[--seed S] [--actions LIST] [--dump-decisions PREFIX] "
               "[--snapshot incremental|full] [--recycle on|off] "
               "[--search-budget default|off|DURATION] [--failed-search-backoff MIN] "
               "[--converge N] [--write-snapshot PREFIX] [--min-runtime DURATION] "
               "[--pending-pods N]\n";
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string v;
    if (auto eq = a.find('='); eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else if (i + 1 < argc) {
      v = argv[++i];
    } else {
      std::cerr << a << ": missing value\n";
      return false;
    }
    auto list = [&]() {
      std::vector<std::string> out;
      for (const auto& p : StrSplit(v, ',')) {
        std::string s(StripWhitespace(p));
        if (!s.empty()) out.push_back(s);
      }
      return out;
    };
    auto bad = [&](const char* expected) {
      std::cerr << a << ": expected " << expected << ", got \"" << v << "\"\n";
      return false;
    };
    // A decimal count in [min, max].
    auto count = [&](uint64_t min, uint64_t max, uint64_t* out) {
      return ParseDecimalUint64(v, out) && *out >= min && *out <= max;
    };
    uint64_t n = 0;
    if (a == "--sizes") {
      o->sizes = list();
    } else if (a == "--repetitions") {
      if (!count(1, 1000, &n)) return bad("a count from 1 to 1000");
      o->repetitions = static_cast<int>(n);
    } else if (a == "--events") {
      if (!count(0, 10'000'000, &n)) return bad("a count from 0 to 10000000");
      o->events = static_cast<int>(n);
    } else if (a == "--seed") {
      if (!ParseDecimalUint64(v, &n)) return bad("an unsigned decimal integer");
      o->seed = n;
    } else if (a == "--actions") {
      o->actions = list();
    } else if (a == "--dump-decisions") {
      o->dump_prefix = v;
    } else if (a == "--snapshot") {
      if (v != "full" && v != "incremental") return bad("full or incremental");
      o->full_snapshot = v == "full";
    } else if (a == "--recycle") {
      if (v != "on" && v != "off") return bad("on or off");
      o->recycle = v == "on";
    } else if (a == "--search-budget") {
      if (v != "default" && v != "off" && !ParseGoDuration(v).ok()) {
        return bad("default, off or a Go duration");
      }
      o->search_budget = v;
    } else if (a == "--failed-search-backoff") {
      if (!ParseGoDuration(v).ok()) return bad("a Go duration");
      o->failed_search_backoff = v;
    } else if (a == "--min-runtime") {
      if (!ParseGoDuration(v).ok()) return bad("a Go duration");
      o->min_runtime = v;
    } else if (a == "--write-snapshot") {
      o->snapshot_prefix = v;
    } else if (a == "--pending-pods") {
      if (!count(0, 10'000'000, &n)) return bad("a count from 0 to 10000000");
      o->pending_pods = static_cast<int64_t>(n);
    } else if (a == "--converge") {
      if (!count(0, 10'000, &n)) return bad("a count from 0 to 10000");
      o->converge = static_cast<int>(n);
    } else {
      std::cerr << "unknown flag " << a << "\n";
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  Options opts;
  if (!ParseArgs(argc, argv, &opts)) {
    Usage();
    return 2;
  }
  PluginRegistry plugins;
  RegisterDefaultPlugins(&plugins);
  ActionRegistry actions;
  RegisterDefaultActions(&actions);
  SchedulerConfiguration conf = DefaultSchedulerConfiguration();
  for (const std::string& name : opts.actions) {
    if (Status s = CheckActionName(name).WithPrefix("--actions"); !s.ok()) {
      std::cerr << s.message() << "\n";
      return 2;
    }
  }
  if (!opts.actions.empty()) conf.actions = opts.actions;
  if (opts.search_budget == "off") {
    conf.search_budgets = SearchBudgets{};  // no limit anywhere
    conf.search_budgets.max_job = Duration::zero();
  } else if (opts.search_budget != "default") {
    conf.search_budgets.max_action["default"] = *ParseGoDuration(opts.search_budget);
  }
  if (!opts.failed_search_backoff.empty()) {
    conf.search_budgets.min_failed_search_backoff["default"] =
        *ParseGoDuration(opts.failed_search_backoff);
  }
  if (!opts.min_runtime.empty()) {
    for (PluginOption& p : conf.plugins) {
      if (p.name != "minruntime") continue;
      p.arguments["defaultPreemptMinRuntime"] = opts.min_runtime;
      p.arguments["defaultReclaimMinRuntime"] = opts.min_runtime;
    }
  }
  SchedulerParams params;

  std::string out = "{\n  \"benchmark\": \"kai_scheduler_bench\",\n  \"repetitions\": " +
                    std::to_string(opts.repetitions) + ",\n  \"sizes\": [";
  bool first_size = true;
  for (const std::string& size : opts.sizes) {
    auto spec = SpecForSize(size);
    if (!spec.ok()) {
      std::cerr << spec.status().message() << "\n";
      return 2;
    }
    spec->seed = opts.seed;
    if (opts.pending_pods >= 0) spec->pending_pods = opts.pending_pods;
    auto t = BenchClock::now();
    SyntheticCluster cluster = GenerateSyntheticCluster(*spec);
    double generate_ms = MsSince(t);
    if (!opts.snapshot_prefix.empty()) {
      std::string path = opts.snapshot_prefix + "-" + size + ".json";
      std::ofstream f(path);
      f << SyntheticClusterListJson(cluster);
      if (!f) {
        std::cerr << "cannot write " << path << "\n";
        return 1;
      }
    }
    const size_t total_pods = cluster.objects.pods.size();
    const int events = opts.events >= 0 ? opts.events : std::max<int>(10, total_pods / 100);

    Stats full_rebuild, from_model, apply_events, incremental, open, close, total, total_cpu,
        snapshot_in_cycle, incremental_cpu, incremental_full, incremental_full_cpu, from_model_cpu,
        snapshot_in_cycle_cpu, release_cpu, after_cycle_cpu;
    std::map<std::string, Stats> per_action, per_action_cpu;
    std::vector<std::string> action_order;
    CycleResult first;

    // The warm model the cycles and the incremental path use.
    ClusterModel model;
    model.AddAll(cluster.objects);
    SeededRandom event_random(opts.seed + 1);
    SyntheticCluster churned = cluster;  // event batches mutate their own copy
    ClusterModel churn_model;
    churn_model.AddAll(churned.objects);
    // Both models keep a snapshot from here on, as a running scheduler's model does after its
    // first cycle (that first build is what full_rebuild measures).
    auto recycle = [&](const ClusterModel& m, std::unique_ptr<ClusterInfo> used) {
      if (opts.recycle) m.Recycle(std::move(used));
    };
    recycle(model, model.Snapshot(params, nullptr));
    recycle(churn_model, churn_model.Snapshot(params, nullptr));

    FailedSearchBackoff backoff;  // across the repetitions, as a live scheduler keeps it
    CycleResult last;
    for (int rep = 0; rep < opts.repetitions; ++rep) {
      {
        t = BenchClock::now();
        ClusterModel fresh;
        fresh.AddAll(cluster.objects);
        auto snap = fresh.Snapshot(params, nullptr);
        full_rebuild.Add(MsSince(t));
      }
      {
        t = BenchClock::now();
        double cpu = CpuMs();
        auto snap = model.Snapshot(params, nullptr);
        from_model_cpu.Add(CpuMs() - cpu);
        from_model.Add(MsSince(t));
        recycle(model, std::move(snap));
      }
      {
        t = BenchClock::now();
        ApplyEventBatch(&churned, events, &event_random, &churn_model);
        apply_events.Add(MsSince(t));
        t = BenchClock::now();
        double cpu = CpuMs();
        auto snap = churn_model.Snapshot(params, nullptr);
        incremental_cpu.Add(CpuMs() - cpu);
        incremental.Add(MsSince(t));
        recycle(churn_model, std::move(snap));
        snap.reset();
        t = BenchClock::now();
        cpu = CpuMs();
        auto full = churn_model.FullSnapshot(params, nullptr);
        incremental_full_cpu.Add(CpuMs() - cpu);
        incremental_full.Add(MsSince(t));
      }
      CycleSetup setup{&conf,        &params, &plugins, &actions, opts.full_snapshot,
                       opts.recycle, &backoff};
      CycleResult c = RunCycle(model, setup, cluster.now, rep == 0 && !opts.dump_prefix.empty());
      {
        // The next cycle's snapshot: with recycling it is copied into the objects the session
        // just used (and changed: statuses, placements, fit errors).
        double cpu = CpuMs();
        auto snap = model.Snapshot(params, nullptr);
        after_cycle_cpu.Add(CpuMs() - cpu);
        recycle(model, std::move(snap));
      }
      snapshot_in_cycle.Add(c.snapshot_ms);
      snapshot_in_cycle_cpu.Add(c.snapshot_cpu_ms);
      release_cpu.Add(c.release_cpu_ms);
      open.Add(c.open_ms);
      close.Add(c.close_ms);
      total.Add(c.total_ms);
      total_cpu.Add(c.total_cpu_ms);
      for (size_t i = 0; i < c.actions.size(); ++i) {
        const auto& [name, ms] = c.actions[i];
        if (per_action.count(name) == 0) action_order.push_back(name);
        per_action[name].Add(ms);
        per_action_cpu[name].Add(c.actions_cpu[i]);
      }
      if (rep + 1 == opts.repetitions && rep > 0) last.action_counts = c.action_counts;
      if (rep == 0) first = std::move(c);
    }

    if (!opts.dump_prefix.empty()) {
      std::string path = opts.dump_prefix + "-" + size + ".txt";
      std::ofstream f(path);
      for (const auto& l : first.decision_lines) f << l << "\n";
      if (!f) {
        std::cerr << "cannot write " << path << "\n";
        return 1;
      }
    }

    char buf[512];
    out += first_size ? "\n" : ",\n";
    first_size = false;
    std::snprintf(buf, sizeof(buf),
                  "    {\n      \"size\": \"%s\",\n      \"nodes\": %d,\n      \"gpus\": %d,\n"
                  "      \"pods\": %zu,\n      \"running_pods\": %lld,\n"
                  "      \"pending_pods\": %lld,\n      \"jobs\": %zu,\n      \"queues\": %zu,\n"
                  "      \"used_gpus\": %lld,\n      \"generate_ms\": %.1f,\n",
                  size.c_str(), spec->nodes, spec->nodes * spec->gpus_per_node, total_pods,
                  static_cast<long long>(cluster.running_pods),
                  static_cast<long long>(cluster.pending_pods), cluster.objects.podgroups.size(),
                  cluster.objects.queues.size(), static_cast<long long>(cluster.used_gpus),
                  generate_ms);
    out += buf;
    out += "      \"snapshot\": {\n        \"full_rebuild_ms\": " + full_rebuild.Json() +
           ",\n        \"from_model_ms\": " + from_model.Json() +
           ",\n        \"from_model_cpu_ms\": " + from_model_cpu.Json() +
           ",\n        \"events_per_batch\": " + std::to_string(events) +
           ",\n        \"apply_events_ms\": " + apply_events.Json() +
           ",\n        \"incremental_ms\": " + incremental.Json() +
           ",\n        \"incremental_cpu_ms\": " + incremental_cpu.Json() +
           ",\n        \"incremental_full_ms\": " + incremental_full.Json() +
           ",\n        \"incremental_full_cpu_ms\": " + incremental_full_cpu.Json() +
           "\n      },\n";
    out += "      \"cycle\": {\n        \"snapshot_ms\": " + snapshot_in_cycle.Json() +
           ",\n        \"snapshot_cpu_ms\": " + snapshot_in_cycle_cpu.Json() +
           ",\n        \"session_open_ms\": " + open.Json();
    for (const auto& name : action_order) {
      out += ",\n        \"" + name + "_ms\": " + per_action[name].Json();
      out += ",\n        \"" + name + "_cpu_ms\": " + per_action_cpu[name].Json();
    }
    out += ",\n        \"session_close_ms\": " + close.Json() +
           ",\n        \"total_ms\": " + total.Json() +
           ",\n        \"total_cpu_ms\": " + total_cpu.Json() +
           ",\n        \"release_cpu_ms\": " + release_cpu.Json() +
           ",\n        \"next_snapshot_cpu_ms\": " + after_cycle_cpu.Json() + "\n      },\n";
    std::snprintf(buf, sizeof(buf),
                  "      \"decisions\": {\"binds\": %d, \"evictions\": %d, \"pipelined\": %d, "
                  "\"unschedulable_jobs\": %d},\n",
                  first.binds, first.evictions, first.pipelined, first.unschedulable_jobs);
    out += buf;
    out += "      \"action_counts\": {" + ActionCountsJson(first.action_counts) + "},\n";
    if (opts.repetitions > 1) {
      out += "      \"action_counts_last_repetition\": {" + ActionCountsJson(last.action_counts) +
             "},\n";
    }
    if (opts.converge > 0) {
      FailedSearchBackoff converge_backoff;
      CycleSetup setup{&conf,        &params,          &plugins, &actions, opts.full_snapshot,
                       opts.recycle, &converge_backoff};
      auto series = RunConvergingCycles(cluster, setup, opts.converge, params.schedule_period);
      out += "      \"converging_cycles\": " + ConvergingCyclesJson(series) + ",\n";
    }
    std::snprintf(buf, sizeof(buf), "      \"peak_rss_mib\": %.1f\n    }", PeakRssKib() / 1024.0);
    out += buf;
    std::cerr << "size " << size << " done\n";
  }
  out += "\n  ]\n}\n";
  std::cout << out;
  return 0;
}

}  // namespace
}  // namespace kai::scheduler::bench

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 2;
  return kai::scheduler::bench::Main(argc, argv);
}
