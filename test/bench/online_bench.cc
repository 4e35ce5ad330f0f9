// Online benchmark: kai-scheduler (run mode) and kai-binder as processes against localkube with
// simulated GPU nodes. Per run (a scenario with one client QPS/burst setting): pods bound per
// second, creation-to-bound latency, CPU and peak RSS of every process, the API requests each
// component made per bound pod (localkube's /localkube/stats counters), and, in the same run,
// the ceiling: a client binding as many pods directly through pods/binding. Prints one JSON
// object (docs/benchmarks.md).
//
//   build/bin/kai_online_bench                                  # 1,000 nodes x 8 GPUs, 8,000 pods
//   build/bin/kai_online_bench --scale=0.05 --verify              # 50 nodes, 400 pods: seconds
//
// Scenarios: `single` = one PodGroup (minMember 1) per single-GPU pod (the scheduler, as KAI,
// schedules only pods whose PodGroup exists); `gang` = PodGroups of --gang_size single-GPU pods
// with minMember = gang size. Jobs go round-robin over --queues queues, one namespace per queue.
#include <gflags/gflags.h>
#include <rapidjson/document.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "api/json_quote.h"
#include "kube/base/strings.h"
#include "kube/rest/config.h"
#include "kube/rest/rest_client.h"
#include "test/bench/bench_process.h"
#include "test/localkube/testing/localkube_process.h"

DEFINE_int32(nodes, 1000, "simulated nodes");
DEFINE_int32(gpus_per_node, 8, "GPUs per node");
DEFINE_int32(queues, 10, "queues (one namespace each); jobs go round-robin over them");
DEFINE_int32(pods, 8000, "single-GPU pods per scenario");
DEFINE_double(scale, 1.0,
              "multiplies --nodes, --pods and --ceiling_pods (0.05: 50 nodes, 400 pods, a run of "
              "seconds)");
DEFINE_int32(gang_size, 8, "pods per PodGroup (minMember) in the gang scenario");
DEFINE_string(scenarios, "single,gang", "comma-separated: single, gang");
DEFINE_string(limits, "50:300,10000:10000",
              "client QPS:burst of kai-scheduler and kai-binder, comma-separated; one run per "
              "setting and scenario (KAI's default is 50:300)");
DEFINE_int32(creators, 8, "concurrent connections creating the PodGroups and pods");
DEFINE_int32(ceiling_connections, 8, "concurrent connections of the direct-binding ceiling");
DEFINE_int32(ceiling_pods, -1, "pods bound directly for the ceiling (-1: as many as --pods)");
DEFINE_string(schedule_period, "1s", "kai-scheduler --schedule-period");
DEFINE_int32(binder_workers, 10, "kai-binder --max-concurrent-reconciles");
DEFINE_int32(status_workers, 5, "kai-scheduler --num-of-status-recording-workers");
DEFINE_int32(scheduler_v, 4, "kai-scheduler --v (4 logs one line per cycle, which is parsed)");
DEFINE_string(scheduler_flags, "", "extra kai-scheduler flags, comma-separated");
DEFINE_string(binder_flags, "", "extra kai-binder flags, comma-separated");
DEFINE_string(localkube_flags, "", "extra localkube flags, comma-separated");
DEFINE_int32(settle_seconds, 120,
             "after the last pod is bound, wait up to this long for the components' writes to "
             "stop before reading the request counters and CPU times");
DEFINE_int32(timeout_seconds, 1800, "give up waiting for the pods of a run after this long");
DEFINE_string(bin_dir, "", "where kai-scheduler, kai-binder and localkube are (default: here)");
DEFINE_string(crds, "crds", "CRD manifests directory (kubectl apply -f)");
DEFINE_string(process_logs, "", "keep the processes' logs here (default: a temporary directory)");
DEFINE_bool(verify, false,
            "exit 1 unless every pod was bound exactly once and no node is over-committed");

namespace kai::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;
using localkube::testing::LocalKubeProcess;

const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kNodes{"", "v1", "nodes"};
const kube::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
const kube::GroupVersionResource kQueues{"scheduling.run.ai", "v2", "queues"};
const kube::GroupVersionResource kPodGroups{"scheduling.run.ai", "v2alpha2", "podgroups"};

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::vector<std::string> SplitFlags(const std::string& s) {
  std::vector<std::string> out;
  for (auto& f : StrSplit(s, ',')) {
    if (!f.empty()) out.push_back(f);
  }
  return out;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::llround(p * static_cast<double>(v.size() - 1)));
  return v[std::min(i, v.size() - 1)];
}

// --- Objects --------------------------------------------------------------------------------

struct Job {
  std::string ns, name, queue;
  std::vector<std::string> pods;
  std::vector<int> pod_index;  // into Run::pods
};

