// Unit tests of the Deployment, ReplicaSet and Job controllers with the simulated kubelet
// (in process, FakeClock, no network).
#include "test/localkube/workload_controllers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "kube/base/time.h"
#include "test/localkube/testing/sim_fixture.h"

namespace kai::localkube {
namespace {

using testing::kPodsGvr;
const GroupVersionResource kRsGvr{"apps", "v1", "replicasets"};
const GroupVersionResource kDeployGvr{"apps", "v1", "deployments"};
const GroupVersionResource kJobsGvr{"batch", "v1", "jobs"};

class ControllersTest : public testing::SimFixture {
 protected:
  void SetUp() override {
    SimulationOptions o;
    NodePool p;
    p.count = 2;
    p.max_pods = 100;
    o.node_pools.push_back(p);
    StartCluster(o);
  }
  std::vector<ObjectPtr> Pods(const std::string& selector = "") {
    auto l = store_->List(kPodsGvr, "default", {.label_selector = selector});
    EXPECT_TRUE(l.ok());
    return l.ok() ? l->items : std::vector<ObjectPtr>{};
  }
  // Binds every unbound pod (what a scheduler would do), alternating nodes.
  int BindPending() {
    int n = 0;
    for (const ObjectPtr& p : Pods()) {
      if (!p->Field("spec.nodeName").empty() || p->deleting()) continue;
      EXPECT_TRUE(
          store_->Bind("default", p->name(), PodBinding{.node = "node-" + std::to_string(n++ % 2)})
              .ok());
    }
    Settle();
    return n;
  }
  int CountPhase(const std::string& phase, const std::string& selector = "") {
    int n = 0;
    for (const ObjectPtr& p : Pods(selector)) n += p->Field("status.phase") == phase;
    return n;
  }
  std::string Field(const GroupVersionResource& gvr, const std::string& name,
                    std::initializer_list<std::string_view> path) {
    JsonDoc d = Doc(gvr, "default", name);
    if (!d.IsObject()) return "<gone>";
    const Json* v = Path(d, path);
    return v == nullptr ? "" : ScalarText(*v);
  }
  std::string Condition(const GroupVersionResource& gvr, const std::string& name,
                        const std::string& type) {
    JsonDoc d = Doc(gvr, "default", name);
    const Json* conds = Path(d, {"status", "conditions"});
    if (conds == nullptr) return "";
    for (const Json& c : conds->GetArray()) {
      if (GetStr(c, {"type"}) == type) return GetStr(c, {"status"}) + "/" + GetStr(c, {"reason"});
    }
    return "";
  }
  void Apply(const GroupVersionResource& gvr, const std::string& json) {
    auto r = store_->Create(gvr, "default", json);
    ASSERT_TRUE(r.ok()) << r.status() << json;
    Settle();
  }
  void Patch(const GroupVersionResource& gvr, const std::string& name, const std::string& patch) {
    auto r = store_->Patch(gvr, "default", name, PatchType::kMerge, patch);
    ASSERT_TRUE(r.ok()) << r.status();
    Settle();
  }
};

constexpr char kRs[] =
    R"({"metadata":{"name":"rs"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"r"}},"template":{"metadata":{"labels":{"app":"r"},"annotations":{"note":"x"}},"spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"busybox"}]}}}})";

