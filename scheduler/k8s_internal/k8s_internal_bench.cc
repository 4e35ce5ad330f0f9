// Micro-benchmark of the embedded kube-scheduler predicates on a synthetic large cluster:
// 4,000 nodes, 100,000 existing pods (10% with required anti-affinity, 5% with preferred
// affinity). Prints one JSON object. Usage: kai_k8s_internal_bench [nodes] [pods]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "scheduler/k8s_internal/inter_pod_affinity.h"
#include "scheduler/k8s_internal/node_affinity.h"
#include "scheduler/k8s_internal/node_conditions.h"
#include "scheduler/k8s_internal/node_ports.h"
#include "scheduler/k8s_internal/taint_toleration.h"
#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal {
namespace {

using Clock = std::chrono::steady_clock;
using testing::MakeNode;
using testing::MakePod;
using testing::NReq;
using testing::NTerm;
using testing::Req;
using testing::Sel;
using testing::Term;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Result {
  std::string name;
  double value;
  const char* unit;
};

int Run(int num_nodes, int num_pods) {
  std::vector<Result> results;
  auto add = [&](std::string name, double v, const char* unit) {
    results.push_back({std::move(name), v, unit});
  };

  // --- Cluster -------------------------------------------------------------------------
  std::vector<api::Node> nodes;
  nodes.reserve(num_nodes);
  for (int i = 0; i < num_nodes; ++i) {
    testing::NodeBuilder b = MakeNode("node-" + std::to_string(i));
    b.Label("kubernetes.io/hostname", "node-" + std::to_string(i))
        .Label("topology.kubernetes.io/zone", "zone-" + std::to_string(i % 16))
        .Label("rack", "rack-" + std::to_string(i % 200))
        .Label("nvidia.com/gpu.product", i % 3 == 0 ? "H100" : "A100")
        .Label("kai.scheduler/node-pool", "pool-" + std::to_string(i % 4))
        .Condition("Ready", "True")
        .Condition("MemoryPressure", "False");
    for (int l = 0; l < 20; ++l) b.Label("feature.node/f" + std::to_string(l), "true");
    if (i % 10 == 0) b.Taint("dedicated", "infra", "NoSchedule");
    if (i % 7 == 0) b.Taint("spot", "true", "PreferNoSchedule");
    nodes.push_back(b.Obj());
  }
  std::deque<api::Pod> pods;
  for (int i = 0; i < num_pods; ++i) {
    const std::string app = "app-" + std::to_string(i % 500);
    testing::PodBuilder b = MakePod();
    b.Name("pod-" + std::to_string(i))
        .Namespace("ns-" + std::to_string(i % 20))
        .Label("app", app)
        .Label("job", "job-" + std::to_string(i / 16))
        .Label("pod-template-hash", std::to_string(i % 1000));
    if (i % 10 == 0) b.PodAntiAffinityIn("app", "kubernetes.io/hostname", {app});
    if (i % 20 == 1) {
      b.PreferredAffinity(10, Term(Sel({Req("app", "In", {app})}), "topology.kubernetes.io/zone"));
    }
    if (i % 50 == 2) b.HostPorts({"TCP//9100"});
    pods.push_back(b.Obj());
  }

  PodAffinityIndex index;
  for (int n = 0; n < 20; ++n) index.SetNamespace("ns-" + std::to_string(n), {{"team", "t"}});
  auto t0 = Clock::now();
  for (int i = 0; i < num_nodes; ++i) index.SetNode(i, nodes[i]);
  for (int i = 0; i < num_pods; ++i) index.AddPod(&pods[i], i % num_nodes);
  auto t1 = Clock::now();
  add("index_build_ms", Ms(t0, t1), "ms");
  std::vector<HostPortUsage> ports(num_nodes);
  for (int i = 0; i < num_pods; ++i) ports[i % num_nodes].AddPod(pods[i].spec);

  // --- Incoming pods -------------------------------------------------------------------
  const api::Pod plain = MakePod().Name("plain").Namespace("ns-1").Label("app", "new").Obj();
  const api::Pod anti = MakePod()
                            .Name("anti")
                            .Namespace("ns-3")
                            .Label("app", "app-3")
                            .PodAntiAffinityIn("app", "kubernetes.io/hostname", {"app-3"})
                            .Obj();
  const api::Pod affinity = MakePod()
                                .Name("affinity")
                                .Namespace("ns-7")
                                .Label("app", "app-7")
                                .PodAffinityIn("app", "topology.kubernetes.io/zone", {"app-7"})
                                .Obj();
  const api::Pod preferred =
      MakePod()
          .Name("preferred")
          .Namespace("ns-9")
          .Label("app", "app-9")
          .PreferredAffinity(50, Term(Sel({Req("app", "In", {"app-9"})}), "rack"))
          .PreferredAntiAffinity(20,
                                 Term(Sel({Req("app", "In", {"app-9"})}), "kubernetes.io/hostname"))
          .Obj();
  api::Pod selective =
      MakePod()
          .Name("selective")
          .Namespace("ns-2")
          .NodeSelector({{"nvidia.com/gpu.product", "H100"}})
          .NodeAffinityRequired(
              {NTerm({NReq("rack", "NotIn", {"rack-1"}), NReq("feature.node/f3", "Exists")})})
          .NodeAffinityPreferred(5, NTerm({NReq("kai.scheduler/node-pool", "In", {"pool-1"})}))
          .Toleration("spot", "Exists", "", "PreferNoSchedule")
          .HostPorts({"TCP//9100"})
          .Obj();

  // PreFilter: first call builds the shared query; later calls (other pods of the same
  // workload) reuse it.
  auto time_prefilter = [&](const char* name, const api::Pod& pod) {
    auto a = Clock::now();
    InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(pod, index);
    auto b = Clock::now();
    add(std::string("ipa_prefilter_first_us_") + name, Ms(a, b) * 1000, "us");
    const int reps = 200;
    a = Clock::now();
    for (int r = 0; r < reps; ++r) {
      InterPodAffinityFilter g = InterPodAffinityFilter::PreFilter(pod, index);
      if (g.status().code() != f.status().code()) std::abort();
    }
    b = Clock::now();
    add(std::string("ipa_prefilter_cached_us_") + name, Ms(a, b) * 1000 / reps, "us");
    // Filter over every node.
    int fits = 0;
    const int rounds = 20;
    a = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int n = 0; n < num_nodes; ++n) fits += f.Filter(n).ok();
    }
    b = Clock::now();
    add(std::string("ipa_filter_ns_per_node_") + name, Ms(a, b) * 1e6 / (rounds * num_nodes), "ns");
    add(std::string("ipa_fitting_nodes_") + name, static_cast<double>(fits) / rounds, "nodes");
  };
  time_prefilter("plain", plain);
  time_prefilter("anti_affinity", anti);
  time_prefilter("affinity", affinity);

  {
    auto a = Clock::now();
    InterPodAffinityScorer s = InterPodAffinityScorer::PreScore(preferred, index);
    auto b = Clock::now();
    add("ipa_prescore_first_us", Ms(a, b) * 1000, "us");
    const int reps = 200;
    a = Clock::now();
    for (int r = 0; r < reps; ++r) InterPodAffinityScorer::PreScore(preferred, index);
    b = Clock::now();
    add("ipa_prescore_cached_us", Ms(a, b) * 1000 / reps, "us");
    int64_t sum = 0;
    const int rounds = 20;
    a = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int n = 0; n < num_nodes; ++n) sum += s.Score(n);
    }
    b = Clock::now();
    add("ipa_score_ns_per_node", Ms(a, b) * 1e6 / (rounds * num_nodes), "ns");
    if (sum == 0) std::abort();
    a = Clock::now();
    InterPodAffinityScorer p = InterPodAffinityScorer::PreScore(plain, index);
    b = Clock::now();
    add("ipa_prescore_plain_pod_us", Ms(a, b) * 1000, "us");
  }

  // Node-local predicates, per node.
  {
    const int rounds = 20;
    NodeAffinityFilter na = NodeAffinityFilter::PreFilter(selective);
    NodePortsFilter np = NodePortsFilter::PreFilter(selective);
    NodeAffinityScorer ns = NodeAffinityScorer::PreScore(selective);
    TaintTolerationScorer ts = TaintTolerationScorer::PreScore(selective);
    int fits = 0;
    auto a = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int n = 0; n < num_nodes; ++n) fits += na.Filter(nodes[n]).ok();
    }
    auto b = Clock::now();
    add("node_affinity_filter_ns_per_node", Ms(a, b) * 1e6 / (rounds * num_nodes), "ns");
    a = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int n = 0; n < num_nodes; ++n)
        fits += TaintTolerationFilter(selective.spec, nodes[n]).ok();
    }
    b = Clock::now();
    add("taint_toleration_filter_ns_per_node", Ms(a, b) * 1e6 / (rounds * num_nodes), "ns");
    a = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int n = 0; n < num_nodes; ++n) fits += np.Filter(ports[n]).ok();
    }
    b = Clock::now();
    add("node_ports_filter_ns_per_node", Ms(a, b) * 1e6 / (rounds * num_nodes), "ns");
    a = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int n = 0; n < num_nodes; ++n) {
        fits += NodeConditionsFit(nodes[n], selective.spec.tolerations);
      }
    }
    b = Clock::now();
    add("node_conditions_ns_per_node", Ms(a, b) * 1e6 / (rounds * num_nodes), "ns");
    int64_t sum = 0;
    a = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int n = 0; n < num_nodes; ++n) sum += ns.Score(nodes[n]) + ts.Score(nodes[n]);
    }
    b = Clock::now();
    add("node_affinity_plus_taint_score_ns_per_node", Ms(a, b) * 1e6 / (rounds * num_nodes), "ns");
    if (fits == 0 || sum == 0) std::abort();
  }

  // Incremental maintenance: place and remove pods as a session does.
  {
    std::deque<api::Pod> extra;
    for (int i = 0; i < 1000; ++i) {
      api::Pod p = pods[i];
      p.metadata.name += "-new";
      extra.push_back(std::move(p));
    }
    auto a = Clock::now();
    for (int i = 0; i < 1000; ++i) index.AddPod(&extra[i], (i * 7) % num_nodes);
    auto b = Clock::now();
    add("index_add_pod_us", Ms(a, b) * 1000 / 1000, "us");
    a = Clock::now();
    for (int i = 0; i < 1000; ++i) index.RemovePod(&extra[i]);
    b = Clock::now();
    add("index_remove_pod_us", Ms(a, b) * 1000 / 1000, "us");
  }
  add("anti_affinity_groups", index.num_anti_affinity_groups(), "groups");
  add("score_groups", index.num_score_groups(), "groups");
  add("cached_queries", index.num_queries(), "queries");

  std::printf("{\n  \"benchmark\": \"k8s_internal\",\n  \"nodes\": %d,\n  \"pods\": %d,\n",
              num_nodes, num_pods);
  std::printf("  \"results\": {\n");
  for (size_t i = 0; i < results.size(); ++i) {
    std::printf("    \"%s\": {\"value\": %.3f, \"unit\": \"%s\"}%s\n", results[i].name.c_str(),
                results[i].value, results[i].unit, i + 1 < results.size() ? "," : "");
  }
  std::printf("  }\n}\n");
  return 0;
}

}  // namespace
}  // namespace kai::k8s_internal

int main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 4000;
  const int pods = argc > 2 ? std::atoi(argv[2]) : 100000;
  if (nodes <= 0 || pods < 0) {
    std::fprintf(stderr, "usage: %s [nodes] [pods]\n", argv[0]);
    return 2;
  }
  return kai::k8s_internal::Run(nodes, pods);
}