std::string QueueJson(const std::string& name, int gpu_quota) {
  return R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":")" + name +
         R"("},"spec":{"resources":{"gpu":{"quota":)" + std::to_string(gpu_quota) +
         R"(,"limit":-1,"overQuotaWeight":1},"cpu":{"quota":-1,"limit":-1,"overQuotaWeight":1},)"
         R"("memory":{"quota":-1,"limit":-1,"overQuotaWeight":1}}}})";
}

std::string PodGroupJson(const Job& j, int min_member) {
  return R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":")" +
         j.name + R"(","namespace":")" + j.ns + R"(","labels":{"kai.scheduler/queue":")" + j.queue +
         R"("}},"spec":{"minMember":)" + std::to_string(min_member) + R"(,"queue":")" + j.queue +
         R"("}})";
}

// What the pod grouper and a training operator would create: the PodGroup annotation, the
// queue label, one GPU, some CPU and memory.
std::string PodJson(const Job& j, const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         j.ns +
         R"(","labels":{"kai-bench":"workload",)"
         R"("kai.scheduler/queue":")" +
         j.queue + R"(","app":")" + j.name + R"("},"annotations":{"pod-group-name":")" + j.name +
         R"("}},"spec":{"schedulerName":"kai-scheduler","containers":[{"name":"main",)"
         R"("image":"nvcr.io/nvidia/pytorch:24.01-py3","command":["python","train.py"],)"
         R"("resources":{"requests":{"cpu":"2","memory":"8Gi"},"limits":{"nvidia.com/gpu":"1"}}}]}})";
}

std::string CeilingPodJson(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ceiling","labels":{"kai-bench":"ceiling"}},"spec":{"schedulerName":)"
         R"("bench-direct","containers":[{"name":"main","image":"busybox",)"
         R"("resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}})";
}

// --- Pod tracking through a watch -----------------------------------------------------------

struct PodTrack {
  std::atomic<int64_t> created_ns{-1};  // create answered (since run start)
  int64_t bound_ns = -1;                // spec.nodeName first seen by the watch
  std::string node;
  int rebinds = 0;  // spec.nodeName seen changing afterwards (must stay 0)
};

class PodWatcher {
 public:
  PodWatcher(kube::Client* client, std::unordered_map<std::string, int> index,
             std::vector<PodTrack>* pods, SteadyClock::time_point t0)
      : client_(client), index_(std::move(index)), pods_(pods), t0_(t0) {}
  ~PodWatcher() { Stop(); }

  // Lists (the initial state) then watches; returns once the list is processed.
  Status Start() {
    auto list = client_->List(kPods, "", {.label_selector = "kai-bench=workload"});
    if (!list.ok()) return list.status();
    for (const auto& item : list->items) Observe(item);
    rv_ = list->resource_version;
    thread_ = std::thread([this] { Loop(); });
    return Status::OK();
  }
  void Stop() {
    {
      std::lock_guard l(mu_);
      stopping_ = true;
      if (watch_) watch_->Stop();
    }
    if (thread_.joinable()) thread_.join();
  }
  // Waits until every tracked pod is bound, `deadline`, or `give_up()` says so.
  bool WaitAllBound(SteadyClock::time_point deadline, const std::function<bool()>& give_up) {
    std::unique_lock l(mu_);
    while (bound_ < static_cast<int>(index_.size())) {
      if (SteadyClock::now() >= deadline || give_up()) return false;
      cv_.wait_for(l, std::chrono::milliseconds(200));
    }
    return true;
  }
  int bound() const {
    std::lock_guard l(mu_);
    return bound_;
  }
  int relists() const { return relists_; }