TEST_F(ControllersTest, ReplicaSetKeepsReplicasAndStatus) {
  Apply(kRsGvr, kRs);
  std::vector<ObjectPtr> pods = Pods("app=r");
  ASSERT_EQ(pods.size(), 3u);
  ObjectPtr rs = Get(kRsGvr, "default", "rs");
  for (const ObjectPtr& p : pods) {
    EXPECT_EQ(p->name().rfind("rs-", 0), 0u);
    EXPECT_EQ(p->name().size(), 8u);  // generateName: 5 random characters
    ASSERT_EQ(p->owner_references().size(), 1u);
    const OwnerReference& ref = p->owner_references()[0];
    EXPECT_EQ(ref.kind, "ReplicaSet");
    EXPECT_EQ(ref.uid, rs->uid());
    EXPECT_TRUE(ref.controller);
    EXPECT_TRUE(ref.block_owner_deletion);
    JsonDoc d = Parse(p->json()).value();
    EXPECT_EQ(GetStr(d, {"spec", "schedulerName"}), "kai-scheduler");  // from the template
    EXPECT_EQ(GetStr(d, {"metadata", "annotations", "note"}), "x");
  }
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "replicas"}), "3");
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "readyReplicas"}), "");
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "observedGeneration"}), "1");
  // Bind one: it becomes Running and ready; scaling down deletes the unbound ones first.
  const std::string bound = pods[1]->name();
  ASSERT_TRUE(store_->Bind("default", bound, PodBinding{.node = "node-0"}).ok());
  Settle();
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "readyReplicas"}), "1");
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "availableReplicas"}), "1");
  Patch(kRsGvr, "rs", R"({"spec":{"replicas":1}})");
  pods = Pods("app=r");
  ASSERT_EQ(pods.size(), 1u);  // unbound pods are deleted at once
  EXPECT_EQ(pods[0]->name(), bound);
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "replicas"}), "1");
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "observedGeneration"}), "2");
  // A deleted pod is replaced; a finished one too (it no longer counts as active).
  ASSERT_TRUE(store_->Delete(kPodsGvr, "default", bound, {.grace_period_seconds = 0}).ok());
  Settle();
  pods = Pods("app=r");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_NE(pods[0]->name(), bound);
  // minReadySeconds: available only after the pod has been ready that long.
  Patch(kRsGvr, "rs", R"({"spec":{"minReadySeconds":10}})");
  BindPending();
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "readyReplicas"}), "1");
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "availableReplicas"}), "");
  Advance(std::chrono::seconds(10));
  EXPECT_EQ(Field(kRsGvr, "rs", {"status", "availableReplicas"}), "1");
  // Deleting the ReplicaSet deletes its pods (garbage collection through ownerReferences).
  ASSERT_TRUE(store_->Delete(kRsGvr, "default", "rs", {}).ok());
  Settle();
  Advance(std::chrono::seconds(30));
  EXPECT_TRUE(Pods("app=r").empty());
}

constexpr char kDeploy[] =
    R"({"metadata":{"name":"web"},"spec":{"replicas":4,"selector":{"matchLabels":{"app":"web"}},"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"terminationGracePeriodSeconds":0,"containers":[{"name":"c","image":"nginx:1"}]}}}})";

