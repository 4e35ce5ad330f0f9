// Unit tests of the simulated nodes and kubelet (in process, FakeClock, no network).
#include "test/localkube/kubelet.h"

#include <gtest/gtest.h>

#include "kube/base/time.h"
#include "test/localkube/node_pool.h"
#include "test/localkube/testing/sim_fixture.h"

namespace kai::localkube {
namespace {

using testing::kNodesGvr;
using testing::kPodsGvr;
const GroupVersionResource kLeasesGvr{"coordination.k8s.io", "v1", "leases"};
const GroupVersionResource kEventsGvr{"", "v1", "events"};

// ---- node pools

TEST(NodePoolTest, ParsesPoolFileAndNamesBadFields) {
  auto pools = ParseNodePools(R"(
nodePools:
- name: h100
  count: 2
  gpus: 8
  gpuMemory: 81559
  gpuProduct: NVIDIA-H100-80GB-HBM3
  cpu: "96"
  memory: 1Ti
  maxPods: 250
  labels: {kai.scheduler/node-pool: train, rack: r1}
  taints: [{key: dedicated, value: train, effect: NoSchedule}]
- namePrefix: cpu-
  count: 3
  gpus: 0
)",
                              "pools.yaml");
  ASSERT_TRUE(pools.ok()) << pools.status();
  ASSERT_EQ(pools->size(), 2u);
  const NodePool& h = (*pools)[0];
  EXPECT_EQ(h.name_prefix, "h100-");
  EXPECT_EQ(h.count, 2);
  EXPECT_EQ(h.gpu_memory_mib, 81559);
  EXPECT_EQ(h.max_pods, 250);
  EXPECT_EQ(h.labels.at("rack"), "r1");
  ASSERT_EQ(h.taints.size(), 1u);
  EXPECT_EQ(h.taints[0].effect, "NoSchedule");
  EXPECT_EQ((*pools)[1].name_prefix, "cpu-");
  EXPECT_EQ((*pools)[1].gpus, 0);

  auto bad = ParseNodePools("nodePools:\n- count: 1\n  gpuz: 2\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "p.yaml: nodePools[0]: unknown field \"gpuz\"");
  bad = ParseNodePools("nodePools:\n- count: 1\n  cpu: lots\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("p.yaml: nodePools[0]: cpu: \"lots\""), std::string::npos)
      << bad.status();
  bad =
      ParseNodePools("nodePools:\n- count: 1\n  taints: [{key: a, effect: Sometimes}]\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("effect \"Sometimes\""), std::string::npos);
  bad = ParseNodePools("nodePools:\n- count: 1\n- count: 2\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("namePrefix \"node-\" is used by another pool"),
            std::string::npos);
  bad = ParseNodePools("nodePools:\n- namePrefix: Bad_\n  count: 1\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("node name \"Bad_0\""), std::string::npos);
  bad = ParseNodePools("[1, 2", "p.yaml");
  EXPECT_FALSE(bad.ok());

  auto labels = ParseNodeLabels("a=b, kai.scheduler/node-pool=x");
  ASSERT_TRUE(labels.ok());
  EXPECT_EQ(labels->at("kai.scheduler/node-pool"), "x");
  EXPECT_FALSE(ParseNodeLabels("novalue").ok());
  EXPECT_FALSE(ParseNodeLabels("a=b c").ok());
  auto taints = ParseNodeTaints("gpu=true:NoSchedule,spot:PreferNoSchedule");
  ASSERT_TRUE(taints.ok());
  ASSERT_EQ(taints->size(), 2u);
  EXPECT_EQ((*taints)[1].key, "spot");
  EXPECT_EQ((*taints)[1].value, "");
}

