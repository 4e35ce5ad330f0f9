// snapshot.json / the /get-snapshot zip: building it from cached objects, reading it back, and
// replaying it with simulate to the same decisions as the object stream it came from.
#include "scheduler/app/debug_snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/fake_clock.h"
#include "kube/base/file.h"
#include "kube/base/time.h"
#include "kube/base/zip_reader.h"
#include "kube/base/zip_writer.h"
#include "scheduler/app/debug_snapshot_load.h"
#include "scheduler/app/simulate.h"

namespace kai::scheduler {
namespace {

std::shared_ptr<const std::string> Json(std::string s) {
  return std::make_shared<const std::string>(std::move(s));
}

RawObjectLists SmallCluster() {
  RawObjectLists raw;
  // As list/watch items arrive: no apiVersion/kind.
  raw["nodes"].push_back(
      Json(R"({"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"8","memory":"16Gi",)"
           R"("nvidia.com/gpu":"2","pods":"110"}}})"));
  raw["queues"].push_back(
      Json(R"({"metadata":{"name":"q"},"spec":{"resources":{"gpu":{"quota":-1,"limit":-1,)"
           R"("overQuotaWeight":1},"cpu":{"quota":-1,"limit":-1,"overQuotaWeight":1},)"
           R"("memory":{"quota":-1,"limit":-1,"overQuotaWeight":1}}}})"));
  raw["podgroups"].push_back(
      Json(R"({"metadata":{"name":"pg","namespace":"ns"},"spec":{"minMember":1,"queue":"q"}})"));
  raw["podgroups"].push_back(
      Json(R"({"metadata":{"name":"big","namespace":"ns"},"spec":{"minMember":1,"queue":"q"}})"));
  // One object that has them already: kept as is.
  raw["pods"].push_back(Json(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"ns",)"
      R"("annotations":{"pod-group-name":"pg"}},"spec":{"schedulerName":"kai-scheduler",)"
      R"("containers":[{"name":"m","resources":{"requests":{"nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}}}]},)"
      R"("status":{"phase":"Pending"}})"));
  raw["pods"].push_back(Json(
      R"({"metadata":{"name":"big","namespace":"ns","annotations":{"pod-group-name":"big"}},)"
      R"("spec":{"schedulerName":"kai-scheduler","containers":[{"name":"m","resources":)"
      R"({"requests":{"nvidia.com/gpu":"3"},"limits":{"nvidia.com/gpu":"3"}}}]},"status":{"phase":"Pending"}})"));
  return raw;
}

TEST(DebugSnapshot, FillsApiVersionAndKindAndWritesEveryList) {
  SchedulerParams params;
  params.partition_label_value = "pool-a";
  params.schedule_period = std::chrono::milliseconds(250);
  auto json = BuildSnapshotJson(DefaultSchedulerConfiguration(), params, SmallCluster());
  ASSERT_TRUE(json.ok()) << json.status();
  auto doc = api::ParseJsonDocument(*json);
  ASSERT_TRUE(doc.ok());
  const auto& raw = (*doc)["rawObjects"];
  for (const char* list :
       {"pods", "nodes", "queues", "podGroups", "bindRequests", "priorityClasses", "configMaps",
        "topologies", "persistentVolumeClaims", "csiStorageCapacities", "storageClasses",
        "csiDrivers", "resourceClaims", "resourceSlices", "deviceClasses"}) {
    ASSERT_TRUE(raw.HasMember(list)) << list;
    EXPECT_TRUE(raw[list].IsArray()) << list;
  }
  EXPECT_EQ(raw["bindRequests"].Size(), 0u);
  EXPECT_EQ(raw["resourceSlices"].Size(), 0u);
  ASSERT_EQ(raw["pods"].Size(), 2u);
  EXPECT_STREQ(raw["pods"][1]["apiVersion"].GetString(), "v1");
  EXPECT_STREQ(raw["pods"][1]["kind"].GetString(), "Pod");
  EXPECT_STREQ(raw["pods"][1]["metadata"]["name"].GetString(), "big");
  EXPECT_STREQ(raw["podGroups"][0]["apiVersion"].GetString(), "scheduling.run.ai/v2alpha2");
  EXPECT_STREQ(raw["podGroups"][0]["kind"].GetString(), "PodGroup");
  EXPECT_STREQ(raw["queues"][0]["apiVersion"].GetString(), "scheduling.run.ai/v2");
  EXPECT_STREQ(raw["nodes"][0]["kind"].GetString(), "Node");
  // Fields the C++ types do not model are kept as received.
  EXPECT_STREQ(raw["nodes"][0]["status"]["allocatable"]["pods"].GetString(), "110");

  const auto& p = (*doc)["schedulerParams"];
  EXPECT_STREQ(p["schedulerName"].GetString(), "kai-scheduler");
  EXPECT_STREQ(p["partitionParams"]["NodePoolLabelKey"].GetString(), "kai.scheduler/node-pool");
  EXPECT_STREQ(p["partitionParams"]["NodePoolLabelValue"].GetString(), "pool-a");
  EXPECT_EQ(p["schedulePeriod"].GetInt64(), 250000000);
  const auto& c = (*doc)["config"];
  EXPECT_STREQ(c["actions"].GetString(),
               "allocate, consolidation, reclaim, preempt, stalegangeviction");
  EXPECT_STREQ(c["tiers"][0]["plugins"][0]["name"].GetString(), "predicates");
}