TEST_F(ControllersTest, DeploymentCreatesReplicaSetAndRollsOut) {
  Apply(kDeployGvr, kDeploy);
  auto rss = store_->List(kRsGvr, "default", {});
  ASSERT_EQ(rss->items.size(), 1u);
  ObjectPtr rs1 = rss->items[0];
  JsonDoc r1 = Parse(rs1->json()).value();
  const std::string hash = GetStr(r1, {"metadata", "labels", "pod-template-hash"});
  ASSERT_FALSE(hash.empty());
  EXPECT_EQ(rs1->name(), "web-" + hash);
  EXPECT_EQ(GetStr(r1, {"spec", "selector", "matchLabels", "pod-template-hash"}), hash);
  EXPECT_EQ(GetStr(r1, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "1");
  EXPECT_EQ(rs1->owner_references().at(0).kind, "Deployment");
  EXPECT_EQ(Pods("app=web").size(), 4u);
  for (const ObjectPtr& p : Pods("app=web")) {
    EXPECT_EQ(GetStr(Parse(p->json()).value(), {"metadata", "labels", "pod-template-hash"}), hash);
  }
  EXPECT_EQ(
      Field(kDeployGvr, "web", {"metadata", "annotations", "deployment.kubernetes.io/revision"}),
      "1");
  EXPECT_EQ(Condition(kDeployGvr, "web", "Available"), "False/MinimumReplicasUnavailable");
  EXPECT_EQ(BindPending(), 4);
  EXPECT_EQ(Field(kDeployGvr, "web", {"status", "availableReplicas"}), "4");
  EXPECT_EQ(Field(kDeployGvr, "web", {"status", "updatedReplicas"}), "4");
  EXPECT_EQ(Condition(kDeployGvr, "web", "Available"), "True/MinimumReplicasAvailable");
  EXPECT_EQ(Condition(kDeployGvr, "web", "Progressing"), "True/NewReplicaSetAvailable");

  // New template: a second ReplicaSet; maxSurge 1 / maxUnavailable 0 keeps 4 available.
  Patch(kDeployGvr, "web",
        R"({"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}})");
  rss = store_->List(kRsGvr, "default", {});
  ASSERT_EQ(rss->items.size(), 2u);
  EXPECT_EQ(Pods("app=web").size(), 5u);
  EXPECT_EQ(Condition(kDeployGvr, "web", "Progressing"), "True/ReplicaSetUpdated");
  for (int step = 0; step < 10 && BindPending() > 0; ++step) {
    Advance(std::chrono::seconds(1));
    // Never fewer than 4 available while rolling.
    EXPECT_GE(CountPhase("Running", "app=web"), 4);
  }
  EXPECT_EQ(Field(kDeployGvr, "web", {"status", "updatedReplicas"}), "4");
  EXPECT_EQ(Field(kDeployGvr, "web", {"status", "replicas"}), "4");
  EXPECT_EQ(Field(kRsGvr, rs1->name(), {"spec", "replicas"}), "0");
  EXPECT_EQ(Condition(kDeployGvr, "web", "Progressing"), "True/NewReplicaSetAvailable");
  EXPECT_EQ(
      Field(kDeployGvr, "web", {"metadata", "annotations", "deployment.kubernetes.io/revision"}),
      "2");
  for (const ObjectPtr& p : Pods("app=web")) {
    EXPECT_NE(p->json().find("nginx:2"), std::string::npos);
  }
  // Scale down and up.
  Patch(kDeployGvr, "web", R"({"spec":{"replicas":2}})");
  EXPECT_EQ(CountPhase("Running", "app=web"), 2);
  Patch(kDeployGvr, "web", R"({"spec":{"replicas":3}})");
  BindPending();
  EXPECT_EQ(Field(kDeployGvr, "web", {"status", "readyReplicas"}), "3");
  EXPECT_EQ(Field(kDeployGvr, "web", {"status", "observedGeneration"}), "4");
  // Deleting the deployment removes its ReplicaSets and pods.
  ASSERT_TRUE(store_->Delete(kDeployGvr, "default", "web", {}).ok());
  Settle();
  EXPECT_EQ(store_->List(kRsGvr, "default", {})->items.size(), 0u);
  EXPECT_TRUE(Pods("app=web").empty());
}

TEST_F(ControllersTest, RecreateStopsOldPodsFirst) {
  std::string d = kDeploy;
  d.replace(d.find(R"("strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}})"),
            std::string(R"("strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}})").size(),
            R"("strategy":{"type":"Recreate"})");
  Apply(kDeployGvr, d);
  BindPending();
  Patch(
      kDeployGvr, "web",
      R"({"spec":{"template":{"spec":{"terminationGracePeriodSeconds":5,"containers":[{"name":"c","image":"nginx:2"}]}}}})");
  // Old pods terminate (grace 0 from their template), then the new ReplicaSet scales up.
  Settle();
  EXPECT_EQ(Pods("app=web").size(), 4u);
  for (const ObjectPtr& p : Pods("app=web"))
    EXPECT_NE(p->json().find("nginx:2"), std::string::npos);
}

