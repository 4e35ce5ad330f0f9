#include "scheduler/app/cluster_response.h"

#include <gtest/gtest.h>

#include "api/well_known.h"
#include "kube/base/fake_clock.h"
#include "kube/base/random.h"
#include "scheduler/actions/actions.h"
#include "scheduler/cache/object_loader.h"
#include "scheduler/framework/session.h"
#include "scheduler/plugins/plugins.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;

// Runs one cycle of every default action over the model, records its decisions, applies them.
class Cycles {
 public:
  explicit Cycles(const TestCluster& cluster) {
    clock_.SetNow(testing::TestNow());
    auto objects = LoadObjects(cluster.ToJson());
    EXPECT_TRUE(objects.ok()) << objects.status();
    conf_ = DefaultSchedulerConfiguration();
    EXPECT_TRUE(ConfigFromSchedulingShard(*objects->shards.front(), &conf_, &params_).ok());
    model_.AddAll(*objects);
    RegisterDefaultPlugins(&plugins_);
    RegisterDefaultActions(&actions_);
  }

  // The decision of each pod (by name) in this cycle, and the pods' states after applying them.
  std::map<std::string, DecisionRecorder::Decision> Run() {
    DecisionRecorder decisions;
    Session ssn("cycle", model_.Snapshot(params_, nullptr), conf_, params_, &decisions, &clock_,
                &random_);
    ssn.Open(plugins_);
    for (const auto& name : conf_.actions) (*actions_.Find(name))()->Execute(&ssn);
    ssn.Close();
    ApplyDecisionsToModel(ssn.cluster(), decisions, clock_.Now(), &model_);
    std::map<std::string, DecisionRecorder::Decision> out;
    for (const auto& [key, d] : decisions.decisions()) out[key.substr(key.find('/') + 1)] = d;
    return out;
  }

  // Pod name -> "<phase> <node>" as the next snapshot sees it.
  std::map<std::string, std::string> Pods() {
    std::map<std::string, std::string> out;
    auto snap = model_.Snapshot(params_, nullptr);
    for (const auto& t : snap->tasks) {
      out[t->name()] = t->pod().status.phase + " " + t->pod().spec.node_name;
    }
    return out;
  }

  ClusterModel& model() { return model_; }
  // The PodGroup object the next snapshot gives the job (the same object while it is unchanged).
  const api::PodGroup* PodGroupOf(const std::string& job) {
    auto snap = model_.Snapshot(params_, nullptr);
    auto it = snap->jobs.find("default/" + job);
    return it == snap->jobs.end() ? nullptr : &it->second->podgroup();
  }

 private:
  FakeClock clock_;
  SeededRandom random_{1};
  SchedulerConfiguration conf_;
  SchedulerParams params_;
  PluginRegistry plugins_;
  ActionRegistry actions_;
  ClusterModel model_;
};

TEST(ClusterResponseTest, BoundPodsRunAndEvictedOnesComeBackPendingUntilTheClusterSettles) {
  TestCluster c;
  c.AddNode({.name = "n1", .gpus = 2});
  c.AddQueue({.name = "q1", .gpu_quota = 1}).AddQueue({.name = "q2", .gpu_quota = 1});
  auto hog = RunningJob("hog", "q2", 1, "n1", 2);  // q2 holds both GPUs, over its share
  hog.min_member = 1;                              // elastic: reclaim takes one pod
  c.AddJob(hog);
  c.AddJob(PendingJob("small", "q1", 1));
  Cycles cycles(c);

  // Cycle 1: q1 reclaims one GPU; the preemptor is pipelined onto it.
  auto first = cycles.Run();
  ASSERT_EQ(first.count("hog-1"), 1u);
  EXPECT_TRUE(first["hog-1"].evicted);
  EXPECT_EQ(first["small-0"].kind, "Pipelined");
  auto pods = cycles.Pods();
  EXPECT_EQ(pods["hog-0"], "Running n1");
  EXPECT_EQ(pods["hog-1"], "Pending ");  // re-created by its owner
  EXPECT_EQ(pods["small-0"], "Pending ");

  // Cycle 2: the released GPU goes to the preemptor; the victim stays pending (q2 is at its share).
  auto second = cycles.Run();
  EXPECT_EQ(second["small-0"].kind, "Bound");
  EXPECT_EQ(second["small-0"].node, "n1");
  EXPECT_EQ(second.count("hog-0"), 0u);
  pods = cycles.Pods();
  EXPECT_EQ(pods["small-0"], "Running n1");
  EXPECT_EQ(pods["hog-1"], "Pending ");

  // Cycle 3: nothing left to decide.
  EXPECT_TRUE(cycles.Run().empty());
}

// As the live scheduler patches only what changed: a PodGroup whose annotations the cycle did not
// change stays the model's object (the incremental snapshot does not rebuild its job).
TEST(ClusterResponseTest, OnlyPodGroupsWhoseAnnotationsChangeAreReplaced) {
  TestCluster c;
  c.AddNode({.name = "n1", .gpus = 4});
  c.AddQueue({.name = "q1"});
  auto running = RunningJob("running", "q1", 1, "n1");
  running.last_start_min = 30;
  c.AddJob(running);
  c.AddJob(PendingJob("starts", "q1", 1));
  Cycles cycles(c);
  const api::PodGroup* running_before = cycles.PodGroupOf("running");
  const api::PodGroup* starts_before = cycles.PodGroupOf("starts");
  ASSERT_NE(running_before, nullptr);
  ASSERT_NE(starts_before, nullptr);
  EXPECT_FALSE(
      starts_before->metadata.annotations.count(std::string(api::kLastStartTimestampAnnotation)));

  EXPECT_EQ(cycles.Run()["starts-0"].kind, "Bound");
  EXPECT_EQ(cycles.PodGroupOf("running"), running_before);
  const api::PodGroup* starts_after = cycles.PodGroupOf("starts");
  EXPECT_NE(starts_after, starts_before);
  EXPECT_EQ(
      starts_after->metadata.annotations.count(std::string(api::kLastStartTimestampAnnotation)),
      1u);
}

TEST(ClusterResponseTest, AMovedVictimReportsItsLastDecisionAndStaysEvicted) {
  DecisionRecorder r;
  ASSERT_TRUE(r.Evict(EvictDecision{.pod_key = "ns/a"}).ok());
  r.Pipelined(PipelineDecision{.pod_key = "ns/a", .node = "n2"});
  ASSERT_TRUE(r.Bind(BindDecision{.pod_key = "ns/b", .node = "n1"}).ok());
  ASSERT_EQ(r.decisions().size(), 2u);
  EXPECT_EQ(r.decisions().at("ns/a").kind, "Pipelined");
  EXPECT_EQ(r.decisions().at("ns/a").node, "n2");
  EXPECT_TRUE(r.decisions().at("ns/a").evicted);
  EXPECT_FALSE(r.decisions().at("ns/b").evicted);
}

}  // namespace
}  // namespace kai::scheduler
