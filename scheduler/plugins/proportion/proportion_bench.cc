// Benchmarks of the proportion library on a large synthetic cluster. Prints JSON.
//
//   kai_proportion_bench [--queues N] [--nodes N] [--seed S]
//
// Cluster: N queues in three levels (departments > projects > teams), totals summed from the
// nodes' allocatable (8 GPUs, 128 cores, 1 TB each), requests and allocations drawn at random.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scheduler/plugins/proportion/capacity_policy/capacity_policy.h"
#include "scheduler/plugins/proportion/queue_order/queue_order.h"
#include "scheduler/plugins/proportion/reclaimable/reclaimable.h"
#include "scheduler/plugins/proportion/resource_division/resource_division.h"

namespace kai::proportion {
namespace {

using BenchClock = std::chrono::steady_clock;

struct Result {
  std::string name;
  double ns_per_op_median;
  double ns_per_op_min;
  long long ops_per_rep;
};

// Runs `op` `ops` times per repetition; reports per-op times over the repetitions.
template <typename F>
Result Measure(const std::string& name, long long ops, int reps, F&& op) {
  std::vector<double> per_op;
  for (int r = 0; r < reps; ++r) {
    const auto start = BenchClock::now();
    for (long long i = 0; i < ops; ++i) op(i);
    const auto end = BenchClock::now();
    per_op.push_back(std::chrono::duration<double, std::nano>(end - start).count() / ops);
  }
  std::sort(per_op.begin(), per_op.end());
  return {name, per_op[per_op.size() / 2], per_op.front(), ops};
}

struct Cluster {
  std::vector<QueueAttributes> queues;
  std::vector<ResourceQuantities> nodes;
};

Cluster Generate(int num_queues, int num_nodes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Cluster c;
  for (int n = 0; n < num_nodes; ++n) c.nodes.push_back(ResourceQuantities::Of(128000, 1e12, 8));
  // ~5% departments, ~20% projects, the rest teams (leaves).
  const int departments = std::max(1, num_queues / 20);
  const int projects = std::max(1, num_queues / 5);
  const int teams = std::max(1, num_queues - departments - projects);
  auto make = [&](std::string uid, std::string parent, int level) {
    QueueAttributes q;
    q.uid = std::move(uid);
    q.name = q.uid;
    q.parent = std::move(parent);
    q.priority = uniform(0, 3) == 0 ? 200 : 100;
    q.creation_time = WallTime{} + std::chrono::minutes(uniform(0, 100000));
    const double scale = level == 0 ? 40 : (level == 1 ? 10 : 2);
    q.SetQuotaResources(ResourceName::kGpu, uniform(0, 4) * scale, kUnlimited, uniform(1, 4));
    q.SetQuotaResources(ResourceName::kCpu, uniform(0, 4) * scale * 16000, kUnlimited, 1);
    q.SetQuotaResources(ResourceName::kMemory, kUnlimited, kUnlimited, 1);
    return q;
  };
  for (int d = 0; d < departments; ++d) c.queues.push_back(make("d" + std::to_string(d), "", 0));
  for (int p = 0; p < projects; ++p) {
    c.queues.push_back(make("p" + std::to_string(p), "d" + std::to_string(p % departments), 1));
  }
  for (int t = 0; t < teams; ++t) {
    c.queues.push_back(make("t" + std::to_string(t), "p" + std::to_string(t % projects), 2));
  }
  return c;
}

int Main(int argc, char** argv) {
  int num_queues = 500;
  int num_nodes = 4000;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--queues")) num_queues = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--nodes")) num_nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  Cluster cluster = Generate(num_queues, num_nodes, seed);
  StatusOr<QueueTable> built = QueueTable::Build(cluster.queues);
  if (!built.ok()) {
    std::fprintf(stderr, "%s\n", built.status().ToString().c_str());
    return 1;
  }
  QueueTable table = std::move(built).value();