constexpr char kJob[] =
    R"({"metadata":{"name":"train"},"spec":{"completions":3,"parallelism":2,"template":{"metadata":{"annotations":{"localkube.kai.scheduler/run-duration":"10s"}},"spec":{"restartPolicy":"Never","schedulerName":"kai-scheduler","containers":[{"name":"c","image":"busybox"}]}}}})";

TEST_F(ControllersTest, JobRunsToCompletion) {
  // Complete is only ever written with the final counters (every pod counted).
  auto premature = std::make_shared<std::atomic<int>>(0);
  store_->AddObserver([premature](const GroupResource& gr, const ObjectPtr&, const ObjectPtr& now) {
    if (gr.resource != "jobs" || !now || now->name() != "train") return;
    const std::string& j = now->json();
    if (j.find(R"("type":"Complete")") != std::string::npos &&
        (j.find(R"("succeeded":3)") == std::string::npos ||
         j.find(R"("uncountedTerminatedPods":{})") == std::string::npos)) {
      ++*premature;
    }
  });
  Apply(kJobsGvr, kJob);
  ObjectPtr job = Get(kJobsGvr, "default", "train");
  std::vector<ObjectPtr> pods = Pods("job-name=train");
  ASSERT_EQ(pods.size(), 2u);
  for (const ObjectPtr& p : pods) {
    JsonDoc d = Parse(p->json()).value();
    EXPECT_EQ(p->name().rfind("train-", 0), 0u);
    EXPECT_EQ(GetStr(d, {"metadata", "labels", "batch.kubernetes.io/controller-uid"}), job->uid());
    EXPECT_EQ(GetStr(d, {"metadata", "labels", "batch.kubernetes.io/job-name"}), "train");
    EXPECT_EQ(GetStr(d, {"metadata", "labels", "controller-uid"}), job->uid());
    EXPECT_TRUE(p->HasFinalizer("batch.kubernetes.io/job-tracking"));
    EXPECT_EQ(p->owner_references().at(0).kind, "Job");
    EXPECT_TRUE(p->owner_references().at(0).controller);
    EXPECT_EQ(GetStr(d, {"spec", "schedulerName"}), "kai-scheduler");
  }
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "active"}), "2");
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "startTime"}), FormatRfc3339(clock_.Now()));
  BindPending();
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "ready"}), "2");
  Advance(std::chrono::seconds(10));
  // Two succeeded (counted, finalizers removed), the third runs.
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "succeeded"}), "2");
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "active"}), "1");
  for (const ObjectPtr& p : Pods("job-name=train")) {
    if (p->Field("status.phase") == "Succeeded") {
      EXPECT_FALSE(p->HasFinalizer("batch.kubernetes.io/job-tracking"));
    }
  }
  BindPending();
  Advance(std::chrono::seconds(10));
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "succeeded"}), "3");
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "active"}), "");
  EXPECT_EQ(Condition(kJobsGvr, "train", "Complete"), "True/CompletionsReached");
  EXPECT_EQ(Field(kJobsGvr, "train", {"status", "completionTime"}), FormatRfc3339(clock_.Now()));
  EXPECT_EQ(Condition(kJobsGvr, "train", "SuccessCriteriaMet"), "True/CompletionsReached");
  EXPECT_EQ(Pods("job-name=train").size(), 3u);
  EXPECT_EQ(CountPhase("Succeeded", "job-name=train"), 3);
  EXPECT_EQ(premature->load(), 0);
}