TEST(DebugSnapshot, ConfigurationAndParamsRoundTrip) {
  SchedulerConfiguration conf;
  conf.actions = {"allocate", "reclaim"};
  conf.plugins = {{"predicates", {}}, {"nodeplacement", {{"gpu", "spread"}, {"cpu", "binpack"}}}};
  conf.queue_depth_per_action = {{"reclaim", 5}};
  SchedulerParams params;
  params.scheduler_name = "other";
  params.node_pool_label_key = "pool";
  params.partition_label_value = "a";
  params.restrict_node_scheduling = true;
  params.max_consolidation_preemptees = 3;
  params.use_scheduling_signatures = false;
  params.full_hierarchy_fairness = false;
  params.allow_consolidating_reclaim = false;
  params.default_staleness_grace_period = std::chrono::seconds(7);
  params.detailed_fit_errors = true;
  params.queue_label_key = "ql";
  auto zip = BuildSnapshotZip(conf, params, {});
  ASSERT_TRUE(zip.ok());
  auto entries = ReadZip(*zip);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].name, "snapshot.json");
  auto back = LoadSnapshotZip(*zip);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->conf && back->params);
  EXPECT_EQ(back->conf->actions, conf.actions);
  ASSERT_EQ(back->conf->plugins.size(), 2u);
  EXPECT_EQ(back->conf->plugins[1].name, "nodeplacement");
  EXPECT_EQ(back->conf->plugins[1].arguments, conf.plugins[1].arguments);
  EXPECT_EQ(back->conf->queue_depth_per_action, conf.queue_depth_per_action);
  const SchedulerParams& p = *back->params;
  EXPECT_EQ(p.scheduler_name, "other");
  EXPECT_EQ(p.node_pool_label_key, "pool");
  EXPECT_EQ(p.partition_label_value, "a");
  EXPECT_TRUE(p.restrict_node_scheduling);
  EXPECT_EQ(p.max_consolidation_preemptees, 3);
  EXPECT_FALSE(p.use_scheduling_signatures);
  EXPECT_FALSE(p.full_hierarchy_fairness);
  EXPECT_FALSE(p.allow_consolidating_reclaim);
  EXPECT_EQ(p.default_staleness_grace_period, std::chrono::seconds(7));
  EXPECT_TRUE(p.detailed_fit_errors);
  EXPECT_EQ(p.queue_label_key, "ql");
}

