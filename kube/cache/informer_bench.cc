// Informer benchmark against a localkube process (run from the repository root):
//
//   build/bin/kai_kube_cache_bench --pods=100000 --events=20000 --writers=4
//
// 1. Fills localkube with --pods pods (HTTP creates from --writers threads).
// 2. localkube's own list throughput: one unpaged GET of every pod (transfer only), and the
//    client's paged List (limit 500, items cut out by the SAX decoder).
// 3. Informer ingest for each decoder mode (raw JSON, typed + JSON, typed only): time from
//    Start() until every initial add reached a handler, and heap bytes per cached pod
//    (glibc mallinfo2 in-use bytes before/after; this process holds only the client).
// 4. A stream of --events watch events (merge patches from --writers threads stamping the send
//    time): events/s and event-to-handler latency p50/p99.
// Prints one JSON object.
#include <gflags/gflags.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/pod.h"
#include "kube/cache/informer.h"
#include "kube/cache/typed.h"
#include "kube/rest/decode.h"
#include "kube/rest/rest_client.h"
#include "test/localkube/testing/localkube_process.h"

DEFINE_int32(pods, 100000, "pods to create and cache");
DEFINE_int32(events, 20000, "watch events in the event stream phase");
DEFINE_int32(writers, 4, "client threads creating and patching pods");
DEFINE_string(modes, "raw,typed,lean,lazy", "informer decoder modes to measure");
DEFINE_string(localkube_args, "--watch-history=50000", "extra localkube flags (space separated)");