// More pods finish at once than one sync records (500): the rest are counted for every
// decision meanwhile, so none is replaced or deleted, and Complete comes with the final counts.
TEST_F(ControllersTest, LargeJobCountsEveryPodOnce) {
  SimulationOptions o;
  NodePool p;
  p.count = 6;
  p.max_pods = 200;
  o.node_pools.push_back(p);
  StopAll();
  job_pod_batch_period_ = std::chrono::seconds(5);  // pods finish together between syncs
  StartCluster(o);
  auto created = std::make_shared<std::atomic<int>>(0);
  store_->AddObserver([created](const GroupResource& gr, const ObjectPtr& old, const ObjectPtr&) {
    if (gr.resource == "pods" && !old) ++*created;
  });
  Apply(
      kJobsGvr,
      R"({"metadata":{"name":"big"},"spec":{"completions":1100,"parallelism":1100,"template":{"metadata":{"annotations":{"localkube.kai.scheduler/run-duration":"10s"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})");
  Advance(std::chrono::seconds(10));  // 500 pods per sync
  ASSERT_EQ(Pods("job-name=big").size(), 1100u);
  int bound = 0;
  for (const ObjectPtr& pod : Pods("job-name=big")) {
    ASSERT_TRUE(store_
                    ->Bind("default", pod->name(),
                           PodBinding{.node = "node-" + std::to_string(bound++ % 6)})
                    .ok());
  }
  Settle();
  EXPECT_EQ(CountPhase("Running", "job-name=big"), 1100);
  Advance(std::chrono::seconds(10));
  EXPECT_EQ(CountPhase("Succeeded", "job-name=big"), 1100);
  Advance(std::chrono::seconds(15));
  EXPECT_EQ(Field(kJobsGvr, "big", {"status", "succeeded"}), "1100");
  EXPECT_EQ(Field(kJobsGvr, "big", {"status", "failed"}), "");  // 0 is omitted
  EXPECT_EQ(Condition(kJobsGvr, "big", "Complete"), "True/CompletionsReached");
  EXPECT_EQ(created->load(), 1100);
}

TEST_F(ControllersTest, JobBackoffLimitAndDeletedPodsCountAsFailed) {
  Apply(
      kJobsGvr,
      R"({"metadata":{"name":"flaky"},"spec":{"backoffLimit":1,"template":{"metadata":{"annotations":{"localkube.kai.scheduler/run-duration":"1s","localkube.kai.scheduler/exit-code":"2"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})");
  BindPending();
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Field(kJobsGvr, "flaky", {"status", "failed"}), "1");
  // The replacement waits for the 10 s back-off.
  EXPECT_EQ(Pods("job-name=flaky").size(), 1u);
  Advance(std::chrono::seconds(9));
  EXPECT_EQ(Pods("job-name=flaky").size(), 1u);
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Pods("job-name=flaky").size(), 2u);
  BindPending();
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Field(kJobsGvr, "flaky", {"status", "failed"}), "2");
  EXPECT_EQ(Condition(kJobsGvr, "flaky", "Failed"), "True/BackoffLimitExceeded");
  EXPECT_EQ(Condition(kJobsGvr, "flaky", "FailureTarget"), "True/BackoffLimitExceeded");
  EXPECT_EQ(Pods("job-name=flaky").size(), 2u);

  // An evicted (deleted) running pod counts as failed and is replaced after the back-off.
  Apply(
      kJobsGvr,
      R"({"metadata":{"name":"long"},"spec":{"template":{"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":5,"containers":[{"name":"c","image":"busybox"}]}}}})");
  BindPending();
  const std::string first = Pods("job-name=long")[0]->name();
  ASSERT_TRUE(store_->Delete(kPodsGvr, "default", first, {}).ok());
  Settle();
  EXPECT_EQ(Field(kJobsGvr, "long", {"status", "terminating"}), "1");
  EXPECT_EQ(Field(kJobsGvr, "long", {"status", "failed"}), "1");
  EXPECT_EQ(Field(kJobsGvr, "long", {"status", "active"}), "");
  EXPECT_FALSE(Get(kPodsGvr, "default", first)->HasFinalizer("batch.kubernetes.io/job-tracking"));
  Advance(std::chrono::seconds(5));
  EXPECT_EQ(Field(kJobsGvr, "long", {"status", "terminating"}), "0");
  EXPECT_EQ(Phase("default", first), "<gone>");
  Advance(std::chrono::seconds(5));
  EXPECT_EQ(Field(kJobsGvr, "long", {"status", "active"}), "1");  // the replacement
}