TEST(NodePoolTest, NodeJsonHasCapacityAndGpuFeatureLabels) {
  NodePool p;
  p.gpus = 4;
  p.gpu_memory_mib = 24576;
  p.gpu_product = "NVIDIA-L4";
  p.labels = {{"zone", "z1"}};
  auto doc = Parse(NodeJson(p, 3, 7, WallTime()));
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(GetStr(*doc, {"metadata", "name"}), "node-3");
  const Json& l = *Path(*doc, {"metadata", "labels"});
  EXPECT_EQ(GetStr(l, {"nvidia.com/gpu.count"}), "4");
  EXPECT_EQ(GetStr(l, {"nvidia.com/gpu.memory"}), "24576");
  EXPECT_EQ(GetStr(l, {"nvidia.com/gpu.product"}), "NVIDIA-L4");
  EXPECT_EQ(GetStr(l, {"nvidia.com/gpu.present"}), "true");
  EXPECT_EQ(GetStr(l, {"nvidia.com/gpu.family"}), "ada-lovelace");
  EXPECT_EQ(GetStr(l, {"kubernetes.io/hostname"}), "node-3");
  EXPECT_EQ(GetStr(l, {"node-role.kubernetes.io/gpu-worker"}), "true");
  EXPECT_EQ(GetStr(l, {"zone"}), "z1");
  EXPECT_EQ(GetStr(*doc, {"metadata", "annotations", "localkube.kai.scheduler/simulated"}), "true");
  EXPECT_EQ(GetStr(*doc, {"status", "capacity", "nvidia.com/gpu"}), "4");
  EXPECT_EQ(GetStr(*doc, {"status", "allocatable", "pods"}), "110");
  EXPECT_EQ(GetStr(*doc, {"spec", "podCIDR"}), "10.0.7.0/24");
  p.gpus = 0;
  doc = Parse(NodeJson(p, 0, 0, WallTime()));
  EXPECT_EQ(Path(*doc, {"metadata", "labels", "nvidia.com/gpu.count"}), nullptr);
  EXPECT_EQ(GetStr(*doc, {"metadata", "labels", "node-role.kubernetes.io/cpu-worker"}), "true");
  EXPECT_EQ(Path(*doc, {"status", "capacity", "nvidia.com/gpu"}), nullptr);
  EXPECT_EQ(GpuUuid("node-1", 3), "GPU-node-1-3");
}

// ---- simulated kubelet

class KubeletTest : public testing::SimFixture {
 protected:
  void SetUp() override {
    SimulationOptions o;
    NodePool p;
    p.count = 2;
    p.gpus = 4;
    p.cpu = "8";
    p.memory = "32Gi";
    p.max_pods = 5;
    o.node_pools.push_back(p);
    o.controllers = false;
    StartCluster(o);
  }
  // A pod with `gpus` GPUs and `cpu` cpu; annotations as JSON members.
  void CreatePod(const std::string& name, int gpus, const std::string& cpu = "1",
                 const std::string& annotations = "", const std::string& extra_spec = "",
                 const std::string& ns = "default") {
    std::string limits = "\"cpu\":\"" + cpu + "\"";
    if (gpus > 0) limits += ",\"nvidia.com/gpu\":\"" + std::to_string(gpus) + "\"";
    const std::string json =
        R"({"metadata":{"name":")" + name + R"(","annotations":{)" + annotations +
        R"(}},"spec":{)" + extra_spec +
        R"("containers":[{"name":"main","image":"busybox","resources":{"limits":{)" + limits +
        "}}}]}}";
    auto r = store_->Create(kPodsGvr, ns, json);
    ASSERT_TRUE(r.ok()) << r.status() << " " << json;
  }
  void Bind(const std::string& name, const std::string& node, const std::string& ns = "default") {
    auto r = store_->Bind(ns, name, PodBinding{.node = node});
    ASSERT_TRUE(r.ok()) << r.status();
    Settle();
  }
  std::vector<std::string> Devices(const std::string& name, const std::string& ns = "default") {
    std::vector<std::string> out;
    JsonDoc d = Doc(kPodsGvr, ns, name);
    const Json* cs = Path(d, {"status", "containerStatuses"});
    if (cs == nullptr) return out;
    for (const Json& c : cs->GetArray()) {
      const Json* ars = Member(c, "allocatedResourcesStatus");
      if (ars == nullptr) continue;
      for (const Json& r : ars->GetArray()) {
        EXPECT_EQ(GetStr(r, {"name"}), "nvidia.com/gpu");
        for (const Json& x : (*Member(r, "resources")).GetArray()) {
          out.push_back(GetStr(x, {"resourceID"}));
        }
      }
    }
    return out;
  }
  std::string Container(const std::string& name, std::initializer_list<std::string_view> path) {
    JsonDoc d = Doc(kPodsGvr, "default", name);
    const Json* cs = Path(d, {"status", "containerStatuses"});
    if (cs == nullptr || cs->Empty()) return "";
    const Json* v = Path((*cs)[0], path);
    return v == nullptr ? "" : ScalarText(*v);
  }
};