TEST(DebugSnapshotLoad, KaiStyleParamsAndNullLists) {
  // KAI omits false/zero members (omitempty) and marshals nil slices as null.
  auto s = LoadSnapshotJson(
      R"({"config":{"actions":"allocate","tiers":[{"plugins":[{"name":"predicates"}]}]},)"
      R"("schedulerParams":{"schedulerName":"kai-scheduler","schedulePeriod":"2s",)"
      R"("partitionParams":{"NodePoolLabelKey":"k","NodePoolLabelValue":""}},)"
      R"("rawObjects":{"pods":null,"nodes":[],"resourceSlices":[{"metadata":{"name":"x"}}]}})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->params->schedule_period, std::chrono::seconds(2));
  EXPECT_EQ(s->params->node_pool_label_key, "k");
  // Omitted booleans are false, as KAI marshalled them, not our defaults (true for these).
  EXPECT_FALSE(s->params->use_scheduling_signatures);
  EXPECT_FALSE(s->params->full_hierarchy_fairness);
  EXPECT_FALSE(s->params->allow_consolidating_reclaim);
  EXPECT_EQ(s->conf->actions, std::vector<std::string>{"allocate"});
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_NE(s->warnings[0].find("rawObjects.resourceSlices"), std::string::npos);
}

TEST(DebugSnapshotLoad, DetectsSnapshotJson) {
  EXPECT_TRUE(LooksLikeSnapshotJson(" {\"rawObjects\": {}}"));
  EXPECT_FALSE(
      LooksLikeSnapshotJson("{\"kind\":\"Pod\",\"metadata\":{\"annotations\":"
                            "{\"a\":\"\\\"rawObjects\\\"\"}}}"));
  EXPECT_FALSE(LooksLikeSnapshotJson("kind: Pod\n"));
}

SimulationResult Simulate(const std::string& text, std::optional<std::vector<std::string>> actions,
                          int cycles, WallTime now) {
  SimulateOptions o;
  o.snapshot_text = text;
  o.actions = std::move(actions);
  o.cycles = cycles;
  FakeClock clock;
  clock.SetNow(now);
  auto r = RunSimulation(o, &clock);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : SimulationResult{};
}

TEST(DebugSnapshotReplay, SmallClusterDecisions) {
  auto json = BuildSnapshotJson(DefaultSchedulerConfiguration(), {}, SmallCluster());
  ASSERT_TRUE(json.ok());
  auto zip = BuildSnapshotZip(DefaultSchedulerConfiguration(), {}, SmallCluster());
  ASSERT_TRUE(zip.ok());
  for (const std::string& text : {*json, *zip}) {
    SimulationResult r = Simulate(text, std::nullopt, 1, WallTime{});
    ASSERT_EQ(r.pods.size(), 2u);
    for (const auto& p : r.pods) {
      if (p.name == "p1") {
        EXPECT_EQ(p.after, "Bound");
        EXPECT_EQ(p.node, "n1");
      } else {
        EXPECT_EQ(p.after, "Pending");
        EXPECT_NE(p.unschedulable_message.find("GPU"), std::string::npos)
            << p.unschedulable_message;
      }
    }
  }
}

// Without the proportion plugin, simulate reports each queue's numbers as sums over its subtree
// (a department counts its teams' leaves; a job of an unknown queue counts nowhere).
TEST(DebugSnapshotReplay, QueueNumbersWithoutProportionSumEachSubtree) {
  RawObjectLists raw;
  raw["nodes"].push_back(
      Json(R"({"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"8","memory":"16Gi",)"
           R"("nvidia.com/gpu":"4","pods":"110"}}})"));
  auto queue = [](const std::string& name, const std::string& parent) {
    return Json(R"({"metadata":{"name":")" + name + R"("},"spec":{)" +
                (parent.empty() ? "" : R"("parentQueue":")" + parent + R"(",)") +
                R"("resources":{"gpu":{"quota":-1,"limit":-1,"overQuotaWeight":1}}}})");
  };
  raw["queues"] = {queue("dept", ""), queue("team", "dept"), queue("leaf", "team"),
                   queue("other", "")};
  auto pod = [](const std::string& name, const std::string& queue, int gpus, bool running) {
    return Json(R"({"metadata":{"name":")" + name +
                R"(","namespace":"ns","labels":{"kai.scheduler/queue":")" + queue +
                R"("}},"spec":{"schedulerName":"kai-scheduler",)" +
                (running ? R"("nodeName":"n1",)" : "") +
                R"("containers":[{"name":"m","resources":{"requests":{"nvidia.com/gpu":")" +
                std::to_string(gpus) + R"("},"limits":{"nvidia.com/gpu":")" + std::to_string(gpus) +
                R"("}}}]},"status":{"phase":")" + (running ? "Running" : "Pending") + R"("}})");
  };
  raw["pods"] = {pod("run", "leaf", 1, true), pod("wait", "leaf", 2, false),
                 pod("solo", "other", 1, false), pod("lost", "ghost", 1, false)};
  SchedulerConfiguration conf = DefaultSchedulerConfiguration();
  std::erase_if(conf.plugins, [](const auto& p) { return p.name == "proportion"; });
  auto json = BuildSnapshotJson(conf, {}, raw);
  ASSERT_TRUE(json.ok()) << json.status();
  SimulationResult r = Simulate(*json, std::vector<std::string>{}, 1, WallTime{});
  std::map<std::string, std::pair<double, double>> gpus;  // queue -> (allocated, requested)
  for (const auto& q : r.queues) gpus[q.name] = {q.allocated.at("gpu"), q.requested.at("gpu")};
  const std::pair<double, double> tree{1, 3};
  EXPECT_EQ(gpus["leaf"], tree);
  EXPECT_EQ(gpus["team"], tree);
  EXPECT_EQ(gpus["dept"], tree);
  EXPECT_EQ(gpus["other"], (std::pair<double, double>{0, 1}));
  EXPECT_EQ(gpus.size(), 4u);
}

