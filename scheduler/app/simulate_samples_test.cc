// The example snapshots under config/samples/snapshots run through `simulate` and make the
// decisions their comments promise, so they never rot; and every output format keeps the
// contract of ../shared/scenarios/FORMAT.md.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/fake_clock.h"
#include "kube/base/time.h"
#include "scheduler/app/simulate.h"

namespace kai::scheduler {
namespace {

constexpr const char* kGpuCluster = "config/samples/snapshots/gpu-cluster.yaml";
constexpr const char* kReclaim = "config/samples/snapshots/reclaim.yaml";

SimulationResult RunSample(const std::string& path, int cycles = 1) {
  SimulateOptions opts;
  opts.snapshot_path = path;
  opts.cycles = cycles;
  FakeClock clock(*ParseRfc3339("2025-01-01T03:00:00Z"));
  StatusOr<SimulationResult> r = RunSimulation(opts, &clock);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : SimulationResult{};
}

std::map<std::string, SimPod> ByKey(const SimulationResult& r) {
  std::map<std::string, SimPod> out;
  for (const auto& p : r.pods) out[p.namespace_ + "/" + p.name] = p;
  return out;
}

const SimPodGroup* Group(const SimulationResult& r, const std::string& ns, const std::string& n) {
  for (const auto& g : r.podgroups) {
    if (g.namespace_ == ns && g.name == n) return &g;
  }
  return nullptr;
}

const SimQueue* Queue(const SimulationResult& r, const std::string& name) {
  for (const auto& q : r.queues) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

TEST(SampleSnapshotsTest, GpuClusterPlacesGangsFractionsAndExplainsTheGangThatDoesNotFit) {
  SimulationResult r = RunSample(kGpuCluster);
  auto pods = ByKey(r);
  ASSERT_EQ(pods.size(), 9u);
  // The 2 x 2-GPU gang is bound; bin-packing starts next to the running 4-GPU job.
  EXPECT_EQ(pods["vision/vision-train-0"].after, "Bound");
  EXPECT_EQ(pods["vision/vision-train-0"].node, "gpu-node-b");
  EXPECT_EQ(pods["vision/vision-train-1"].after, "Bound");
  EXPECT_EQ(pods["vision/vision-eval-0"].after, "Running");
  // Two half-GPU pods share one GPU.
  const SimPod& a = pods["serving/serving-a-0"];
  const SimPod& b = pods["serving/serving-b-0"];
  EXPECT_EQ(a.after, "Bound");
  EXPECT_EQ(b.after, "Bound");
  EXPECT_EQ(a.node, b.node);
  ASSERT_EQ(a.gpu_groups.size(), 1u);
  EXPECT_EQ(a.gpu_groups, b.gpu_groups);
  EXPECT_DOUBLE_EQ(a.gpu_fraction, 0.5);
  EXPECT_EQ(pods["nlp/nlp-etl-0"].after, "Bound");
  // The 3 x 8-GPU gang cannot fit; nothing of it starts and the reason says why.
  for (const char* p : {"nlp/nlp-pretrain-0", "nlp/nlp-pretrain-1", "nlp/nlp-pretrain-2"}) {
    EXPECT_EQ(pods[p].after, "Pending") << p;
  }
  const SimPodGroup* g = Group(r, "nlp", "nlp-pretrain");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->unschedulable_reason.find("while 3 are required for gang scheduling"),
            std::string::npos)
      << g->unschedulable_reason;
  EXPECT_NE(g->unschedulable_reason.find("didn't have enough resources: GPUs"), std::string::npos);
  ASSERT_FALSE(g->reasons.empty());
  EXPECT_EQ(g->reasons[0].first, "PodSchedulingErrors");
  // Hierarchical queues: the department sums its teams.
  const SimQueue* research = Queue(r, "research");
  const SimQueue* vision = Queue(r, "team-vision");
  ASSERT_NE(research, nullptr);
  ASSERT_NE(vision, nullptr);
  EXPECT_EQ(vision->parent, "research");
  EXPECT_DOUBLE_EQ(vision->allocated.at("gpu"), 8);
  EXPECT_DOUBLE_EQ(research->allocated.at("gpu"), 8);
  EXPECT_DOUBLE_EQ(research->requested.at("gpu"), 32);
}

TEST(SampleSnapshotsTest, ReclaimEvictsInTheFirstCycleAndBindsInTheSecond) {
  SimulationResult first = RunSample(kReclaim, 1);
  auto pods = ByKey(first);
  int evicted = 0, running = 0;
  for (int i = 0; i < 8; ++i) {
    const SimPod& p = pods["team-a/a-train-" + std::to_string(i) + "-0"];
    evicted += p.after == "Evicted";
    running += p.after == "Running";
  }
  EXPECT_EQ(evicted, 4);
  EXPECT_EQ(running, 4);
  for (int i = 0; i < 4; ++i) {
    const SimPod& p = pods["team-b/b-train-" + std::to_string(i)];
    EXPECT_EQ(p.after, "Pipelined") << p.name;
    EXPECT_EQ(p.node, "gpu-node");
  }
  // A queue's request is the one its fair share was divided by: what its pods asked for when the
  // session opened (team-a's 8 running GPUs, team-b's 4 pending), not what is left after the cycle.
  EXPECT_DOUBLE_EQ(Queue(first, "team-a")->requested.at("gpu"), 8);
  EXPECT_DOUBLE_EQ(Queue(first, "team-b")->requested.at("gpu"), 4);
  EXPECT_DOUBLE_EQ(Queue(first, "team-a")->fair_share.at("gpu"), 4);
  EXPECT_DOUBLE_EQ(Queue(first, "team-a")->allocated.at("gpu"), 4);

  SimulationResult second = RunSample(kReclaim, 2);
  EXPECT_EQ(second.cycle, 2);
  pods = ByKey(second);
  int pending = 0;
  running = 0;
  for (int i = 0; i < 8; ++i) {
    const SimPod& p = pods["team-a/a-train-" + std::to_string(i) + "-0"];
    pending += p.after == "Pending";
    running += p.after == "Running";
  }
  EXPECT_EQ(pending, 4);
  EXPECT_EQ(running, 4);
  for (int i = 0; i < 4; ++i) {
    const SimPod& p = pods["team-b/b-train-" + std::to_string(i)];
    EXPECT_EQ(p.after, "Bound") << p.name;
    EXPECT_EQ(p.node, "gpu-node");
  }
  EXPECT_DOUBLE_EQ(Queue(second, "team-b")->allocated.at("gpu"), 4);
  EXPECT_DOUBLE_EQ(Queue(second, "team-a")->allocated.at("gpu"), 4);
}

TEST(SimulateOutputTest, JsonKeepsTheScenarioContract) {
  SimulationResult r = RunSample(kGpuCluster);
  auto doc = api::ParseJsonDocument(FormatJson(r));
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_TRUE(doc->IsObject());
  for (const char* k : {"pods", "podGroups", "queues"}) {
    ASSERT_TRUE(doc->HasMember(k)) << k;
    ASSERT_TRUE((*doc)[k].IsArray()) << k;
  }
  ASSERT_EQ((*doc)["pods"].Size(), r.pods.size());
  const auto& pod = (*doc)["pods"][0];
  for (const char* k : {"namespace", "name", "podGroup", "queue", "before", "after", "node",
                        "gpuGroups", "gpuFraction"}) {
    EXPECT_TRUE(pod.HasMember(k)) << k;
  }
  const auto& group = (*doc)["podGroups"][0];
  for (const char* k : {"namespace", "name", "unschedulableReason"}) {
    EXPECT_TRUE(group.HasMember(k)) << k;
  }
  const auto& queue = (*doc)["queues"][0];
  for (const char* k : {"name", "parent", "fairShare", "allocated", "requested"}) {
    EXPECT_TRUE(queue.HasMember(k)) << k;
  }
  EXPECT_TRUE(queue["fairShare"].HasMember("gpu"));
}

TEST(SimulateOutputTest, YamlSaysTheSameAsJson) {
  SimulationResult r = RunSample(kGpuCluster);
  auto json = api::YamlToJson(FormatYaml(r));
  ASSERT_TRUE(json.ok()) << json.status();
  auto doc = api::ParseJsonDocument(*json);
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_EQ((*doc)["pods"].Size(), r.pods.size());
  for (rapidjson::SizeType i = 0; i < (*doc)["pods"].Size(); ++i) {
    const auto& p = (*doc)["pods"][i];
    EXPECT_EQ(std::string(p["name"].GetString()), r.pods[i].name);
    EXPECT_EQ(std::string(p["after"].GetString()), r.pods[i].after);
    EXPECT_EQ(std::string(p["node"].GetString()), r.pods[i].node);
  }
  ASSERT_EQ((*doc)["podGroups"].Size(), r.podgroups.size());
  for (rapidjson::SizeType i = 0; i < (*doc)["podGroups"].Size(); ++i) {
    EXPECT_EQ(std::string((*doc)["podGroups"][i]["unschedulableReason"].GetString()),
              r.podgroups[i].unschedulable_reason);
  }
  ASSERT_EQ((*doc)["queues"].Size(), r.queues.size());
}

// Messages carry arbitrary text (annotations, reasons): every character survives the YAML.
TEST(SimulateOutputTest, YamlKeepsEveryCharacterOfItsStrings) {
  const std::string odd = "a\"b\\c\td\re\nf\x01g: h # i \xc3\xa9 'j'";
  SimulationResult r;
  r.podgroups.push_back({});
  r.podgroups[0].name = "pg";
  r.podgroups[0].unschedulable_reason = odd;
  r.warnings = {odd, "- leading dash", ""};
  auto json = api::YamlToJson(FormatYaml(r));
  ASSERT_TRUE(json.ok()) << json.status() << "\n" << FormatYaml(r);
  auto doc = api::ParseJsonDocument(*json);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(std::string((*doc)["podGroups"][0]["unschedulableReason"].GetString()), odd);
  ASSERT_EQ((*doc)["warnings"].Size(), 3u);
  for (rapidjson::SizeType i = 0; i < 3; ++i) {
    EXPECT_EQ(std::string((*doc)["warnings"][i].GetString()), r.warnings[i]);
  }
}

TEST(SimulateOutputTest, TableShowsDecisionsQueueTreeAndReasons) {
  SimulationResult r = RunSample(kGpuCluster);
  std::string t = FormatTable(r);
  EXPECT_NE(t.find("Cycle 1 of 1: 5 bound, 0 pipelined, 0 evicted; 3 pods still pending"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("vision/vision-train-0"), std::string::npos);
  EXPECT_NE(t.find("Bound"), std::string::npos);
  EXPECT_NE(t.find("├─ team-nlp"), std::string::npos) << t;
  EXPECT_NE(t.find("└─ team-vision"), std::string::npos) << t;
  EXPECT_NE(t.find("└─ serving"), std::string::npos) << t;
  EXPECT_NE(t.find("nlp/nlp-pretrain (queue team-nlp, 3 pending pods)"), std::string::npos) << t;
  EXPECT_NE(t.find("PodSchedulingErrors: Resources were found for 0 pods"), std::string::npos);
  // Pods with a decision, and no empty cells: every row has the same columns.
  EXPECT_NE(t.find("0.5 of group"), std::string::npos);
}

}  // namespace
}  // namespace kai::scheduler