 private:
  void Loop() {
    while (true) {
      kube::WatchOptions wo{.label_selector = "kai-bench=workload", .resource_version = rv_};
      wo.timeout_seconds = 3600;
      auto w = client_->Watch(kPods, "", wo);
      if (!w.ok()) {
        if (!Relist()) return;
        continue;
      }
      {
        std::lock_guard l(mu_);
        if (stopping_) return;
        watch_ = std::move(*w);
      }
      kube::WatchEvent ev;
      bool expired = false;
      while (watch_->Next(&ev)) {
        if (ev.type == kube::WatchEventType::kError) {
          expired = true;
          break;
        }
        if (!ev.resource_version.empty()) rv_ = ev.resource_version;
        if (ev.type == kube::WatchEventType::kAdded || ev.type == kube::WatchEventType::kModified) {
          Observe(ev.object);
        }
      }
      {
        std::lock_guard l(mu_);
        watch_.reset();
        if (stopping_) return;
      }
      if (expired && !Relist()) return;
    }
  }
  bool Relist() {
    ++relists_;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    {
      std::lock_guard l(mu_);
      if (stopping_) return false;
    }
    auto list = client_->List(kPods, "", {.label_selector = "kai-bench=workload"});
    if (!list.ok()) return true;
    for (const auto& item : list->items) Observe(item);
    rv_ = list->resource_version;
    return true;
  }
  void Observe(const std::string& json) {
    rapidjson::Document d;
    d.Parse(json.data(), json.size());
    if (d.HasParseError() || !d.IsObject()) return;
    auto str = [](const rapidjson::Value& o, const char* a, const char* b) -> std::string {
      auto m = o.FindMember(a);
      if (m == o.MemberEnd() || !m->value.IsObject()) return "";
      auto n = m->value.FindMember(b);
      return n != m->value.MemberEnd() && n->value.IsString() ? n->value.GetString() : "";
    };
    std::string key = str(d, "metadata", "namespace") + "/" + str(d, "metadata", "name");
    std::string node = str(d, "spec", "nodeName");
    if (node.empty()) return;
    auto it = index_.find(key);
    if (it == index_.end()) return;
    PodTrack& p = (*pods_)[static_cast<size_t>(it->second)];
    if (p.bound_ns < 0) {
      p.bound_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now() - t0_).count();
      p.node = node;
      std::lock_guard l(mu_);
      ++bound_;
      cv_.notify_all();
    } else if (p.node != node) {
      ++p.rebinds;
      p.node = node;
    }
  }

  kube::Client* client_;
  const std::unordered_map<std::string, int> index_;
  std::vector<PodTrack>* pods_;
  SteadyClock::time_point t0_;
  std::string rv_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<kube::Watcher> watch_;
  bool stopping_ = false;
  int bound_ = 0;
  std::atomic<int> relists_{0};
};

// --- localkube request counters -------------------------------------------------------------

// (userAgent, verb, resource) -> count, from GET /localkube/stats.
using RequestCounts = std::map<std::tuple<std::string, std::string, std::string>, int64_t>;

StatusOr<RequestCounts> ReadRequestCounts(const LocalKubeProcess& kube) {
  auto r = kube.Request("GET", "/localkube/stats");
  if (r.code != 200) return InternalError("GET /localkube/stats: " + std::to_string(r.code));
  rapidjson::Document d;
  d.Parse(r.body.data(), r.body.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("requests") || !d["requests"].IsArray()) {
    return InternalError("GET /localkube/stats: no request counters (localkube too old?)");
  }
  RequestCounts out;
  for (const auto& e : d["requests"].GetArray()) {
    out[{e["userAgent"].GetString(), e["verb"].GetString(), e["resource"].GetString()}] =
        e["count"].GetInt64();
  }
  return out;
}

bool IsWrite(const std::string& verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" ||
         verb == "deletecollection";
}

int64_t ComponentWrites(const RequestCounts& counts) {
  int64_t n = 0;
  for (const auto& [key, count] : counts) {
    const auto& [agent, verb, resource] = key;
    if ((agent == "kai-scheduler" || agent == "kai-binder") && IsWrite(verb)) n += count;
  }
  return n;
}

// The counters once kai-scheduler and kai-binder made no write for 3 s (at most `limit`).
StatusOr<RequestCounts> SettledRequestCounts(const LocalKubeProcess& kube,
                                             std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  auto counts = ReadRequestCounts(kube);
  int quiet = 0;
  while (counts.ok() && quiet < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto next = ReadRequestCounts(kube);
    if (!next.ok()) return next;
    quiet = ComponentWrites(*next) == ComponentWrites(*counts) ? quiet + 1 : 0;
    counts = std::move(next);
  }
  return counts;
}

// --- Cluster checks -------------------------------------------------------------------------

int64_t GpuOf(const rapidjson::Value& resources_map) {
  if (!resources_map.IsObject()) return 0;
  auto m = resources_map.FindMember("nvidia.com/gpu");
  if (m == resources_map.MemberEnd()) return 0;
  if (m->value.IsString()) return std::atoll(m->value.GetString());
  if (m->value.IsInt64()) return m->value.GetInt64();
  return 0;
}

// Nodes whose running or pending pods' GPUs exceed their allocatable GPUs.
StatusOr<int> OvercommittedNodes(kube::Client* client, std::string* detail) {
  auto nodes = kube::ListAll(*client, kNodes, "");
  if (!nodes.ok()) return nodes.status();
  std::map<std::string, int64_t> free;
  for (const auto& n : nodes->items) {
    rapidjson::Document d;
    d.Parse(n.data(), n.size());
    free[d["metadata"]["name"].GetString()] = GpuOf(d["status"]["allocatable"]);
  }
  auto pods = kube::ListAll(*client, kPods, "");
  if (!pods.ok()) return pods.status();
  for (const auto& p : pods->items) {
    rapidjson::Document d;
    d.Parse(p.data(), p.size());
    const auto& spec = d["spec"];
    if (!spec.HasMember("nodeName") || !spec["nodeName"].IsString()) continue;
    std::string phase = d.HasMember("status") && d["status"].HasMember("phase")
                            ? d["status"]["phase"].GetString()
                            : "";
    if (phase == "Succeeded" || phase == "Failed") continue;
    int64_t gpus = 0;
    for (const auto& c : spec["containers"].GetArray()) {
      if (!c.HasMember("resources")) continue;
      const auto& r = c["resources"];
      int64_t g = r.HasMember("limits") ? GpuOf(r["limits"]) : 0;
      if (g == 0 && r.HasMember("requests")) g = GpuOf(r["requests"]);
      gpus += g;
    }
    free[spec["nodeName"].GetString()] -= gpus;
  }
  int over = 0;
  for (const auto& [node, left] : free) {
    if (left < 0) {
      if (over++ < 5) *detail += node + " over by " + std::to_string(-left) + " GPUs; ";
    }
  }
  return over;
}

