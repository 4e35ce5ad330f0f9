// localkube benchmark: writes/s (create, binding, status patch) over HTTP with 1, 4 and 16
// concurrent clients, list latency of all pods, watch fan-out, memory. Prints one JSON object.
//
//   build/bin/localkube_bench --nodes=5000 --pods=100000 --watchers=10
//
// --mode=cluster measures the simulated cluster instead: start time with --sim_nodes simulated
// nodes, how fast the simulated kubelet runs bound pods and finishes graceful deletions, and
// how fast the Deployment and Job controllers create and track their pods.
//
//   build/bin/localkube_bench --mode=cluster --sim_nodes=100 --sim_pods=5000
#include <curl/curl.h>
#include <gflags/gflags.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/strings.h"
#include "test/localkube/server.h"
#include "test/localkube/simulated_cluster.h"

DEFINE_int32(nodes, 5000, "nodes to create");
DEFINE_int32(pods, 100000, "pods to create in the 16-client phase (total pods stored)");
DEFINE_int32(small_phase_pods, 5000, "pods per phase for the 1- and 4-client phases");
DEFINE_int32(watchers, 10, "concurrent pod watchers during the fan-out phase");
DEFINE_bool(tls, false, "clients talk HTTPS instead of plain HTTP");
DEFINE_string(mode, "api", "api: the API server; cluster: simulated nodes, kubelet, controllers");
DEFINE_string(phases, "pods,deployment,job", "cluster mode: phases to run");
DEFINE_int32(sim_nodes, 100, "cluster mode: simulated nodes (8 GPUs each)");
DEFINE_int32(sim_pods, 5000,
             "cluster mode: pods bound to them (also deployment replicas and job "
             "completions)");