TEST_F(KubeletTest, NodesAreReadyAndHeartbeatsStayFresh) {
  ASSERT_EQ(store_->Count({"", "nodes"}), 2u);
  EXPECT_TRUE(cluster_->ManagesNode("node-0"));
  EXPECT_FALSE(cluster_->ManagesNode("other"));
  auto ready_heartbeat = [&](const std::string& node) {
    JsonDoc d = Doc(kNodesGvr, "", node);
    for (const Json& c : Path(d, {"status", "conditions"})->GetArray()) {
      if (GetStr(c, {"type"}) == "Ready") {
        return GetStr(c, {"status"}) + "@" + GetStr(c, {"lastHeartbeatTime"});
      }
    }
    return std::string();
  };
  auto renew = [&](const std::string& node) {
    return GetStr(Doc(kLeasesGvr, "kube-node-lease", node), {"spec", "renewTime"});
  };
  const std::string t0 = FormatRfc3339(clock_.Now());
  EXPECT_EQ(ready_heartbeat("node-1"), "True@" + t0);
  const std::string lease0 = renew("node-1");
  ASSERT_FALSE(lease0.empty());
  EXPECT_EQ(GetStr(Doc(kLeasesGvr, "kube-node-lease", "node-1"), {"spec", "holderIdentity"}),
            "node-1");
  Advance(std::chrono::seconds(10));
  EXPECT_NE(renew("node-1"), lease0);  // renewed every 10 s
  EXPECT_EQ(ready_heartbeat("node-1"), "True@" + t0);
  Advance(std::chrono::seconds(50));
  EXPECT_EQ(ready_heartbeat("node-1"), "True@" + FormatRfc3339(clock_.Now()));
  // The node-ready annotation makes the kubelet report NotReady at once, and Ready again.
  ASSERT_TRUE(
      store_
          ->Patch(kNodesGvr, "", "node-0", PatchType::kMerge,
                  R"({"metadata":{"annotations":{"localkube.kai.scheduler/node-ready":"false"}}})")
          .ok());
  Settle();
  EXPECT_EQ(ready_heartbeat("node-0").substr(0, 6), "False@");
  ASSERT_TRUE(
      store_
          ->Patch(kNodesGvr, "", "node-0", PatchType::kMerge,
                  R"({"metadata":{"annotations":{"localkube.kai.scheduler/node-ready":null}}})")
          .ok());
  Settle();
  EXPECT_EQ(ready_heartbeat("node-0").substr(0, 5), "True@");
  // Starting again with the same pools creates nothing new (idempotent).
  RestartCluster(SimulationOptions{.node_pools = {NodePool{.count = 2}}, .controllers = false});
  EXPECT_EQ(store_->Count({"", "nodes"}), 2u);
  EXPECT_EQ(GetStr(Doc(kNodesGvr, "", "node-0"), {"status", "capacity", "nvidia.com/gpu"}), "4");
}