// --- Scheduler log: cycle durations ---------------------------------------------------------

struct CycleStats {
  int count = 0;
  double sum_ms = 0, max_ms = 0, p50_ms = 0;
};

// Cycles logged ("session <id> done in <ms> ms", --v=4) after byte `offset` of the log.
CycleStats ParseCycles(const std::string& log_path, std::streamoff offset) {
  std::ifstream in(log_path);
  in.seekg(offset);
  std::string line;
  std::vector<double> ms;
  while (std::getline(in, line)) {
    size_t at = line.find(" done in ");
    if (at == std::string::npos || line.find("session ") == std::string::npos) continue;
    ms.push_back(std::atof(line.c_str() + at + 9));
  }
  CycleStats s;
  s.count = static_cast<int>(ms.size());
  for (double m : ms) {
    s.sum_ms += m;
    s.max_ms = std::max(s.max_ms, m);
  }
  s.p50_ms = Percentile(ms, 0.5);
  return s;
}

std::streamoff FileSize(const std::string& path) {
  std::ifstream in(path, std::ios::ate | std::ios::binary);
  return in ? static_cast<std::streamoff>(in.tellg()) : 0;
}

// --- One run ---------------------------------------------------------------------------------

struct Limits {
  double qps;
  int burst;
};

struct RunResult {
  std::string json;
  bool ok = false;
};