TEST_F(ControllersTest, IndexedJobSuspendAndTtl) {
  Apply(
      kJobsGvr,
      R"({"metadata":{"name":"idx"},"spec":{"completions":3,"parallelism":3,"completionMode":"Indexed","ttlSecondsAfterFinished":5,"template":{"metadata":{"annotations":{"localkube.kai.scheduler/run-duration":"2s"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})");
  std::vector<std::string> indexes;
  for (const ObjectPtr& p : Pods("job-name=idx")) {
    JsonDoc d = Parse(p->json()).value();
    const std::string i =
        GetStr(d, {"metadata", "annotations", "batch.kubernetes.io/job-completion-index"});
    indexes.push_back(i);
    EXPECT_EQ(GetStr(d, {"metadata", "labels", "batch.kubernetes.io/job-completion-index"}), i);
    EXPECT_EQ(GetStr(d, {"spec", "hostname"}), "idx-" + i);
    EXPECT_EQ(p->name().rfind("idx-" + i + "-", 0), 0u);
    EXPECT_NE(p->json().find("JOB_COMPLETION_INDEX"), std::string::npos);
  }
  std::sort(indexes.begin(), indexes.end());
  EXPECT_EQ(indexes, (std::vector<std::string>{"0", "1", "2"}));
  BindPending();
  Advance(std::chrono::seconds(2));
  EXPECT_EQ(Field(kJobsGvr, "idx", {"status", "completedIndexes"}), "0-2");
  EXPECT_EQ(Condition(kJobsGvr, "idx", "Complete"), "True/CompletionsReached");
  Advance(std::chrono::seconds(4));
  EXPECT_NE(Field(kJobsGvr, "idx", {"metadata", "name"}), "<gone>");
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Field(kJobsGvr, "idx", {"metadata", "name"}), "<gone>");  // TTL
  EXPECT_TRUE(Pods("job-name=idx").empty());

  Apply(
      kJobsGvr,
      R"({"metadata":{"name":"sus"},"spec":{"parallelism":2,"completions":2,"template":{"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":0,"containers":[{"name":"c","image":"busybox"}]}}}})");
  BindPending();
  EXPECT_EQ(Field(kJobsGvr, "sus", {"status", "active"}), "2");
  Patch(kJobsGvr, "sus", R"({"spec":{"suspend":true}})");
  EXPECT_EQ(Condition(kJobsGvr, "sus", "Suspended"), "True/JobSuspended");
  EXPECT_EQ(Field(kJobsGvr, "sus", {"status", "active"}), "");
  EXPECT_EQ(CountPhase("Running", "job-name=sus"), 0);
  Patch(kJobsGvr, "sus", R"({"spec":{"suspend":false}})");
  EXPECT_EQ(Condition(kJobsGvr, "sus", "Suspended"), "False/JobResumed");
  EXPECT_EQ(Field(kJobsGvr, "sus", {"status", "active"}), "2");
}

TEST_F(ControllersTest, ControllersCatchUpAfterRestart) {
  Apply(kRsGvr, kRs);
  ASSERT_EQ(Pods("app=r").size(), 3u);
  cluster_->Stop();
  ASSERT_TRUE(
      store_->Patch(kRsGvr, "default", "rs", PatchType::kMerge, R"({"spec":{"replicas":5}})").ok());
  ASSERT_TRUE(store_->Create(kJobsGvr, "default", kJob).ok());
  EXPECT_EQ(Pods("app=r").size(), 3u);  // nobody is reconciling
  SimulationOptions o;
  RestartCluster(o);
  EXPECT_EQ(Pods("app=r").size(), 5u);
  EXPECT_EQ(Pods("job-name=train").size(), 2u);
}

}  // namespace
}  // namespace kai::localkube