TEST_F(KubeletTest, BoundPodRunsWithDistinctGpusAndCompletes) {
  CreatePod("a", 2, "1", R"("localkube.kai.scheduler/run-duration":"30s")",
            R"("restartPolicy":"Never",)");
  Settle();
  EXPECT_EQ(Phase("default", "a"), "Pending");  // unbound pods are not the kubelet's
  Bind("a", "node-0");
  EXPECT_EQ(Phase("default", "a"), "Running");
  CreatePod("b", 2);
  Bind("b", "node-0");
  EXPECT_EQ(Phase("default", "b"), "Running");
  EXPECT_EQ(Devices("a"), (std::vector<std::string>{"GPU-node-0-0", "GPU-node-0-1"}));
  EXPECT_EQ(Devices("b"), (std::vector<std::string>{"GPU-node-0-2", "GPU-node-0-3"}));
  JsonDoc d = Doc(kPodsGvr, "default", "a");
  EXPECT_EQ(GetStr(d, {"status", "hostIP"}), "172.16.0.2");
  EXPECT_EQ(GetStr(d, {"status", "podIP"}), "10.0.0.2");
  EXPECT_EQ(GetStr(Doc(kPodsGvr, "default", "b"), {"status", "podIP"}), "10.0.0.3");
  EXPECT_EQ(GetStr(d, {"status", "startTime"}), FormatRfc3339(clock_.Now()));
  std::vector<std::string> conds;
  for (const Json& c : Path(d, {"status", "conditions"})->GetArray()) {
    conds.push_back(GetStr(c, {"type"}) + "=" + GetStr(c, {"status"}));
  }
  EXPECT_EQ(conds,
            (std::vector<std::string>{"PodReadyToStartContainers=True", "Initialized=True",
                                      "Ready=True", "ContainersReady=True", "PodScheduled=True"}));
  EXPECT_EQ(Container("a", {"ready"}), "true");
  EXPECT_EQ(Container("a", {"state", "running", "startedAt"}), FormatRfc3339(clock_.Now()));
  Advance(std::chrono::seconds(29));
  EXPECT_EQ(Phase("default", "a"), "Running");
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Phase("default", "a"), "Succeeded");
  EXPECT_EQ(Container("a", {"state", "terminated", "reason"}), "Completed");
  EXPECT_EQ(Container("a", {"state", "terminated", "exitCode"}), "0");
  // The finished pod's GPUs are free again.
  CreatePod("c", 2);
  Bind("c", "node-0");
  EXPECT_EQ(Devices("c"), (std::vector<std::string>{"GPU-node-0-0", "GPU-node-0-1"}));
  EXPECT_EQ(Phase("default", "b"), "Running");  // no run duration: runs until deleted
}

// Later events of a running pod (labels, conditions from other writers) leave it to the
// kubelet's fast path: nothing is written. A run duration added afterwards is still honoured,
// and a running pod is still deleted after its grace period.
TEST_F(KubeletTest, RunningPodEventsWriteNothingUntilThereIsSomethingToDo) {
  CreatePod("a", 1, "1", "", R"("restartPolicy":"Never",)");
  Bind("a", "node-0");
  ASSERT_EQ(Phase("default", "a"), "Running");
  auto rv = [&] { return GetStr(Doc(kPodsGvr, "default", "a"), {"metadata", "resourceVersion"}); };
  auto patch = [&](const std::string& body, const std::string& sub) {
    PatchOptions po;
    po.subresource = sub;
    ASSERT_TRUE(store_->Patch(kPodsGvr, "default", "a", PatchType::kMerge, body, po).ok());
    Settle();
  };
  patch(R"({"metadata":{"labels":{"x":"1"}}})", "");
  const std::string after_label = rv();
  patch(R"({"metadata":{"annotations":{"y":"2"}}})", "");
  EXPECT_NE(rv(), after_label);
  const std::string after_annotation = rv();
  Advance(std::chrono::seconds(60));
  EXPECT_EQ(rv(), after_annotation);  // the kubelet wrote nothing
  EXPECT_EQ(Phase("default", "a"), "Running");
  patch(R"({"metadata":{"annotations":{"localkube.kai.scheduler/run-duration":"1s"}}})", "");
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Phase("default", "a"), "Succeeded");
}

TEST_F(KubeletTest, ExitCodeAndRestartPolicy) {
  CreatePod(
      "fail", 0, "1",
      R"("localkube.kai.scheduler/run-duration":"5s","localkube.kai.scheduler/exit-code":"3")",
      R"("restartPolicy":"Never",)");
  Bind("fail", "node-1");
  CreatePod("crash", 0, "1", R"("localkube.kai.scheduler/run-duration":"5s")");  // Always
  Bind("crash", "node-1");
  Advance(std::chrono::seconds(5));
  EXPECT_EQ(Phase("default", "fail"), "Failed");
  EXPECT_EQ(Container("fail", {"state", "terminated", "exitCode"}), "3");
  EXPECT_EQ(Container("fail", {"state", "terminated", "reason"}), "Error");
  // restartPolicy Always: the container exits, backs off 10 s and runs again.
  EXPECT_EQ(Phase("default", "crash"), "Running");
  EXPECT_EQ(Container("crash", {"restartCount"}), "1");
  EXPECT_EQ(Container("crash", {"state", "waiting", "reason"}), "CrashLoopBackOff");
  EXPECT_EQ(Container("crash", {"lastState", "terminated", "reason"}), "Completed");
  EXPECT_EQ(Container("crash", {"ready"}), "false");
  Advance(std::chrono::seconds(10));
  EXPECT_EQ(Container("crash", {"state", "running", "startedAt"}), FormatRfc3339(clock_.Now()));
  EXPECT_EQ(Container("crash", {"ready"}), "true");
  Advance(std::chrono::seconds(5));
  EXPECT_EQ(Container("crash", {"restartCount"}), "2");
  Advance(std::chrono::seconds(19));
  EXPECT_EQ(Container("crash", {"state", "waiting", "reason"}), "CrashLoopBackOff");
  Advance(std::chrono::seconds(1));  // second back-off: 20 s
  EXPECT_EQ(Container("crash", {"ready"}), "true");
}