namespace kai::kube {
namespace {

using Clock = std::chrono::steady_clock;

const GroupVersionResource kPods{"", "v1", "pods"};

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int64_t HeapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
}

// CPU seconds (user + system) of this process, and of another one by pid.
double SelfCpu() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

double ProcessCpu(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::vector<std::string> fields;
  std::string cur;
  for (char c : stat.substr(close + 2)) {
    if (c == ' ') {
      fields.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  // Fields after the command: state(0) ... utime(11) stime(12).
  if (fields.size() < 13) return 0;
  return (std::stod(fields[11]) + std::stod(fields[12])) /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

int64_t RssBytes() {
  std::ifstream f("/proc/self/statm");
  int64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * 4096;
}

// A pod like the ones KAI schedules (labels, GPU requests, tolerations, node selector).
std::string PodJson(int i) {
  const std::string n = std::to_string(i);
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"train-)" + n +
         R"(","labels":{"app":"train","kai.scheduler/queue":"team-)" + std::to_string(i % 16) +
         R"(","runai/pod-group":"pg-)" + std::to_string(i / 8) +
         R"("},"annotations":{"pod-group-name":"pg-)" + std::to_string(i / 8) +
         R"("}},"spec":{"schedulerName":"kai-scheduler","nodeName":"node-)" +
         std::to_string(i % 5000) +
         R"(","priorityClassName":"","containers":[{"name":"main","image":"nvcr.io/nvidia/pytorch:24.01-py3","command":["torchrun","train.py"],"env":[{"name":"NCCL_DEBUG","value":"INFO"}],"resources":{"requests":{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}},"volumeMounts":[{"mountPath":"/data","name":"data"}]}],"volumes":[{"name":"data","emptyDir":{}}],"nodeSelector":{"kai.scheduler/node-pool":"h100"},"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}})";
}

Decoder DecoderFor(const std::string& mode) {
  if (mode == "typed") return TypedDecoder<api::Pod>(true);
  if (mode == "lean") return TypedDecoder<api::Pod>(false);
  // kai-binder's pod cache: scanned fields and labels, typed view on first use (never here).
  if (mode == "lazy") {
    return LazyTypedDecoder<api::Pod>(
        {{"spec", "nodeName"}, {"spec", "schedulerName"}, {"status", "phase"}}, true);
  }
  return RawDecoder();
}

std::string Json(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

int Run() {
  std::vector<std::string> args;
  {
    std::string a;
    for (char c : FLAGS_localkube_args + " ") {
      if (c == ' ') {
        if (!a.empty()) args.push_back(a);
        a.clear();
      } else {
        a.push_back(c);
      }
    }
  }
  auto kube = localkube::testing::LocalKubeProcess::Start({.args = args});
  if (!kube.ok()) {
    std::fprintf(stderr, "localkube: %s\n", kube.status().ToString().c_str());
    return 1;
  }
  auto cfg = LoadKubeconfig({.path = (*kube)->kubeconfig_path()});
  if (!cfg.ok()) return 1;
  cfg->qps = 0;
  auto make_client = [&] { return std::move(RestClient::New(*cfg)).value(); };

  // 1. Fill the server.
  const auto fill_start = Clock::now();
  {
    std::vector<std::thread> threads;
    threads.reserve(std::max(FLAGS_writers, 0));
    std::atomic<int> next{0};
    for (int w = 0; w < FLAGS_writers; ++w) {
      threads.emplace_back([&] {
        auto c = make_client();
        for (int i = next++; i < FLAGS_pods; i = next++) {
          auto r = c->Create(kPods, "default", PodJson(i));
          if (!r.ok()) std::fprintf(stderr, "create: %s\n", r.status().ToString().c_str());
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  const double fill_s = Seconds(fill_start, Clock::now());

  // 2. What localkube serves.
  auto client = make_client();
  const pid_t server = (*kube)->pid();
  double server_cpu0 = ProcessCpu(server);
  auto t0 = Clock::now();
  auto raw = client->Raw("GET", "/api/v1/namespaces/default/pods");
  const double raw_s = Seconds(t0, Clock::now());
  const double raw_server_cpu = ProcessCpu(server) - server_cpu0;
  const size_t raw_bytes = raw.ok() ? raw->size() : 0;
  // The client's cost of cutting a list body into items (SAX pass + copies), alone.
  double split_cpu = 0;
  if (raw.ok()) {
    ObjectList split;
    const double c0 = SelfCpu();
    internal::DecodeList(*raw, &split).IgnoreError();
    split_cpu = SelfCpu() - c0;
  }
  raw = std::string();
  server_cpu0 = ProcessCpu(server);
  double self_cpu0 = SelfCpu();
  t0 = Clock::now();
  auto paged = ListAll(*client, kPods, "default", {}, 500);
  const double paged_s = Seconds(t0, Clock::now());
  const double paged_server_cpu = ProcessCpu(server) - server_cpu0;
  const double paged_client_cpu = SelfCpu() - self_cpu0;
  const size_t listed = paged.ok() ? paged->items.size() : 0;
  paged = ObjectList();
  malloc_trim(0);

  std::string out = "{\"pods\":" + std::to_string(FLAGS_pods) +
                    ",\"fill\":{\"seconds\":" + Json(fill_s) +
                    ",\"creates_per_s\":" + Json(FLAGS_pods / fill_s) +
                    "},\"server_list\":{\"unpaged_seconds\":" + Json(raw_s) +
                    ",\"unpaged_objects_per_s\":" + Json(listed / raw_s) +
                    ",\"unpaged_bytes\":" + std::to_string(raw_bytes) +
                    ",\"unpaged_server_cpu_us_per_object\":" + Json(raw_server_cpu * 1e6 / listed) +
                    ",\"client_split_cpu_us_per_object\":" + Json(split_cpu * 1e6 / listed) +
                    ",\"paged_decoded_seconds\":" + Json(paged_s) +
                    ",\"paged_decoded_objects_per_s\":" + Json(listed / paged_s) +
                    ",\"paged_server_cpu_us_per_object\":" + Json(paged_server_cpu * 1e6 / listed) +
                    ",\"paged_client_cpu_us_per_object\":" + Json(paged_client_cpu * 1e6 / listed) +
                    "},\"ingest\":[";

  // 3. Ingest per mode; 4. events on the typed informer.
  std::string events_json = "null";
  bool first = true;
  std::vector<std::string> modes;
  {
    std::string m;
    for (char c : FLAGS_modes + ",") {
      if (c == ',') {
        if (!m.empty()) modes.push_back(m);
        m.clear();
      } else {
        m.push_back(c);
      }
    }
  }
  for (const std::string& mode : modes) {
    malloc_trim(0);
    const int64_t heap_before = HeapInUse();
    const int64_t rss_before = RssBytes();
    InformerOptions opts;
    // Wraps the decoder (it runs on the reflector thread as each event arrives) to record when
    // stamped events reach the client, separating server + transport from informer queueing.
    std::mutex arrival_mu;
    std::vector<double> arrival_ms;
    Decoder inner = DecoderFor(mode);
    opts.reflector.decoder = [&, inner](std::string json) {
      const size_t at = json.find("\"bench/sent-ns\":\"");
      if (at != std::string::npos) {
        const int64_t sent = std::atoll(json.c_str() + at + 17);
        const double ms = (Clock::now().time_since_epoch().count() - sent) / 1e6;
        std::lock_guard<std::mutex> l(arrival_mu);
        arrival_ms.push_back(ms);
      }
      return inner(std::move(json));
    };
    opts.reflector.ns = "default";
    auto informer = std::make_unique<SharedInformer>(client.get(), kPods, std::move(opts));
    std::atomic<int> adds{0};
    std::atomic<int> updates{0};
    std::mutex lat_mu;
    std::vector<double> latencies_ms;
    latencies_ms.reserve(FLAGS_events);
    Clock::time_point last_event;
    informer->AddEventHandler({.on_add = [&](const ObjectPtr&, bool) { ++adds; },
                               .on_update =
                                   [&](const ObjectPtr&, const ObjectPtr& o) {
                                     const auto now = Clock::now();
                                     const api::Pod* pod = o->As<api::Pod>();
                                     if (pod == nullptr) return;
                                     auto it = pod->metadata.annotations.find("bench/sent-ns");
                                     if (it == pod->metadata.annotations.end()) return;
                                     const int64_t sent = std::stoll(it->second);
                                     std::lock_guard<std::mutex> l(lat_mu);
                                     latencies_ms.push_back(
                                         (now.time_since_epoch().count() - sent) / 1e6);
                                     last_event = now;
                                     ++updates;
                                   }});
    const double ingest_cpu0 = SelfCpu();
    const double ingest_server_cpu0 = ProcessCpu(server);
    const auto start = Clock::now();
    informer->Start();
    informer->WaitForCacheSync(std::chrono::minutes(30));
    while (adds.load() < static_cast<int>(listed)) std::this_thread::yield();
    const double ingest_s = Seconds(start, Clock::now());
    const double ingest_cpu = SelfCpu() - ingest_cpu0;
    const double ingest_server_cpu = ProcessCpu(server) - ingest_server_cpu0;
    const int64_t heap_after = HeapInUse();
    const int64_t rss_after = RssBytes();
    const double n = std::max<double>(1, informer->store().size());
    out += std::string(first ? "" : ",") + "{\"mode\":\"" + mode +
           "\",\"objects\":" + std::to_string(informer->store().size()) +
           ",\"seconds\":" + Json(ingest_s) + ",\"objects_per_s\":" + Json(n / ingest_s) +
           ",\"client_cpu_us_per_object\":" + Json(ingest_cpu * 1e6 / n) +
           ",\"server_cpu_us_per_object\":" + Json(ingest_server_cpu * 1e6 / n) +
           ",\"heap_bytes_per_pod\":" + Json((heap_after - heap_before) / n) +
           ",\"rss_bytes_per_pod\":" + Json((rss_after - rss_before) / n) + "}";
    first = false;

    if (mode == "typed" && FLAGS_events > 0) {
      const auto ev_start = Clock::now();
      std::vector<std::thread> threads;
      threads.reserve(std::max(FLAGS_writers, 0));
      std::atomic<int> next{0};
      std::mutex write_mu;
      std::vector<double> write_ms;
      for (int w = 0; w < FLAGS_writers; ++w) {
        threads.emplace_back([&] {
          auto c = make_client();
          for (int i = next++; i < FLAGS_events; i = next++) {
            const auto sent_at = Clock::now();
            const std::string sent = std::to_string(sent_at.time_since_epoch().count());
            auto r = c->Patch(
                kPods, "default", "train-" + std::to_string(i % FLAGS_pods), PatchType::kMerge,
                R"({"metadata":{"annotations":{"bench/sent-ns":")" + sent + R"("}}})");
            if (!r.ok()) std::fprintf(stderr, "patch: %s\n", r.status().ToString().c_str());
            std::lock_guard<std::mutex> wl(write_mu);
            write_ms.push_back(Seconds(sent_at, Clock::now()) * 1e3);
          }
        });
      }
      for (auto& t : threads) t.join();
      const auto writes_done = Clock::now();
      std::sort(write_ms.begin(), write_ms.end());
      const double write_p99 =
          write_ms.empty() ? 0
                           : write_ms[std::min(write_ms.size() - 1, write_ms.size() * 99 / 100)];
      const auto deadline = Clock::now() + std::chrono::minutes(5);
      while (updates.load() < FLAGS_events && Clock::now() < deadline) std::this_thread::yield();
      double arrival_p99 = 0;
      {
        std::lock_guard<std::mutex> al(arrival_mu);
        std::sort(arrival_ms.begin(), arrival_ms.end());
        if (!arrival_ms.empty()) {
          arrival_p99 = arrival_ms[std::min(arrival_ms.size() - 1, arrival_ms.size() * 99 / 100)];
        }
      }
      std::lock_guard<std::mutex> l(lat_mu);
      std::vector<double> sorted = latencies_ms;
      std::sort(sorted.begin(), sorted.end());
      auto pct = [&](double p) {
        return sorted.empty()
                   ? 0.0
                   : sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))];
      };
      events_json = "{\"events\":" + std::to_string(sorted.size()) +
                    ",\"writers\":" + std::to_string(FLAGS_writers) +
                    ",\"write_seconds\":" + Json(Seconds(ev_start, writes_done)) +
                    ",\"events_per_s\":" + Json(sorted.size() / Seconds(ev_start, last_event)) +
                    ",\"latency_p50_ms\":" + Json(pct(0.50)) +
                    ",\"latency_p99_ms\":" + Json(pct(0.99)) +
                    ",\"latency_max_ms\":" + Json(sorted.empty() ? 0 : sorted.back()) +
                    ",\"write_latency_p99_ms\":" + Json(write_p99) +
                    ",\"arrival_latency_p99_ms\":" + Json(arrival_p99) + "}";
    }
    informer->Stop();
    informer.reset();
  }
  out += "],\"events\":" + events_json + "}";
  std::printf("%s\n", out.c_str());
  return 0;
}

}  // namespace
}  // namespace kai::kube

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  return kai::kube::Run();
}