// Every acceptance scenario, replayed from the snapshot.json the live scheduler would serve for
// it (objects without apiVersion/kind, the shard's configuration as "config"/"schedulerParams"),
// reports exactly what the scenario's object stream reports.
TEST(DebugSnapshotReplay, ScenariosGiveTheSameDecisionsAsTheirObjectStreams) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator("test/scenarios/cases", ec)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 20u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    auto text = ReadFile(file);
    ASSERT_TRUE(text.ok());
    auto yaml = api::YamlToJson(*text);
    ASSERT_TRUE(yaml.ok());
    auto doc = api::ParseJsonDocument(*yaml);
    ASSERT_TRUE(doc.ok());
    const auto& cluster = (*doc)["cluster"];
    std::vector<std::string> actions;
    for (const auto& a : (*doc)["actions"].GetArray()) actions.push_back(a.GetString());
    int cycles = doc->HasMember("cycles") ? (*doc)["cycles"].GetInt() : 1;
    WallTime now{};
    if (doc->HasMember("now")) now = *ParseRfc3339((*doc)["now"].GetString());

    // What Configure() does with the stream: the default configuration, then the shard.
    SchedulerConfiguration conf = DefaultSchedulerConfiguration();
    SchedulerParams params;
    auto loaded = LoadObjects("{\"kind\":\"List\",\"items\":" + api::ToJsonString(cluster) + "}");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const api::SchedulingShard* shard = nullptr;
    for (const auto& s : loaded->shards) {
      if (s->metadata.name == "default" || shard == nullptr) shard = s.get();
    }
    if (shard != nullptr) {
      ASSERT_TRUE(ConfigFromSchedulingShard(*shard, &conf, &params).ok());
    }

    RawObjectLists raw;
    for (const auto& item : cluster.GetArray()) {
      std::string kind = item["kind"].GetString();
      if (kind == "SchedulingShard") continue;
      const RawObjectKind* k = nullptr;
      for (const auto& rk : SnapshotRawObjectKinds()) {
        if (kind == rk.kind) k = &rk;
      }
      ASSERT_NE(k, nullptr) << kind;
      rapidjson::Document copy;
      copy.CopyFrom(item, copy.GetAllocator());
      copy.RemoveMember("apiVersion");
      copy.RemoveMember("kind");
      raw[k->resource].push_back(Json(api::ToJsonString(copy)));
    }
    auto snapshot = BuildSnapshotJson(conf, params, raw);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();

    std::string stream = "{\"kind\":\"List\",\"items\":" + api::ToJsonString(cluster) + "}";
    std::string want = FormatJson(Simulate(stream, actions, cycles, now));
    EXPECT_EQ(FormatJson(Simulate(*snapshot, actions, cycles, now)), want);
  }
}

}  // namespace
}  // namespace kai::scheduler