TEST_F(KubeletTest, AdmissionRejectsWhatDoesNotFit) {
  CreatePod("big", 4);
  Bind("big", "node-0");
  EXPECT_EQ(Phase("default", "big"), "Running");
  CreatePod("more", 1);
  Bind("more", "node-0");
  EXPECT_EQ(Phase("default", "more"), "Failed");
  EXPECT_EQ(PodField("default", "more", {"status", "reason"}), "OutOfnvidia.com/gpu");
  EXPECT_EQ(PodField("default", "more", {"status", "message"}),
            "Pod was rejected: Node didn't have enough resource: nvidia.com/gpu, requested: 1, "
            "used: 4, capacity: 4");
  auto events =
      store_->List(kEventsGvr, "default", {.field_selector = "reason=OutOfnvidia.com/gpu"});
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->items.size(), 1u);
  CreatePod("cpu", 0, "7500m");
  Bind("cpu", "node-0");
  EXPECT_EQ(PodField("default", "cpu", {"status", "reason"}), "OutOfcpu");
  EXPECT_EQ(PodField("default", "cpu", {"status", "message"}),
            "Pod was rejected: Node didn't have enough resource: cpu, requested: 7500, used: "
            "1000, capacity: 8000");
  // maxPods 5: four more small pods fit, the fifth does not.
  for (int i = 0; i < 5; ++i) {
    CreatePod("s" + std::to_string(i), 0, "100m");
    Bind("s" + std::to_string(i), "node-0");
  }
  EXPECT_EQ(Phase("default", "s3"), "Running");
  EXPECT_EQ(PodField("default", "s4", {"status", "reason"}), "OutOfpods");
  // Node selector mismatch.
  CreatePod("sel", 0, "100m", "", R"("nodeSelector":{"pool":"x"},)");
  Bind("sel", "node-1");
  EXPECT_EQ(PodField("default", "sel", {"status", "reason"}), "NodeAffinity");
}

// Admission reads the node once per node resourceVersion: a changed node is read again.
TEST_F(KubeletTest, AdmissionSeesTheNodeAsItIsNow) {
  CreatePod("first", 1);
  Bind("first", "node-1");
  ASSERT_EQ(Phase("default", "first"), "Running");
  PatchOptions po;
  po.subresource = "status";
  ASSERT_TRUE(store_
                  ->Patch(kNodesGvr, "", "node-1", PatchType::kMerge,
                          R"({"status":{"allocatable":{"nvidia.com/gpu":"1"}}})", po)
                  .ok());
  Settle();
  CreatePod("second", 1);
  Bind("second", "node-1");
  EXPECT_EQ(Phase("default", "second"), "Failed");
  EXPECT_EQ(PodField("default", "second", {"status", "reason"}), "OutOfnvidia.com/gpu");
}

