// Hot-path costs of the work queue and the metrics it updates. Run with
// --benchmark_format=json.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kube/metrics/registry.h"
#include "kube/workqueue/rate_limiting_queue.h"

namespace kai::workqueue {
namespace {

std::vector<std::string> Keys(int n) {
  std::vector<std::string> keys;
  keys.reserve(std::max(n, 0));
  for (int i = 0; i < n; ++i)
    keys.push_back("namespace-" + std::to_string(i % 50) + "/pod-" + std::to_string(i));
  return keys;
}

// One Add + Get + Done cycle per iteration, 1000 distinct keys in flight.
void BM_AddGetDone(benchmark::State& state) {
  metrics::Registry registry;
  Queue q({.name = state.range(0) ? "bench" : "", .registry = &registry});
  const auto keys = Keys(1000);
  for (const auto& k : keys) q.Add(k);
  size_t i = 0;
  for (auto _ : state) {
    auto k = q.Get();
    q.Done(*k);
    q.Add(keys[i++ % keys.size()]);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AddGetDone)->Arg(0)->Arg(1)->ArgNames({"metrics"});

// Adding a key that is already dirty (the de-duplication path of a busy informer).
void BM_AddDuplicate(benchmark::State& state) {
  Queue q;
  q.Add("ns/pod");
  for (auto _ : state) q.Add("ns/pod");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AddDuplicate);

void BM_CounterInc(benchmark::State& state) {
  metrics::Registry registry;
  auto& c = registry.RegisterCounter("c_total", "c", {"controller"}).WithLabelValues({"x"});
  for (auto _ : state) c.Inc();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CounterInc)->Threads(1)->Threads(2);

void BM_HistogramObserve(benchmark::State& state) {
  metrics::Registry registry;
  auto& h = registry
                .RegisterHistogram("h_seconds", "h", {"controller"},
                                   metrics::ExponentialBuckets(1e-8, 10, 12))
                .WithLabelValues({"x"});
  double v = 1e-6;
  for (auto _ : state) {
    h.Observe(v);
    v = v < 100 ? v * 1.7 : 1e-6;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramObserve);

// A /metrics scrape of 20 controllers' worth of controller-runtime and work-queue series.
void BM_Expose(benchmark::State& state) {
  metrics::Registry registry;
  std::vector<std::unique_ptr<RateLimitingQueue>> queues;
  for (int i = 0; i < 20; ++i) {
    queues.push_back(std::make_unique<RateLimitingQueue>(
        QueueOptions{.name = "controller-" + std::to_string(i), .registry = &registry}));
    queues.back()->Add("a");
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string out = registry.Expose();
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Expose);

}  // namespace
}  // namespace kai::workqueue

BENCHMARK_MAIN();