double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Runs `fn(i)` for i in [0, n) on `threads` threads.
void Parallel(int n, int threads, const std::function<void(int)>& fn) {
  std::atomic<int> next{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < std::max(1, threads); ++t) {
    ts.emplace_back([&] {
      for (int i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& t : ts) t.join();
}

class Run {
 public:
  Run(std::string scenario, Limits limits, std::string log_dir)
      : scenario_(std::move(scenario)), limits_(limits), log_dir_(std::move(log_dir)) {}

  RunResult Execute();

 private:
  Status Setup();
  Status StartComponents();
  void BuildJobs();
  std::string Fail(const std::string& what) {
    return "{\"scenario\":" + api::JsonQuote(scenario_) + ",\"error\":" + api::JsonQuote(what) +
           "}";
  }

  std::string scenario_;
  Limits limits_;
  std::string log_dir_;
  std::string bin_;
  std::unique_ptr<LocalKubeProcess> kube_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<ChildProcess> scheduler_, binder_;
  int scheduler_port_ = 0, binder_health_port_ = 0;
  std::string scheduler_log_, binder_log_;
  std::vector<Job> jobs_;
  int gang_ = 1;
};

Status Run::Setup() {
  bin_ = FLAGS_bin_dir.empty() ? ExecutableDir() : FLAGS_bin_dir;
  std::vector<std::string> args = {"--nodes=" + std::to_string(FLAGS_nodes),
                                   "--gpus-per-node=" + std::to_string(FLAGS_gpus_per_node),
                                   // Room for every event of a run: no watcher relists.
                                   "--watch-history=200000"};
  for (auto& f : SplitFlags(FLAGS_localkube_flags)) args.push_back(f);
  auto k = LocalKubeProcess::Start({.binary = bin_ + "/localkube", .args = args});
  if (!k.ok()) return k.status();
  kube_ = std::move(*k);
  auto r = kube_->Kubectl({"apply", "-f", FLAGS_crds}, "", 120);
  if (!r.ok()) return InternalError("kubectl apply -f " + FLAGS_crds + ": " + r.err);
  kube::KubeconfigOptions ko;
  ko.path = kube_->kubeconfig_path();
  auto config = kube::LoadConfig(ko);
  if (!config.ok()) return config.status();
  config->qps = 0;  // the benchmark's own client is not throttled
  auto c = kube::RestClient::New(*config);
  if (!c.ok()) return c.status();
  client_ = std::move(*c);
  std::vector<std::string> namespaces = {"kai-scheduler", "kai-resource-reservation", "ceiling"};
  for (int q = 0; q < FLAGS_queues; ++q) namespaces.push_back("team-" + std::to_string(q));
  for (const auto& ns : namespaces) {
    auto created = client_->Create(
        kNamespaces, "",
        R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + "\"}}");
    if (!created.ok()) return created.status();
  }
  const int quota = FLAGS_nodes * FLAGS_gpus_per_node / std::max(1, FLAGS_queues);
  for (int q = 0; q < FLAGS_queues; ++q) {
    auto created = client_->Create(kQueues, "", QueueJson("q-" + std::to_string(q), quota));
    if (!created.ok()) return created.status();
  }
  // The simulated nodes are listed before the scheduler starts.
  auto nodes = client_->List(kNodes, "", {});
  if (!nodes.ok()) return nodes.status();
  if (static_cast<int>(nodes->items.size()) != FLAGS_nodes) {
    return InternalError("localkube has " + std::to_string(nodes->items.size()) + " nodes");
  }
  return Status::OK();
}

Status Run::StartComponents() {
  KAI_ASSIGN_OR_RETURN(scheduler_port_, PickFreePort());
  KAI_ASSIGN_OR_RETURN(binder_health_port_, PickFreePort());
  const std::string qps = "--qps=" + Num(limits_.qps);
  const std::string burst = "--burst=" + std::to_string(limits_.burst);
  std::vector<std::string> sched = {
      bin_ + "/kai-scheduler",
      "run",
      "--kubeconfig=" + kube_->kubeconfig_path(),
      "--listen-address=127.0.0.1:" + std::to_string(scheduler_port_),
      "--plugin-server-port=0",
      "--schedule-period=" + FLAGS_schedule_period,
      "--num-of-status-recording-workers=" + std::to_string(FLAGS_status_workers),
      "--v=" + std::to_string(FLAGS_scheduler_v),
      qps,
      burst};
  for (auto& f : SplitFlags(FLAGS_scheduler_flags)) sched.push_back(f);
  std::vector<std::string> binder = {
      bin_ + "/kai-binder",
      "--kubeconfig=" + kube_->kubeconfig_path(),
      "--metrics-bind-address=0",
      "--health-probe-bind-address=127.0.0.1:" + std::to_string(binder_health_port_),
      "--max-concurrent-reconciles=" + std::to_string(FLAGS_binder_workers),
      qps,
      burst};
  for (auto& f : SplitFlags(FLAGS_binder_flags)) binder.push_back(f);
  const std::string tag = scenario_ + "-" + Num(limits_.qps);
  scheduler_log_ = log_dir_ + "/scheduler-" + tag + ".log";
  binder_log_ = log_dir_ + "/binder-" + tag + ".log";
  KAI_ASSIGN_OR_RETURN(scheduler_, ChildProcess::Spawn(sched, scheduler_log_));
  KAI_ASSIGN_OR_RETURN(binder_, ChildProcess::Spawn(binder, binder_log_));
  const auto deadline = SteadyClock::now() + std::chrono::seconds(120);
  while (HttpGetStatus(scheduler_port_, "/readyz") != 200 ||
         HttpGetStatus(binder_health_port_, "/readyz") != 200) {
    if (!scheduler_->Alive()) return InternalError("kai-scheduler exited; see " + scheduler_log_);
    if (!binder_->Alive()) return InternalError("kai-binder exited; see " + binder_log_);
    if (SteadyClock::now() > deadline) return DeadlineExceededError("components not ready");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::OK();
}

void Run::BuildJobs() {
  gang_ = scenario_ == "gang" ? std::max(1, FLAGS_gang_size) : 1;
  const int n_jobs = (FLAGS_pods + gang_ - 1) / gang_;
  int pod = 0;
  for (int j = 0; j < n_jobs; ++j) {
    Job job;
    const int q = j % std::max(1, FLAGS_queues);
    job.ns = "team-" + std::to_string(q);
    job.queue = "q-" + std::to_string(q);
    job.name = (gang_ > 1 ? "gang-" : "job-") + std::to_string(j);
    for (int k = 0; k < gang_ && pod < FLAGS_pods; ++k, ++pod) {
      job.pods.push_back(job.name + "-" + std::to_string(k));
      job.pod_index.push_back(pod);
    }
    jobs_.push_back(std::move(job));
  }
}

RunResult Run::Execute() {
  RunResult result;
  if (Status s = Setup(); !s.ok()) {
    result.json = Fail("setup: " + std::string(s.message()));
    return result;
  }
  if (Status s = StartComponents(); !s.ok()) {
    result.json = Fail("start: " + std::string(s.message()));
    return result;
  }
  BuildJobs();
  std::vector<PodTrack> pods(static_cast<size_t>(FLAGS_pods));
  std::unordered_map<std::string, int> index;
  for (const Job& j : jobs_) {
    for (size_t k = 0; k < j.pods.size(); ++k) index[j.ns + "/" + j.pods[k]] = j.pod_index[k];
  }
  const auto t0 = SteadyClock::now();
  PodWatcher watcher(client_.get(), index, &pods, t0);
  if (Status s = watcher.Start(); !s.ok()) {
    result.json = Fail("watch: " + std::string(s.message()));
    return result;
  }

  // Baselines.
  auto sched0 = ReadProcessUsage(scheduler_->pid());
  auto binder0 = ReadProcessUsage(binder_->pid());
  auto kube0 = ReadProcessUsage(kube_->pid());
  const double bench0 = ProcessCpuSeconds();
  auto counts0 = ReadRequestCounts(*kube_);
  if (!counts0.ok()) {
    result.json = Fail(std::string(counts0.status().message()));
    return result;
  }
  const std::streamoff log0 = FileSize(scheduler_log_);

  // Create the jobs: the PodGroup first (as the pod grouper does), then its pods.
  std::atomic<int> create_errors{0};
  std::mutex err_mu;
  std::string first_error;
  const auto create_start = SteadyClock::now();
  std::thread creator([&] {
    Parallel(static_cast<int>(jobs_.size()), FLAGS_creators, [&](int i) {
      const Job& j = jobs_[static_cast<size_t>(i)];
      auto note = [&](const Status& s) {
        ++create_errors;
        std::lock_guard l(err_mu);
        if (first_error.empty()) first_error = std::string(s.message());
      };
      if (auto pg = client_->Create(kPodGroups, j.ns, PodGroupJson(j, gang_)); !pg.ok()) {
        note(pg.status());
      }
      for (size_t k = 0; k < j.pods.size(); ++k) {
        auto p = client_->Create(kPods, j.ns, PodJson(j, j.pods[k]));
        if (!p.ok()) {
          note(p.status());
          continue;
        }
        pods[static_cast<size_t>(j.pod_index[k])].created_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now() - t0).count();
      }
    });
  });
  creator.join();
  const auto create_end = SteadyClock::now();
  const bool all_bound =
      watcher.WaitAllBound(SteadyClock::now() + std::chrono::seconds(FLAGS_timeout_seconds),
                           [&] { return !scheduler_->Alive() || !binder_->Alive(); });
  const auto end = SteadyClock::now();
  watcher.Stop();

  // The components still write after the last pod is bound (events queued behind the client's
  // rate limiter, PodGroup status): count those too, until their writes stop for 3 s.
  const auto settle_start = SteadyClock::now();
  auto counts1 = SettledRequestCounts(*kube_, std::chrono::seconds(FLAGS_settle_seconds));
  const double settle_s = Seconds(SteadyClock::now() - settle_start);
  auto sched1 = ReadProcessUsage(scheduler_->pid());
  auto binder1 = ReadProcessUsage(binder_->pid());
  auto kube1 = ReadProcessUsage(kube_->pid());
  const double bench1 = ProcessCpuSeconds();
  std::string overcommit_detail;
  auto over = OvercommittedNodes(client_.get(), &overcommit_detail);
  const bool scheduler_alive = scheduler_->Alive(), binder_alive = binder_->Alive();
  scheduler_->Stop();
  binder_->Stop();
  // After the stop: glog buffers INFO lines for up to 30 s and flushes them at exit.
  CycleStats cycles = ParseCycles(scheduler_log_, log0);

  // Latencies and rate.
  std::vector<double> latency_ms;
  int bound = 0, rebinds = 0;
  int64_t last_bound_ns = 0;
  for (const PodTrack& p : pods) {
    rebinds += p.rebinds;
    if (p.bound_ns < 0) continue;
    ++bound;
    last_bound_ns = std::max(last_bound_ns, p.bound_ns);
    const int64_t created = p.created_ns.load();
    if (created >= 0) latency_ms.push_back(std::max<double>(0, (p.bound_ns - created) / 1e6));
  }
  const double first_create_s = Seconds(create_start - t0);
  const double span_s = last_bound_ns / 1e9 - first_create_s;
  const double pods_per_s = span_s > 0 ? bound / span_s : 0;

  // API requests of each component during the run, per bound pod.
  std::map<std::string, double> writes_by_agent;
  std::map<std::string, int64_t> write_detail, read_detail;
  if (counts1.ok()) {
    for (const auto& [key, n1] : *counts1) {
      int64_t n0 = counts0->count(key) > 0 ? counts0->at(key) : 0;
      int64_t n = n1 - n0;
      if (n <= 0) continue;
      const auto& [agent, verb, resource] = key;
      if (agent != "kai-scheduler" && agent != "kai-binder") continue;
      std::string k = StrCat(agent, " ", verb, " ", resource);
      if (IsWrite(verb)) {
        writes_by_agent[agent] += static_cast<double>(n);
        write_detail[k] = n;
      } else {
        read_detail[k] = n;
      }
    }
  }
  double writes_total = 0;
  for (const auto& [a, n] : writes_by_agent) writes_total += n;
  const double writes_per_pod = bound > 0 ? writes_total / bound : 0;

  // Ceiling: the same number of pods bound directly through pods/binding (components stopped).
  const int ceiling_pods = FLAGS_ceiling_pods >= 0 ? FLAGS_ceiling_pods : FLAGS_pods;
  std::atomic<int> ceiling_errors{0};
  Parallel(ceiling_pods, FLAGS_creators, [&](int i) {
    if (!client_->Create(kPods, "ceiling", CeilingPodJson("c-" + std::to_string(i))).ok()) {
      ++ceiling_errors;
    }
  });
  auto ckube0 = ReadProcessUsage(kube_->pid());
  const auto c0 = SteadyClock::now();
  Parallel(ceiling_pods, FLAGS_ceiling_connections, [&](int i) {
    if (!client_
             ->Bind("ceiling", "c-" + std::to_string(i),
                    "node-" + std::to_string(i % std::max(1, FLAGS_nodes)))
             .ok()) {
      ++ceiling_errors;
    }
  });
  const double ceiling_s = Seconds(SteadyClock::now() - c0);
  auto ckube1 = ReadProcessUsage(kube_->pid());
  const double ceiling_rate = ceiling_s > 0 ? ceiling_pods / ceiling_s : 0;

  // JSON.
  auto cpu = [](const StatusOr<ProcessUsage>& a, const StatusOr<ProcessUsage>& b) {
    return a.ok() && b.ok() ? b->cpu_seconds - a->cpu_seconds : -1;
  };
  auto rss = [](const StatusOr<ProcessUsage>& a) { return a.ok() ? a->peak_rss_mb : -1; };
  std::string j = "{\"scenario\":" + api::JsonQuote(scenario_) + ",\"qps\":" + Num(limits_.qps) +
                  ",\"burst\":" + std::to_string(limits_.burst) +
                  ",\"jobs\":" + std::to_string(jobs_.size()) +
                  ",\"gang_size\":" + std::to_string(gang_) +
                  ",\"pods\":" + std::to_string(FLAGS_pods) + ",\"bound\":" + std::to_string(bound);
  j += ",\"create_errors\":" + std::to_string(create_errors.load());
  if (!first_error.empty()) j += ",\"first_create_error\":" + api::JsonQuote(first_error);
  j += ",\"create_seconds\":" + Num(Seconds(create_end - create_start));
  j += ",\"wall_seconds\":" + Num(Seconds(end - create_start));
  j += ",\"settle_seconds\":" + Num(settle_s);
  j += ",\"seconds\":" + Num(span_s) + ",\"bound_pods_per_second\":" + Num(pods_per_s);
  j += ",\"latency_ms\":{\"p50\":" + Num(Percentile(latency_ms, 0.5)) +
       ",\"p99\":" + Num(Percentile(latency_ms, 0.99)) +
       ",\"max\":" + Num(Percentile(latency_ms, 1.0)) + "}";
  j += ",\"cpu_seconds\":{\"scheduler\":" + Num(cpu(sched0, sched1)) +
       ",\"binder\":" + Num(cpu(binder0, binder1)) + ",\"localkube\":" + Num(cpu(kube0, kube1)) +
       ",\"bench\":" + Num(bench1 - bench0) + "}";
  j += ",\"peak_rss_mb\":{\"scheduler\":" + Num(rss(sched1)) + ",\"binder\":" + Num(rss(binder1)) +
       ",\"localkube\":" + Num(rss(kube1)) + "}";
  j += ",\"scheduler_cycles\":{\"count\":" + std::to_string(cycles.count) +
       ",\"p50_ms\":" + Num(cycles.p50_ms) + ",\"max_ms\":" + Num(cycles.max_ms) +
       ",\"sum_ms\":" + Num(cycles.sum_ms) + "}";
  j += ",\"writes_per_pod\":" + Num(writes_per_pod);
  for (const auto& [agent, n] : writes_by_agent) {
    j += ",\"" + agent + "_writes_per_pod\":" + Num(bound > 0 ? n / bound : 0);
  }
  auto detail = [&](const std::map<std::string, int64_t>& m) {
    std::string s = "{";
    for (const auto& [k, n] : m) {
      if (s.size() > 1) s += ",";
      s += api::JsonQuote(k) + ":" + Num(bound > 0 ? static_cast<double>(n) / bound : 0);
    }
    return s + "}";
  };
  j += ",\"writes_per_pod_by_request\":" + detail(write_detail);
  j += ",\"reads_per_pod_by_request\":" + detail(read_detail);
  j += ",\"ceiling\":{\"pods\":" + std::to_string(ceiling_pods) +
       ",\"connections\":" + std::to_string(FLAGS_ceiling_connections) +
       ",\"errors\":" + std::to_string(ceiling_errors.load()) + ",\"seconds\":" + Num(ceiling_s) +
       ",\"binds_per_second\":" + Num(ceiling_rate) +
       ",\"localkube_cpu_seconds\":" + Num(cpu(ckube0, ckube1)) + "}";
  j += ",\"write_rate_vs_ceiling\":" +
       Num(ceiling_rate > 0 ? pods_per_s * writes_per_pod / ceiling_rate : 0);
  j += ",\"watch_relists\":" + std::to_string(watcher.relists());
  const int over_n = over.ok() ? *over : -1;
  j += ",\"overcommitted_nodes\":" + std::to_string(over_n);
  if (!overcommit_detail.empty()) j += ",\"overcommit\":" + api::JsonQuote(overcommit_detail);
  j += ",\"rebound_pods\":" + std::to_string(rebinds);
  j += ",\"all_bound\":" + std::string(all_bound ? "true" : "false");
  if (!scheduler_alive) j += ",\"scheduler_died\":true";
  if (!binder_alive) j += ",\"binder_died\":true";
  j += "}";
  result.json = j;
  result.ok =
      all_bound && bound == FLAGS_pods && over_n == 0 && rebinds == 0 && create_errors.load() == 0;
  return result;
}

int Main() {
  std::vector<Limits> limits;
  for (const auto& l : SplitFlags(FLAGS_limits)) {
    double qps = 0;
    int burst = 0;
    if (std::sscanf(l.c_str(), "%lf:%d", &qps, &burst) != 2) {
      std::cerr << "--limits: expected QPS:BURST pairs, got \"" << l << "\"\n";
      return 2;
    }
    limits.push_back({qps, burst});
  }
  std::vector<std::string> scenarios = SplitFlags(FLAGS_scenarios);
  for (const auto& s : scenarios) {
    if (s != "single" && s != "gang") {
      std::cerr << "--scenarios: unknown scenario \"" << s << "\" (single, gang)\n";
      return 2;
    }
  }
  if (!(FLAGS_scale > 0)) {
    std::cerr << "--scale must be positive\n";
    return 2;
  }
  if (FLAGS_scale != 1.0) {
    auto scaled = [](int v) { return std::max(1, static_cast<int>(std::lround(v * FLAGS_scale))); };
    FLAGS_nodes = scaled(FLAGS_nodes);
    FLAGS_pods = scaled(FLAGS_pods);
    if (FLAGS_ceiling_pods > 0) FLAGS_ceiling_pods = scaled(FLAGS_ceiling_pods);
  }
  if (FLAGS_pods <= 0 || FLAGS_nodes <= 0 || FLAGS_queues <= 0 || FLAGS_creators <= 0) {
    std::cerr << "--pods, --nodes, --queues and --creators must be positive\n";
    return 2;
  }
  std::string log_dir = FLAGS_process_logs;
  bool temp_logs = false;
  if (log_dir.empty()) {
    char tmpl[] = "/tmp/kai-online-bench-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      std::cerr << "mkdtemp failed\n";
      return 1;
    }
    log_dir = tmpl;
    temp_logs = true;
  } else if (::mkdir(log_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::cerr << "--process_logs: cannot create " << log_dir << ": " << std::strerror(errno)
              << "\n";
    return 2;
  }
  bool ok = true;
  std::string runs;
  for (const auto& s : scenarios) {
    for (const Limits& l : limits) {
      RunResult r = Run(s, l, log_dir).Execute();
      std::cerr << r.json << "\n";
      ok = ok && r.ok;
      runs += (runs.empty() ? "" : ",") + r.json;
    }
  }
  std::cout << "{\"benchmark\":\"online\",\"scale\":" << Num(FLAGS_scale)
            << ",\"nodes\":" << FLAGS_nodes << ",\"gpus_per_node\":" << FLAGS_gpus_per_node
            << ",\"queues\":" << FLAGS_queues
            << ",\"schedule_period\":" << api::JsonQuote(FLAGS_schedule_period)
            << ",\"binder_workers\":" << FLAGS_binder_workers << ",\"creators\":" << FLAGS_creators;
  if (!temp_logs || !ok) std::cout << ",\"log_dir\":" << api::JsonQuote(log_dir);
  std::cout << ",\"runs\":[" << runs << "]}" << std::endl;
  if (temp_logs && ok) {
    for (const auto& s : scenarios) {
      for (const Limits& l : limits) {
        for (const char* c : {"scheduler", "binder"}) {
          std::remove(StrCat(log_dir, "/", c, "-", s, "-", Num(l.qps), ".log").c_str());
        }
      }
    }
    ::rmdir(log_dir.c_str());
  }
  if (FLAGS_verify && !ok) {
    std::cerr << "kai_online_bench: verification failed (see the runs above; logs in " << log_dir
              << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace kai::bench

int main(int argc, char** argv) {
  gflags::SetUsageMessage("kai-scheduler + kai-binder on localkube: bound pods/s, latency, CPU");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  return kai::bench::Main();
}