TEST_F(KubeletTest, GracefulDeletionEndsAfterGracePeriod) {
  CreatePod("g", 1, "1", "", R"("terminationGracePeriodSeconds":30,)");
  Bind("g", "node-0");
  struct Seen {
    std::mutex mu;
    std::string last_phase;
  };
  auto seen = std::make_shared<Seen>();
  store_->AddObserver([seen](const GroupResource& gr, const ObjectPtr&, const ObjectPtr& now) {
    if (gr.resource == "pods" && now && now->name() == "g") {
      std::lock_guard l(seen->mu);
      seen->last_phase = std::string(now->Field("status.phase"));
    }
  });
  auto del = store_->Delete(kPodsGvr, "default", "g", {});
  ASSERT_TRUE(del.ok());
  EXPECT_FALSE(del->deleted);
  Advance(std::chrono::seconds(29));
  EXPECT_EQ(Phase("default", "g"), "Running");
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Phase("default", "g"), "<gone>");
  // Before removal the kubelet wrote the terminal status (killed: exit code 137).
  {
    std::lock_guard l(seen->mu);
    EXPECT_EQ(seen->last_phase, "Failed");
  }
  // The termination-duration annotation: the containers exit on SIGTERM after 2 s.
  CreatePod("quick", 1, "1", R"("localkube.kai.scheduler/termination-duration":"2s")");
  Bind("quick", "node-0");
  ASSERT_TRUE(store_->Delete(kPodsGvr, "default", "quick", {}).ok());
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Phase("default", "quick"), "Running");
  Advance(std::chrono::seconds(1));
  EXPECT_EQ(Phase("default", "quick"), "<gone>");
  // A pod on a node without the simulated kubelet is still completed by the store.
  CreatePod("elsewhere", 0, "1");
  ASSERT_TRUE(store_->Bind("default", "elsewhere", PodBinding{.node = "real-node"}).ok());
  ASSERT_TRUE(store_->Delete(kPodsGvr, "default", "elsewhere", {}).ok());
  Advance(std::chrono::seconds(29));
  EXPECT_EQ(Phase("default", "elsewhere"), "Pending");
  Advance(std::chrono::seconds(2));
  EXPECT_EQ(Phase("default", "elsewhere"), "<gone>");
}

TEST_F(KubeletTest, ReservationPodPublishesItsGpuUuid) {
  CreatePod("user", 1);
  Bind("user", "node-1");
  // As KAI's binder creates it: spec.nodeName set directly, one GPU.
  const std::string res =
      R"({"metadata":{"name":"gpu-reservation-node-1-abcde","labels":{"app":"kai-resource-reservation","runai-gpu-group":"g1"}},"spec":{"nodeName":"node-1","containers":[{"name":"resource-reservation","image":"ubuntu","resources":{"limits":{"nvidia.com/gpu":"1"},"requests":{"nvidia.com/gpu":"1"}}}]}})";
  ASSERT_TRUE(store_->Create(kPodsGvr, "kai-resource-reservation", res).ok());
  Settle();
  EXPECT_EQ(Phase("kai-resource-reservation", "gpu-reservation-node-1-abcde"), "Running");
  EXPECT_EQ(PodField("kai-resource-reservation", "gpu-reservation-node-1-abcde",
                     {"metadata", "annotations", "run.ai/reserve_for_gpu_index"}),
            "GPU-node-1-1");
  // Other namespaces do not get the annotation.
  EXPECT_EQ(
      PodField("default", "user", {"metadata", "annotations", "run.ai/reserve_for_gpu_index"}), "");
}

TEST_F(KubeletTest, RestartedKubeletRebuildsDeviceAccountingFromTheStore) {
  CreatePod("a", 3);
  Bind("a", "node-0");
  ASSERT_EQ(Devices("a").size(), 3u);
  SimulationOptions o;
  o.controllers = false;
  RestartCluster(o);
  CreatePod("b", 1);
  Bind("b", "node-0");
  EXPECT_EQ(Devices("b"), (std::vector<std::string>{"GPU-node-0-3"}));
  CreatePod("c", 1);
  Bind("c", "node-0");
  EXPECT_EQ(PodField("default", "c", {"status", "reason"}), "OutOfnvidia.com/gpu");
  // Work that was due while no kubelet ran is done on start (level-triggered).
  CreatePod("late", 0, "1", R"("localkube.kai.scheduler/run-duration":"1s")",
            R"("restartPolicy":"Never",)");
  Bind("late", "node-1");
  cluster_->Stop();
  clock_.Advance(std::chrono::seconds(5));
  RestartCluster(o);
  EXPECT_EQ(Phase("default", "late"), "Succeeded");
}

}  // namespace
}  // namespace kai::localkube
