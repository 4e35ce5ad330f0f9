// The benchmark's synthetic clusters: deterministic for a seed, shaped as the spec says, and
// consistent (running pods never over-commit a node).
#include "scheduler/bench/synthetic_cluster.h"

#include <gtest/gtest.h>

#include <map>

#include "api/well_known.h"
#include "scheduler/cache/object_loader.h"

namespace kai::scheduler::bench {
namespace {

TEST(SyntheticClusterTest, SameSeedSameCluster) {
  auto spec = SpecForSize("S");
  ASSERT_TRUE(spec.ok());
  SyntheticCluster a = GenerateSyntheticCluster(*spec);
  SyntheticCluster b = GenerateSyntheticCluster(*spec);
  ASSERT_EQ(a.objects.pods.size(), b.objects.pods.size());
  for (size_t i = 0; i < a.objects.pods.size(); ++i) {
    EXPECT_EQ(*a.objects.pods[i].pod, *b.objects.pods[i].pod);
    EXPECT_EQ(a.objects.pods[i].requests, b.objects.pods[i].requests);
  }
  spec->seed = 43;
  SyntheticCluster c = GenerateSyntheticCluster(*spec);
  bool differs = c.objects.pods.size() != a.objects.pods.size();
  for (size_t i = 0; !differs && i < a.objects.pods.size(); ++i) {
    differs = !(*a.objects.pods[i].pod == *c.objects.pods[i].pod);
  }
  EXPECT_TRUE(differs);
}

TEST(SyntheticClusterTest, ShapeFollowsTheSpec) {
  auto spec = SpecForSize("S");
  ASSERT_TRUE(spec.ok());
  SyntheticCluster c = GenerateSyntheticCluster(*spec);
  EXPECT_EQ(c.objects.nodes.size(), 100u);
  EXPECT_EQ(c.pending_pods, 500);
  EXPECT_EQ(c.running_pods + c.pending_pods, static_cast<int64_t>(c.objects.pods.size()));
  EXPECT_GT(c.running_pods, 0);
  // Two levels: departments without parents, teams under them.
  int parents = 0, leaves = 0;
  for (const auto& q : c.objects.queues) (q->spec.parent_queue.empty() ? parents : leaves)++;
  EXPECT_EQ(parents, 2);
  EXPECT_EQ(leaves, 10);
  // Gangs of 1-16 and some fractional pods.
  std::map<std::string, int> gang;
  int fractional = 0;
  for (const auto& lp : c.objects.pods) {
    const auto& ann = lp.pod->metadata.annotations;
    gang[lp.pod->metadata.namespace_ + "/" + ann.at(std::string(api::kPodGroupNameAnnotation))]++;
    fractional += ann.count(std::string(api::kGpuFractionAnnotation)) > 0;
  }
  for (const auto& [pg, n] : gang) {
    EXPECT_GE(n, 1);
    EXPECT_LE(n, 16);
  }
  EXPECT_GT(fractional, 0);
  EXPECT_FALSE(SpecForSize("XL").ok());
}

TEST(SyntheticClusterTest, RunningPodsNeverOvercommitANode) {
  auto spec = SpecForSize("S");
  ASSERT_TRUE(spec.ok());
  SyntheticCluster c = GenerateSyntheticCluster(*spec);
  struct Use {
    double cpu = 0, memory = 0, gpus = 0, pods = 0;
    std::map<std::string, double> groups;
  };
  std::map<std::string, Use> use;
  for (const auto& lp : c.objects.pods) {
    if (lp.pod->spec.node_name.empty()) continue;
    Use& u = use[lp.pod->spec.node_name];
    u.cpu += lp.requests.at("cpu");
    u.memory += lp.requests.at("memory");
    u.pods += 1;
    auto g = lp.requests.find(std::string(kGpuResource));
    if (g != lp.requests.end()) u.gpus += g->second;
    const auto& ann = lp.pod->metadata.annotations;
    if (auto f = ann.find(std::string(api::kGpuFractionAnnotation)); f != ann.end()) {
      u.groups[lp.pod->metadata.labels.at(std::string(api::kGpuGroupLabel))] +=
          std::stod(f->second);
    }
  }
  for (const auto& [node, u] : use) {
    EXPECT_LE(u.cpu, spec->node_cpu_milli) << node;
    EXPECT_LE(u.memory, static_cast<double>(spec->node_memory_bytes)) << node;
    EXPECT_LE(u.pods, spec->node_pods) << node;
    EXPECT_LE(u.gpus + static_cast<double>(u.groups.size()), spec->gpus_per_node) << node;
    for (const auto& [g, share] : u.groups) EXPECT_LE(share, 1.0 + 1e-9) << node << " " << g;
  }
}

TEST(SyntheticClusterTest, EventBatchesKeepTheModelInStep) {
  auto spec = SpecForSize("tiny");
  ASSERT_TRUE(spec.ok());
  SyntheticCluster c = GenerateSyntheticCluster(*spec);
  ClusterModel model;
  model.AddAll(c.objects);
  SeededRandom random(1);
  for (int i = 0; i < 5; ++i) {
    EventBatchStats st = ApplyEventBatch(&c, 20, &random, &model);
    EXPECT_EQ(st.pod_updates + st.pod_deletes + st.pod_adds + st.node_updates, 20);
    EXPECT_EQ(model.num_pods(), c.objects.pods.size());
    EXPECT_EQ(model.num_nodes(), c.objects.nodes.size());
  }
  std::vector<std::string> warnings;
  auto snap = model.Snapshot(SchedulerParams{}, &warnings);
  EXPECT_EQ(snap->tasks.size(), c.objects.pods.size());
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

// The written List is the generated cluster: every object comes back with the amounts the
// generator handed the model directly (allocatable, capacity, effective requests).
TEST(SyntheticClusterTest, ListJsonLoadsBackAsTheSameCluster) {
  auto spec = SpecForSize("S");
  ASSERT_TRUE(spec.ok());
  SyntheticCluster c = GenerateSyntheticCluster(*spec);
  auto loaded = LoadObjects(SyntheticClusterListJson(c));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->nodes.size(), c.objects.nodes.size());
  for (size_t i = 0; i < c.objects.nodes.size(); ++i) {
    EXPECT_EQ(loaded->nodes[i].node->metadata.name, c.objects.nodes[i].node->metadata.name);
    EXPECT_EQ(loaded->nodes[i].allocatable, c.objects.nodes[i].allocatable);
    EXPECT_EQ(loaded->nodes[i].capacity, c.objects.nodes[i].capacity);
  }
  ASSERT_EQ(loaded->pods.size(), c.objects.pods.size());
  for (size_t i = 0; i < c.objects.pods.size(); ++i) {
    const auto& want = c.objects.pods[i];
    const auto& got = loaded->pods[i];
    EXPECT_EQ(got.pod->metadata.name, want.pod->metadata.name);
    EXPECT_EQ(got.pod->metadata.annotations, want.pod->metadata.annotations);
    EXPECT_EQ(got.pod->spec.node_name, want.pod->spec.node_name);
    EXPECT_EQ(got.requests, want.requests) << want.pod->metadata.name;
  }
  EXPECT_EQ(loaded->podgroups.size(), c.objects.podgroups.size());
  EXPECT_EQ(loaded->queues.size(), c.objects.queues.size());
  EXPECT_EQ(loaded->priority_classes.size(), c.objects.priority_classes.size());
}

}  // namespace
}  // namespace kai::scheduler::bench