  // Per-leaf snapshot numbers: 140,000 pods over the leaves, mostly running.
  std::mt19937_64 rng(seed + 1);
  std::vector<QueueIndex> leaves;
  for (QueueIndex q = 0; q < table.size(); ++q) {
    if (table.IsLeaf(q)) leaves.push_back(q);
  }
  for (int pod = 0; pod < 140000; ++pod) {
    const QueueIndex leaf = leaves[rng() % leaves.size()];
    const ResourceQuantities req = ResourceQuantities::Of(4000, 32e9, (rng() % 4 == 0) ? 0 : 1);
    if (rng() % 10 < 8) {
      table.AddAllocatedTask(leaf, req, rng() % 5 == 0);
    } else {
      table.AddPendingTask(leaf, req);
    }
  }
  ResourceQuantities total;
  std::vector<Result> results;

  results.push_back(Measure("node_totals_4000", 50, 5, [&](long long) {
    total = ResourceQuantities{};
    for (const ResourceQuantities& n : cluster.nodes) total.Add(n);
  }));
  results.push_back(Measure("queue_table_build", 20, 5, [&](long long) {
    StatusOr<QueueTable> t = QueueTable::Build(cluster.queues);
    if (!t.ok()) std::abort();
  }));
  DivisionOptions options;
  results.push_back(
      Measure("set_fair_share", 50, 5, [&](long long) { SetFairShare(table, total, options); }));
  results.push_back(Measure("clone_queue_table", 200, 5, [&](long long) {
    QueueTable clone = table;  // NOLINT(performance-unnecessary-copy-initialization): measured
    if (clone.size() != table.size()) std::abort();
  }));

  // Queue order: the comparison a job-order heap performs.
  std::vector<ResourceQuantities> jobs(leaves.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i] = ResourceQuantities::Of(4000 * (1 + rng() % 4), 32e9, 1 + rng() % 8);
  }
  std::vector<std::pair<int, int>> pairs(4096);
  for (auto& p : pairs)
    p = {static_cast<int>(rng() % leaves.size()), static_cast<int>(rng() % leaves.size())};
  long long sink = 0;
  Result order = Measure("queue_order_compare", 2000000, 5, [&](long long i) {
    const auto [a, b] = pairs[i & 4095];
    sink +=
        CompareQueues({&table[leaves[a]], &jobs[a], {}}, {&table[leaves[b]], &jobs[b], {}}, total);
  });
  results.push_back(order);

  CapacityPolicy policy(&table);
  results.push_back(Measure("capacity_check", 1000000, 5, [&](long long i) {
    const int a = static_cast<int>(i % leaves.size());
    sink += policy.IsJobOverQueueCapacity(leaves[a], (i & 1) != 0, jobs[a]).schedulable;
  }));

  Reclaimable reclaimable(1.0);
  std::vector<VictimQueueChunks> victims(3);
  results.push_back(
      Measure("reclaim_scenario_validate_3_victim_queues", 200000, 5, [&](long long i) {
        const int a = static_cast<int>(i % leaves.size());
        ReclaimerInfo r;
        r.queue = leaves[a];
        r.required = jobs[a];
        r.involved = r.required.Positive();
        for (int v = 0; v < 3; ++v) {
          victims[v].queue = leaves[(a + 7 * (v + 1)) % leaves.size()];
          victims[v].chunks.assign(2, {ResourceQuantities::Of(4000, 32e9, 1), 0x7});
        }
        sink += reclaimable.IsReclaimable(table, r, victims);
      }));

  std::printf("{\n  \"benchmark\": \"kai_proportion_bench\",\n  \"queues\": %d,\n", table.size());
  std::printf("  \"leaf_queues\": %zu,\n  \"nodes\": %d,\n  \"pods\": 140000,\n", leaves.size(),
              num_nodes);
  std::printf("  \"results\": [\n");
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::printf(
        "    {\"name\": \"%s\", \"ns_per_op_median\": %.1f, \"ns_per_op_min\": %.1f, "
        "\"us_per_op_median\": %.3f, \"ops_per_second\": %.0f}%s\n",
        r.name.c_str(), r.ns_per_op_median, r.ns_per_op_min, r.ns_per_op_median / 1000,
        1e9 / r.ns_per_op_median, i + 1 < results.size() ? "," : "");
  }
  std::printf("  ],\n  \"checksum\": %lld\n}\n", sink);
  return 0;
}

}  // namespace
}  // namespace kai::proportion

int main(int argc, char** argv) { return kai::proportion::Main(argc, argv); }