namespace {

using Clock = std::chrono::steady_clock;

size_t Sink(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}

struct Client {
  CURL* c = curl_easy_init();
  std::string base;
  std::string ca;
  std::string token;
  ~Client() { curl_easy_cleanup(c); }
  long Do(const char* method, const std::string& path, const std::string& body,
          const char* content_type, std::string* out = nullptr) {
    std::string buf;
    curl_easy_reset(c);
    const std::string url = base + path;
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_slist* h = nullptr;
    h = curl_slist_append(h, (std::string("Content-Type: ") + content_type).c_str());
    if (!token.empty()) h = curl_slist_append(h, ("Authorization: Bearer " + token).c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (!body.empty()) {
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    curl_blob blob{const_cast<char*>(ca.data()), ca.size(), CURL_BLOB_COPY};
    if (!ca.empty()) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out ? out : &buf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(h);
    return code;
  }
};

std::string PodJson(int i) {
  return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"pod-" +
         std::to_string(i) + "\",\"labels\":{\"app\":\"bench\",\"kai.scheduler/queue\":\"q" +
         std::to_string(i % 10) + "\"},\"annotations\":{\"pod-group-name\":\"pg-" +
         std::to_string(i / 8) +
         "\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\",\"containers\":[{\"name\":\"main\","
         "\"image\":\"nvcr.io/nvidia/pytorch:24.01\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":"
         "\"1\",\"cpu\":\"4\",\"memory\":\"16Gi\"}}}]}}";
}

std::string NodeJson(int i) {
  return "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-" +
         std::to_string(i) +
         "\",\"labels\":{\"nvidia.com/gpu.count\":\"8\",\"nvidia.com/gpu.memory\":\"81920\"}},"
         "\"status\":{\"capacity\":{\"cpu\":\"128\",\"memory\":\"1Ti\",\"nvidia.com/gpu\":\"8\","
         "\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"128\",\"memory\":\"1Ti\",\"nvidia.com/gpu\":"
         "\"8\",\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";
}

// Runs `total` operations split across `clients` threads; returns ops/s and error count.
template <typename Op>
std::pair<double, int> Run(kai::localkube::LocalKube& kube, int clients, int begin, int total,
                           Op op) {
  std::atomic<int> next{begin};
  std::atomic<int> errors{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  threads.reserve(std::max(clients, 0));
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&] {
      Client c;
      c.base = kube.url();
      c.ca = kube.ca_pem();
      c.token = kube.token();
      while (true) {
        const int i = next.fetch_add(1);
        if (i >= begin + total) break;
        if (!op(c, i)) ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  return {total / secs, errors.load()};
}

long RssKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// Polls until `done` (at most `limit`); returns false on timeout.
template <typename Pred>
bool WaitFor(Pred done, std::chrono::seconds limit = std::chrono::seconds(600)) {
  const auto end = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

int RunCluster() {
  using kai::localkube::GroupVersionResource;
  const GroupVersionResource pods{"", "v1", "pods"};
  kai::localkube::LocalKubeOptions o;
  o.listen = "127.0.0.1:0";
  o.tls = FLAGS_tls;
  o.store.watch_history = 200000;
  kai::localkube::NodePool pool;
  pool.count = FLAGS_sim_nodes;
  pool.gpus = 8;
  pool.max_pods = std::max(110, 2 * FLAGS_sim_pods / std::max(1, FLAGS_sim_nodes) + 10);
  o.simulation.node_pools.push_back(pool);
  kai::localkube::LocalKube kube(o);
  const auto t_start = Clock::now();
  if (auto s = kube.Start(); !s.ok()) {
    std::fprintf(stderr, "start: %s\n", s.ToString().c_str());
    return 1;
  }
  std::string json = "{\"mode\":\"cluster\"";
  auto add = [&](const std::string& k, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.1f", v);
    json += ",\"" + k + "\":" + buf;
    std::fprintf(stderr, "%s=%s\n", k.c_str(), buf);
  };
  add("start_ms", Ms(t_start));
  add("sim_nodes", FLAGS_sim_nodes);
  kai::localkube::Store* store = kube.store();
  auto count = [&](const std::string& field_selector, const std::string& label_selector) {
    auto l =
        store->List(pods, "", {.label_selector = label_selector, .field_selector = field_selector});
    return l.ok() ? static_cast<int>(l->items.size()) : -1;
  };
  const int n = FLAGS_sim_pods;
  add("pods", n);

  auto phase = [](const char* name) { return FLAGS_phases.find(name) != std::string::npos; };
  // Bare pods: create, bind (16 clients), the kubelet runs them.
  if (phase("pods")) {
    Run(kube, 16, 0, n, [](Client& c, int i) {
      const std::string p =
          "{\"metadata\":{\"name\":\"p-" + std::to_string(i) +
          "\",\"labels\":{\"set\":\"bare\"}},\"spec\":{\"terminationGracePeriodSeconds\":1,"
          "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"resources\":{\"requests\":{"
          "\"cpu\":\"100m\",\"memory\":\"100Mi\"}}}]}}";
      return c.Do("POST", "/api/v1/namespaces/default/pods", p, "application/json") == 201;
    });
    const auto t_bind = Clock::now();
    auto binds = Run(kube, 16, 0, n, [](Client& c, int i) {
      const std::string b =
          "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p-" +
          std::to_string(i) + "\"},\"target\":{\"kind\":\"Node\",\"name\":\"node-" +
          std::to_string(i % std::max(1, FLAGS_sim_nodes)) + "\"}}";
      return c.Do("POST", "/api/v1/namespaces/default/pods/p-" + std::to_string(i) + "/binding", b,
                  "application/json") == 201;
    });
    add("bindings_per_s_16", binds.first);
    const auto t_bound = Clock::now();
    WaitFor([&] { return count("status.phase=Running", "set=bare") >= n; });
    add("all_running_ms_after_first_binding", Ms(t_bind));
    add("all_running_ms_after_last_binding", Ms(t_bound));
    add("kubelet_pods_started_per_s", n / (Ms(t_bind) / 1000.0));

    // Graceful deletion (grace 1 s): the kubelet confirms each with a status and a delete.
    const auto t_del = Clock::now();
    auto dels = Run(kube, 16, 0, n, [](Client& c, int i) {
      return c.Do("DELETE", "/api/v1/namespaces/default/pods/p-" + std::to_string(i), "",
                  "application/json") == 200;
    });
    WaitFor([&] { return count("", "set=bare") == 0; });
    add("graceful_deletes_per_s_16", dels.first);
    add("all_deleted_ms", Ms(t_del));
  }

  // Deployment: the ReplicaSet controller creates n pods; binding them makes it available.
  if (phase("deployment")) {
    Client c;
    c.base = kube.url();
    c.ca = kube.ca_pem();
    c.token = kube.token();
    const auto t0 = Clock::now();
    c.Do("POST", "/apis/apps/v1/namespaces/default/deployments",
         "{\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":" + std::to_string(n) +
             ",\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{"
             "\"labels\":{\"app\":\"web\"}},\"spec\":{\"terminationGracePeriodSeconds\":1,"
             "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}",
         "application/json");
    WaitFor([&] { return count("", "app=web") >= n; });
    add("deployment_pods_created_ms", Ms(t0));
    auto l = store->List(pods, "default", {.label_selector = "app=web"});
    std::vector<std::string> names;
    for (const auto& p : l->items) names.push_back(p->name());
    const auto t1 = Clock::now();
    Run(kube, 16, 0, static_cast<int>(names.size()), [&](Client& cl, int i) {
      const std::string& name = names[static_cast<size_t>(i)];
      const std::string b =
          "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"" + name +
          "\"},\"target\":{\"kind\":\"Node\",\"name\":\"node-" +
          std::to_string(i % std::max(1, FLAGS_sim_nodes)) + "\"}}";
      return cl.Do("POST", "/api/v1/namespaces/default/pods/" + name + "/binding", b,
                   "application/json") == 201;
    });
    WaitFor([&] {
      auto d = store->Get({"apps", "v1", "deployments"}, "default", "web");
      if (!d.ok()) return false;
      const std::string want = "\"availableReplicas\":" + std::to_string(n);
      const size_t at = (*d)->json().find(want);
      return at != std::string::npos && !std::isdigit((*d)->json()[at + want.size()]);
    });
    add("deployment_available_ms_after_first_binding", Ms(t1));
    const auto t2 = Clock::now();
    c.Do("DELETE", "/apis/apps/v1/namespaces/default/deployments/web",
         "{\"propagationPolicy\":\"Background\",\"gracePeriodSeconds\":0}", "application/json");
    WaitFor([&] { return count("", "app=web") == 0; });
    add("deployment_deleted_ms", Ms(t2));
  }

  // Job: n completions, parallelism n, 1 s run duration.
  if (phase("job")) {
    Client c;
    c.base = kube.url();
    c.ca = kube.ca_pem();
    c.token = kube.token();
    const auto t0 = Clock::now();
    c.Do("POST", "/apis/batch/v1/namespaces/default/jobs",
         "{\"metadata\":{\"name\":\"train\"},\"spec\":{\"completions\":" + std::to_string(n) +
             ",\"parallelism\":" + std::to_string(n) +
             ",\"template\":{\"metadata\":{\"annotations\":{\"localkube.kai.scheduler/"
             "run-duration\":\"1s\"}},\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{"
             "\"name\":\"c\",\"image\":\"busybox\"}]}}}}",
         "application/json");
    WaitFor([&] { return count("", "job-name=train") >= n; });
    add("job_pods_created_ms", Ms(t0));
    auto l = store->List(pods, "default", {.label_selector = "job-name=train"});
    std::vector<std::string> names;
    for (const auto& p : l->items) names.push_back(p->name());
    const auto t1 = Clock::now();
    Run(kube, 16, 0, static_cast<int>(names.size()), [&](Client& cl, int i) {
      const std::string& name = names[static_cast<size_t>(i)];
      const std::string b =
          "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"" + name +
          "\"},\"target\":{\"kind\":\"Node\",\"name\":\"node-" +
          std::to_string(i % std::max(1, FLAGS_sim_nodes)) + "\"}}";
      return cl.Do("POST", "/api/v1/namespaces/default/pods/" + name + "/binding", b,
                   "application/json") == 201;
    });
    WaitFor([&] {
      return count("status.phase=Running", "job-name=train") >= n ||
             count("status.phase=Succeeded", "job-name=train") > 0;
    });
    add("job_first_running_all_ms", Ms(t1));
    WaitFor([&] { return count("status.phase=Succeeded", "job-name=train") >= n; });
    add("job_all_succeeded_ms", Ms(t1));
    WaitFor([&] {
      auto j = store->Get({"batch", "v1", "jobs"}, "default", "train");
      return j.ok() && (*j)->json().find("\"type\":\"Complete\"") != std::string::npos;
    });
    add("job_complete_ms_after_first_binding", Ms(t1));
  }
  add("rss_mb", RssKb() / 1024.0);
  json += "}";
  std::printf("%s\n", json.c_str());
  kube.Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  curl_global_init(CURL_GLOBAL_ALL);
  if (FLAGS_mode == "cluster") return RunCluster();
  if (FLAGS_mode != "api") {
    std::fprintf(stderr, "--mode must be api or cluster\n");
    return 2;
  }
  kai::localkube::LocalKubeOptions o;
  o.listen = "127.0.0.1:0";
  o.tls = FLAGS_tls;
  o.store.watch_history = 200000;
  kai::localkube::LocalKube kube(o);
  if (auto s = kube.Start(); !s.ok()) {
    std::fprintf(stderr, "start: %s\n", s.ToString().c_str());
    return 1;
  }
  std::string json = "{\"tls\":" + std::string(FLAGS_tls ? "true" : "false");
  auto add = [&](const std::string& k, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.1f", v);
    json += ",\"" + k + "\":" + buf;
  };

  // Nodes.
  auto nodes = Run(kube, 16, 0, FLAGS_nodes, [](Client& c, int i) {
    return c.Do("POST", "/api/v1/nodes", NodeJson(i), "application/json") == 201;
  });
  add("node_creates_per_s_16", nodes.first);

  // Pods: creates, bindings and status patches with 1, 4 and 16 clients.
  int next_pod = 0;
  for (int clients : {1, 4, 16}) {
    const int n = clients == 16 ? std::max(0, FLAGS_pods - 2 * FLAGS_small_phase_pods)
                                : FLAGS_small_phase_pods;
    const int begin = next_pod;
    auto creates = Run(kube, clients, begin, n, [](Client& c, int i) {
      return c.Do("POST", "/api/v1/namespaces/default/pods", PodJson(i), "application/json") == 201;
    });
    auto binds = Run(kube, clients, begin, n, [](Client& c, int i) {
      const std::string b =
          "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"pod-" +
          std::to_string(i) + "\"},\"target\":{\"kind\":\"Node\",\"name\":\"node-" +
          std::to_string(i % std::max(1, FLAGS_nodes)) + "\"}}";
      return c.Do("POST", "/api/v1/namespaces/default/pods/pod-" + std::to_string(i) + "/binding",
                  b, "application/json") == 201;
    });
    auto status = Run(kube, clients, begin, n, [](Client& c, int i) {
      const std::string p =
          "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":"
          "\"True\"}]}}";
      return c.Do("PATCH", "/api/v1/namespaces/default/pods/pod-" + std::to_string(i) + "/status",
                  p, "application/strategic-merge-patch+json") == 200;
    });
    const std::string sfx = "_" + std::to_string(clients);
    add("pod_creates_per_s" + sfx, creates.first);
    add("bindings_per_s" + sfx, binds.first);
    add("status_patches_per_s" + sfx, status.first);
    add("errors" + sfx, creates.second + binds.second + status.second);
    next_pod += n;
  }
  add("pods_stored", next_pod);

  // List of all pods (full JSON and one-page table as kubectl asks).
  {
    Client c;
    c.base = kube.url();
    c.ca = kube.ca_pem();
    c.token = kube.token();
    std::string body;
    const auto t0 = Clock::now();
    c.Do("GET", "/api/v1/pods", "", "application/json", &body);
    add("list_all_pods_ms", std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    add("list_all_pods_mb", body.size() / 1e6);
    body.clear();
    const auto t1 = Clock::now();
    c.Do("GET", "/api/v1/pods?labelSelector=kai.scheduler%2Fqueue%3Dq3", "", "application/json",
         &body);
    add("list_label_selected_pods_ms",
        std::chrono::duration<double, std::milli>(Clock::now() - t1).count());
    const auto t2 = Clock::now();
    c.Do("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-7", "", "application/json", &body);
    add("list_field_selected_pods_ms",
        std::chrono::duration<double, std::milli>(Clock::now() - t2).count());
  }

  // Watch fan-out: watchers stream pods while 4 writers patch status.
  {
    const uint64_t rv = kube.store()->CurrentResourceVersion();
    std::atomic<long> events{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> watchers;
    watchers.reserve(std::max(FLAGS_watchers, 0));
    const int writes = std::min(20000, std::max(1, next_pod));
    for (int w = 0; w < FLAGS_watchers; ++w) {
      watchers.emplace_back([&] {
        auto watch = kube.store()->StartWatch({"", "v1", "pods"}, "", [&] {
          kai::localkube::WatchOptions wo;
          wo.resource_version = std::to_string(rv);
          return wo;
        }());
        if (!watch.ok()) return;
        std::vector<kai::localkube::WatchEvent> ev;
        size_t bytes = 0;
        while (!stop) {
          ev.clear();
          if (!(*watch)->Next(std::chrono::steady_clock::now() + std::chrono::milliseconds(100),
                              &ev))
            break;
          for (const auto& e : ev)
            bytes += e.frame ? e.frame->size() : e.object ? e.object->json().size() : 0;
          events += static_cast<long>(ev.size());
          if (events >= static_cast<long>(writes) * FLAGS_watchers) break;
        }
        (void)bytes;
      });
    }
    const auto t0 = Clock::now();
    auto patches = Run(kube, 4, 0, writes, [](Client& c, int i) {
      const std::string p =
          "{\"metadata\":{\"annotations\":{\"bench\":\"" + std::to_string(i) + "\"}}}";
      return c.Do("PATCH", "/api/v1/namespaces/default/pods/pod-" + std::to_string(i), p,
                  "application/merge-patch+json") == 200;
    });
    for (int i = 0; i < 300 && events < static_cast<long>(writes) * FLAGS_watchers; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    stop = true;
    for (auto& t : watchers) t.join();
    add("fanout_watchers", FLAGS_watchers);
    add("fanout_writes_per_s_4", patches.first);
    add("fanout_events_delivered", static_cast<double>(events.load()));
    add("fanout_events_per_s", events.load() / secs);
  }
  add("store_bytes_mb", kube.store()->ApproximateBytes() / 1e6);
  add("rss_mb", RssKb() / 1024.0);
  json += "}";
  std::printf("%s\n", json.c_str());
  kube.Stop();
  return 0;
}
