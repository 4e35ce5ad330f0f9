// Integration tests of the simulated cluster (nodes, kubelet, workload controllers,
// persistence), driven through kubectl against the localkube binary.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "kube/base/strings.h"
#include "test/localkube/testing/localkube_process.h"

namespace kai::localkube {
namespace {

using testing::CommandResult;
using testing::LocalKubeProcess;

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  for (const std::string& l : StrSplit(s, '\n')) {
    if (!l.empty()) out.push_back(l);
  }
  return out;
}

class SimulatedClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto p = LocalKubeProcess::Start({.args = {"--nodes=4", "--gpus-per-node=8"}});
    ASSERT_TRUE(p.ok()) << p.status();
    kube_ = p->release();
  }
  static void TearDownTestSuite() {
    delete kube_;
    kube_ = nullptr;
  }
  static CommandResult K(const std::vector<std::string>& args, std::string_view in = "") {
    return kube_->Kubectl(args, in);
  }
  static std::string Ns(const std::string& name) {
    K({"create", "namespace", name});
    return name;
  }
  // Binds through `kubectl create` of a core/v1 Binding (POST .../bindings).
  static CommandResult Bind(const std::string& ns, const std::string& pod,
                            const std::string& node) {
    return K({"create", "-n", ns, "-f", "-"},
             "apiVersion: v1\nkind: Binding\nmetadata: {name: " + pod +
                 "}\ntarget: {apiVersion: v1, kind: Node, name: " + node + "}\n");
  }
  // Binds every unbound pending pod of `ns` (what a scheduler would do); returns how many.
  static int BindPending(const std::string& ns) {
    CommandResult r = K({"get", "pods", "-n", ns, "--field-selector=spec.nodeName=", "-o",
                         "jsonpath={.items[*].metadata.name}"});
    int n = 0;
    for (const std::string& pod : StrSplit(r.out, ' ')) {
      if (pod.empty()) continue;
      EXPECT_TRUE(Bind(ns, pod, "node-" + std::to_string(n++ % 4)).ok());
    }
    return n;
  }
  // Runs kubectl until `done(result)` holds or `timeout` passes; returns the last result. The
  // cluster's controllers and kubelet act asynchronously (and slowly on a loaded machine), so
  // their effects are polled for, never assumed after a fixed time.
  static CommandResult Eventually(const std::vector<std::string>& args,
                                  const std::function<bool(const CommandResult&)>& done,
                                  std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    CommandResult r = K(args);
    while (!done(r) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      r = K(args);
    }
    return r;
  }
  static CommandResult EventuallyOut(const std::vector<std::string>& args,
                                     const std::string& want) {
    return Eventually(args, [&](const CommandResult& r) { return r.out == want; });
  }
  // Binds pending pods until `args` succeeds (at most 60 s).
  static bool BindUntil(const std::string& ns, const std::vector<std::string>& args) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      BindPending(ns);
      if (K(args).ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
  static LocalKubeProcess* kube_;
};
LocalKubeProcess* SimulatedClusterTest::kube_ = nullptr;

TEST_F(SimulatedClusterTest, NodesAreReadyWithGpuCapacity) {
  CommandResult r = K({"get", "nodes"});
  ASSERT_TRUE(r.ok()) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  for (int i = 0; i < 4; ++i) {
    const std::string& l = lines[static_cast<size_t>(i) + 1];
    EXPECT_EQ(l.rfind("node-" + std::to_string(i) + " ", 0), 0u) << l;
    EXPECT_NE(l.find(" Ready "), std::string::npos) << l;
    EXPECT_NE(l.find("gpu-worker"), std::string::npos) << l;
  }
  r = K({"get", "nodes", "-o",
         "jsonpath={range .items[*]}{.status.capacity.nvidia\\.com/gpu} "
         "{.status.allocatable.nvidia\\.com/gpu} {.metadata.labels.nvidia\\.com/gpu\\.count} "
         "{.metadata.labels.nvidia\\.com/gpu\\.memory} "
         "{.metadata.labels.nvidia\\.com/gpu\\.product};{end}"});
  std::string want;
  for (int i = 0; i < 4; ++i) want += "8 8 8 81920 NVIDIA-A100-SXM4-80GB;";
  EXPECT_EQ(r.out, want) << r.err;
  r = K({"wait", "--for=condition=Ready", "node/node-3", "--timeout=30s"});
  EXPECT_TRUE(r.ok()) << r.err;
  r = Eventually({"get", "leases", "-n", "kube-node-lease", "-o", "name"},
                 [](const CommandResult& c) { return Lines(c.out).size() == 4u; });
  EXPECT_EQ(Lines(r.out).size(), 4u) << r.out;
  r = K({"describe", "node", "node-0"});
  EXPECT_NE(r.out.find("nvidia.com/gpu:     8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("KubeletReady"), std::string::npos);
}

TEST_F(SimulatedClusterTest, PodRunsCompletesAndTerminatesGracefully) {
  const std::string ns = Ns("kubelet1");
  CommandResult r = K({"apply", "-n", ns, "-f", "-"}, R"(apiVersion: v1
kind: Pod
metadata:
  name: job-like
  annotations: {localkube.kai.scheduler/run-duration: 2s}
spec:
  restartPolicy: Never
  containers:
  - name: train
    image: busybox
    resources: {limits: {nvidia.com/gpu: 2}}
)");
  ASSERT_TRUE(r.ok()) << r.err;
  r = Bind(ns, "job-like", "node-1");
  ASSERT_TRUE(r.ok()) << r.err;
  // It runs for 2 s (on a loaded machine it may be over before kubectl looks): its placement
  // stays in the status either way.
  const std::string placed = " 172.16.0.3 10.0.1.2 GPU-node-1-0 GPU-node-1-1";
  const std::string placement =
      "jsonpath={.status.phase} {.status.hostIP} {.status.podIP} "
      "{.status.containerStatuses[0].allocatedResourcesStatus[0].resources[*].resourceID}";
  r = Eventually({"get", "pod", "job-like", "-n", ns, "-o", placement},
                 [&](const CommandResult& c) {
                   return c.out == "Running" + placed || c.out == "Succeeded" + placed;
                 });
  EXPECT_TRUE(r.out == "Running" + placed || r.out == "Succeeded" + placed) << r.out << r.err;
  r = K({"wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/job-like", "-n", ns,
         "--timeout=30s"});
  EXPECT_TRUE(r.ok()) << r.err;
  r = K({"get", "pod", "job-like", "-n", ns});
  EXPECT_NE(r.out.find("Completed"), std::string::npos) << r.out;

  // A long-running pod deleted with a grace period stays Terminating until it ends.
  r = K({"run", "server", "-n", ns, "--image=nginx", "--restart=Always"});
  ASSERT_TRUE(r.ok()) << r.err;
  ASSERT_TRUE(Bind(ns, "server", "node-2").ok());
  r = K({"wait", "--for=condition=Ready", "pod/server", "-n", ns, "--timeout=30s"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"delete", "pod", "server", "-n", ns, "--grace-period=8", "--wait=false"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "pod", "server", "-n", ns});
  EXPECT_NE(r.out.find("Terminating"), std::string::npos) << r.out << r.err;
  r = K({"wait", "--for=delete", "pod/server", "-n", ns, "--timeout=30s"});
  EXPECT_TRUE(r.ok()) << r.err;
}

TEST_F(SimulatedClusterTest, PodsThatDoNotFitAreRejectedLikeByAKubelet) {
  const std::string ns = Ns("kubelet2");
  auto pod = [&](const std::string& name, int gpus) {
    return K({"apply", "-n", ns, "-f", "-"},
             "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
                 "}\nspec:\n  containers:\n  - name: c\n    image: busybox\n    resources: "
                 "{limits: {nvidia.com/gpu: " +
                 std::to_string(gpus) + "}}\n");
  };
  ASSERT_TRUE(pod("six", 6).ok());
  ASSERT_TRUE(pod("three", 3).ok());
  ASSERT_TRUE(Bind(ns, "six", "node-3").ok());
  ASSERT_TRUE(K({"wait", "--for=condition=Ready", "pod/six", "-n", ns, "--timeout=30s"}).ok());
  ASSERT_TRUE(Bind(ns, "three", "node-3").ok());
  CommandResult r =
      K({"wait", "--for=jsonpath={.status.phase}=Failed", "pod/three", "-n", ns, "--timeout=30s"});
  EXPECT_TRUE(r.ok()) << r.err;
  r = K({"get", "pod", "three", "-n", ns});
  EXPECT_NE(r.out.find("OutOfnvidia.com/gpu"), std::string::npos) << r.out;
  r = EventuallyOut(
      {"get", "events", "-n", ns, "--field-selector", "reason=OutOfnvidia.com/gpu", "-o",
       "jsonpath={.items[0].message}"},
      "Node didn't have enough resource: nvidia.com/gpu, requested: 3, used: 6, capacity: 8");
  EXPECT_EQ(r.out,
            "Node didn't have enough resource: nvidia.com/gpu, requested: 3, used: 6, capacity: 8");
}

TEST_F(SimulatedClusterTest, ReservationPodGetsItsGpuUuid) {
  CommandResult r = K({"create", "namespace", "kai-resource-reservation"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"apply", "-n", "kai-resource-reservation", "-f", "-"}, R"(apiVersion: v1
kind: Pod
metadata:
  name: gpu-reservation-node-0-x1y2z
  labels: {app: kai-resource-reservation, runai-gpu-group: 0f0c3c9e-1b6f-4a6f-9d0a-3f4c1b2a9e77}
spec:
  nodeName: node-0
  containers:
  - name: resource-reservation
    image: ubuntu
    resources:
      limits: {nvidia.com/gpu: 1}
      requests: {nvidia.com/gpu: 1}
)");
  ASSERT_TRUE(r.ok()) << r.err;
  // The simulated reservation container reports its GPU (polled here; KAI's binder watches).
  for (int i = 0; i < 100; ++i) {
    r = K({"get", "pod", "gpu-reservation-node-0-x1y2z", "-n", "kai-resource-reservation", "-o",
           "jsonpath={.metadata.annotations.run\\.ai/reserve_for_gpu_index}"});
    if (!r.out.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  r = K({"get", "pod", "gpu-reservation-node-0-x1y2z", "-n", "kai-resource-reservation", "-o",
         "jsonpath={.status.phase} {.metadata.annotations.run\\.ai/reserve_for_gpu_index}"});
  EXPECT_EQ(r.out.rfind("Running GPU-node-0-", 0), 0u) << r.out;
}

TEST_F(SimulatedClusterTest, DeploymentScalesAndRollsOut) {
  const std::string ns = Ns("deploy1");
  CommandResult r = K({"apply", "-n", ns, "-f", "-"}, R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      schedulerName: default-scheduler
      terminationGracePeriodSeconds: 1
      containers: [{name: nginx, image: "nginx:1.25"}]
)");
  ASSERT_TRUE(r.ok()) << r.err;
  // The Deployment and ReplicaSet controllers create the pods after `apply` returns.
  const std::string pending3 =
      "ReplicaSet true default-scheduler Pending;ReplicaSet true default-scheduler "
      "Pending;ReplicaSet true default-scheduler Pending;";
  const std::string owners =
      "jsonpath={range .items[*]}{.metadata.ownerReferences[0].kind} "
      "{.metadata.ownerReferences[0].controller} {.spec.schedulerName} {.status.phase};{end}";
  r = EventuallyOut({"get", "pods", "-n", ns, "-l", "app=web", "-o", owners}, pending3);
  EXPECT_EQ(r.out, pending3);
  EXPECT_TRUE(BindUntil(ns, {"rollout", "status", "deploy/web", "-n", ns, "--timeout=1s"}));
  r = K({"get", "deploy", "web", "-n", ns});
  EXPECT_NE(r.out.find("3/3     3            3"), std::string::npos) << r.out;

  r = K({"scale", "deploy/web", "-n", ns, "--replicas=5"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_TRUE(BindUntil(ns, {"wait", "--for=jsonpath={.status.availableReplicas}=5", "deploy/web",
                             "-n", ns, "--timeout=1s"}));
  r = K({"set", "image", "deploy/web", "-n", ns, "nginx=nginx:1.26"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_TRUE(BindUntil(ns, {"rollout", "status", "deploy/web", "-n", ns, "--timeout=1s"}));
  const std::string revisions =
      "jsonpath={range .items[*]}{.spec.replicas}/{.metadata.annotations.deployment\\.kubernetes"
      "\\.io/revision} {end}";
  r = K({"get", "rs", "-n", ns, "-o", revisions});
  EXPECT_TRUE(r.out == "0/1 5/2 " || r.out == "5/2 0/1 ") << r.out;
  r = K({"rollout", "history", "deploy/web", "-n", ns});
  EXPECT_NE(r.out.find("REVISION"), std::string::npos) << r.out << r.err;
  // The rollout is complete when the old ReplicaSet has no replicas; its last pods may still be
  // terminating (Running until their 1 s grace period ends), as in a real cluster.
  const std::string new5 = "nginx:1.26 nginx:1.26 nginx:1.26 nginx:1.26 nginx:1.26";
  r = EventuallyOut(
      {"get", "pods", "-n", ns, "-l", "app=web", "--field-selector=status.phase=Running", "-o",
       "jsonpath={.items[*].spec.containers[0].image}"},
      new5);
  EXPECT_EQ(r.out, new5);
  // Deleting the deployment deletes its ReplicaSets and pods.
  r = K({"delete", "deploy", "web", "-n", ns, "--wait=true"});
  ASSERT_TRUE(r.ok()) << r.err;
  // The garbage collector deletes them in the background.
  EXPECT_EQ(EventuallyOut({"get", "rs", "-n", ns, "-o", "name"}, "").out, "");
  EXPECT_EQ(EventuallyOut({"get", "pods", "-n", ns, "-o", "name"}, "").out, "");
}

TEST_F(SimulatedClusterTest, JobRunsToCompletion) {
  const std::string ns = Ns("job1");
  CommandResult r = K({"apply", "-n", ns, "-f", "-"}, R"(apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  completions: 3
  parallelism: 2
  template:
    metadata:
      annotations: {localkube.kai.scheduler/run-duration: 1s}
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: busybox
        resources: {limits: {nvidia.com/gpu: 1}}
)");
  ASSERT_TRUE(r.ok()) << r.err;
  r = Eventually({"get", "pods", "-n", ns, "-l", "job-name=train", "-o", "name"},
                 [](const CommandResult& c) { return Lines(c.out).size() == 2u; });
  EXPECT_EQ(Lines(r.out).size(), 2u) << r.out;
  EXPECT_TRUE(
      BindUntil(ns, {"wait", "--for=condition=complete", "job/train", "-n", ns, "--timeout=1s"}));
  r = K({"get", "job", "train", "-n", ns});
  EXPECT_NE(r.out.find("Complete"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3/3"), std::string::npos) << r.out;
  r = K({"get", "job", "train", "-n", ns, "-o",
         "jsonpath={.status.succeeded} {.status.failed} {.status.active}"});
  EXPECT_EQ(r.out, "3  ");
  r = K({"get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name=train", "-o",
         "jsonpath={.items[*].status.phase}"});
  EXPECT_EQ(r.out, "Succeeded Succeeded Succeeded");
  r = K({"describe", "job", "train", "-n", ns});
  EXPECT_NE(r.out.find("3 Succeeded"), std::string::npos) << r.out;
}

std::string RvOf(const std::string& json) {
  const std::string key = "\"resourceVersion\":\"";
  const size_t p = json.find(key);
  if (p == std::string::npos) return "";
  return json.substr(p + key.size(), json.find('"', p + key.size()) - p - key.size());
}

TEST(SimulatedClusterDataDirTest, RestartKeepsObjectsAndResourceVersions) {
  char tmpl[] = "/tmp/lk-data-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = std::string(tmpl) + "/data";
  const std::vector<std::string> args = {"--data-dir=" + dir, "--nodes=2", "--gpus-per-node=4"};
  std::string uid, rv, token, deploy_uid;
  {
    auto p = LocalKubeProcess::Start({.args = args});
    ASSERT_TRUE(p.ok()) << p.status();
    token = (*p)->token();
    ASSERT_TRUE((*p)->Kubectl({"create", "namespace", "keep"}).ok());
    ASSERT_TRUE((*p)->Kubectl({"apply", "-f", "crds/"}).ok());
    CommandResult r = (*p)->Kubectl({"apply", "-n", "keep", "-f", "-"}, R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {limits: {nvidia.com/gpu: 1}}}]
)");
    ASSERT_TRUE(r.ok()) << r.err;
    r = (*p)->Kubectl({"get", "pods", "-n", "keep", "-o", "jsonpath={.items[*].metadata.name}"});
    for (const std::string& pod : StrSplit(r.out, ' ')) {
      ASSERT_TRUE((*p)->Kubectl({"create", "-n", "keep", "-f", "-"},
                                "apiVersion: v1\nkind: Binding\nmetadata: {name: " + pod +
                                    "}\ntarget: {kind: Node, name: node-0}\n")
                      .ok());
    }
    r = (*p)->Kubectl({"rollout", "status", "deploy/web", "-n", "keep", "--timeout=20s"});
    ASSERT_TRUE(r.ok()) << r.err;
    r = (*p)->Kubectl({"apply", "-n", "keep", "-f", "-"},
                      "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q1}\n"
                      "spec: {resources: {gpu: {quota: 4, limit: -1, overQuotaWeight: 1}}}\n");
    ASSERT_TRUE(r.ok()) << r.err;
    auto cm = (*p)->Request("POST", "/api/v1/namespaces/keep/configmaps",
                            R"({"metadata":{"name":"cm"},"data":{"k":"v"}})");
    ASSERT_EQ(cm.code, 201) << cm.body;
    rv = RvOf(cm.body);
    uid = (*p)->Kubectl({"get", "cm", "cm", "-n", "keep", "-o", "jsonpath={.metadata.uid}"}).out;
    deploy_uid =
        (*p)->Kubectl({"get", "deploy", "web", "-n", "keep", "-o", "jsonpath={.metadata.uid}"}).out;
  }  // SIGTERM: a clean shutdown
  {
    auto p = LocalKubeProcess::Start({.args = args});
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ((*p)->token(), token);  // kubeconfigs stay valid
    CommandResult r =
        (*p)->Kubectl({"get", "cm", "cm", "-n", "keep", "-o",
                       "jsonpath={.metadata.uid} {.metadata.resourceVersion} {.data.k}"});
    EXPECT_EQ(r.out, uid + " " + rv + " v") << r.err;
    r = (*p)->Kubectl({"get", "nodes", "-o", "name"});
    EXPECT_EQ(r.out, "node/node-0\nnode/node-1\n");
    r = (*p)->Kubectl({"get", "queue", "q1", "-n", "keep", "-o", "name"});
    EXPECT_EQ(r.out, "queue.scheduling.run.ai/q1\n") << r.err;
    r = (*p)->Kubectl({"get", "deploy", "web", "-n", "keep", "-o",
                       "jsonpath={.metadata.uid} {.status.availableReplicas}"});
    EXPECT_EQ(r.out, deploy_uid + " 2") << r.err;
    // No duplicate pods: the controllers pick up where they were.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    r = (*p)->Kubectl({"get", "pods", "-n", "keep", "-o", "jsonpath={.items[*].status.phase}"});
    EXPECT_EQ(r.out, "Running Running");
    // resourceVersions keep growing; a watch from before the restart must relist (410).
    auto created = (*p)->Request("POST", "/api/v1/namespaces/keep/configmaps",
                                 R"({"metadata":{"name":"after"}})");
    ASSERT_EQ(created.code, 201) << created.body;
    EXPECT_GT(std::stoull(RvOf(created.body)), std::stoull(rv));
    const std::string older = std::to_string(std::stoull(rv) - 1);
    auto w =
        (*p)->WatchFor("/api/v1/namespaces/keep/configmaps?watch=1&resourceVersion=" + older, 1.0);
    EXPECT_NE(w.body.find("\"code\":410"), std::string::npos) << w.body;
    // An acknowledged write survives a crash (kill -9).
    auto crash = (*p)->Request("POST", "/api/v1/namespaces/keep/configmaps",
                               R"({"metadata":{"name":"before-crash"}})");
    ASSERT_EQ(crash.code, 201);
    ::kill((*p)->pid(), SIGKILL);
  }
  {
    auto p = LocalKubeProcess::Start({.args = args});
    ASSERT_TRUE(p.ok()) << p.status();
    CommandResult r = (*p)->Kubectl({"get", "cm", "-n", "keep", "-o", "name"});
    EXPECT_NE(r.out.find("configmap/before-crash"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("configmap/after"), std::string::npos) << r.out;
    // A second localkube cannot use the same directory.
    auto again = LocalKubeProcess::Start({.args = args});
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.status().message().find("in use by another localkube"), std::string::npos)
        << again.status();
  }
  EXPECT_EQ(std::system(("rm -rf " + std::string(tmpl)).c_str()), 0);
}

TEST(SimulatedClusterFlagsTest, NodePoolFileAndBadFlags) {
  char tmpl[] = "/tmp/lk-pools-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string file = std::string(tmpl) + "/pools.yaml";
  FILE* fp = fopen(file.c_str(), "w");
  ASSERT_NE(fp, nullptr);
  fputs(R"(nodePools:
- name: h100
  count: 2
  gpus: 8
  gpuMemory: 81559
  gpuProduct: NVIDIA-H100-80GB-HBM3
  cpu: "96"
  memory: 1Ti
  labels: {kai.scheduler/node-pool: train}
  taints: [{key: dedicated, value: train, effect: NoSchedule}]
- name: cpu
  count: 1
  gpus: 0
  cpu: "32"
  maxPods: 250
)",
        fp);
  fclose(fp);
  auto p = LocalKubeProcess::Start({.args = {"--node-pools=" + file}});
  ASSERT_TRUE(p.ok()) << p.status();
  CommandResult r = (*p)->Kubectl({"get", "nodes", "-o", "name"});
  EXPECT_EQ(r.out, "node/cpu-0\nnode/h100-0\nnode/h100-1\n") << r.err;
  const std::string train_columns =
      "jsonpath={.items[*].metadata.labels.nvidia\\.com/gpu\\.family} "
      "{.items[0].spec.taints[0].key} {.items[0].status.capacity.memory}";
  r = (*p)->Kubectl({"get", "nodes", "-l", "kai.scheduler/node-pool=train", "-o", train_columns});
  EXPECT_EQ(r.out, "hopper hopper dedicated 1Ti") << r.err;
  const std::string cpu_columns =
      "jsonpath={.status.capacity.pods} {.status.capacity.nvidia\\.com/gpu} "
      "{.metadata.labels.node-role\\.kubernetes\\.io/cpu-worker}";
  r = (*p)->Kubectl({"get", "node", "cpu-0", "-o", cpu_columns});
  EXPECT_EQ(r.out, "250  true") << r.err;

  auto bad = LocalKubeProcess::Start({.args = {"--node-pools=" + std::string(tmpl) + "/nope"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--node-pools"), std::string::npos) << bad.status();
  bad = LocalKubeProcess::Start({.args = {"--nodes=1", "--node-labels=a b"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--node-labels"), std::string::npos) << bad.status();
  bad = LocalKubeProcess::Start({.args = {"--nodes=1", "--cpu=lots"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--nodes: cpu: \"lots\""), std::string::npos)
      << bad.status();
  ::unlink(file.c_str());
  ::rmdir(tmpl);

  // --controllers=false: an API server without kube-controller-manager.
  auto bare = LocalKubeProcess::Start({.args = {"--controllers=false"}});
  ASSERT_TRUE(bare.ok()) << bare.status();
  r = (*bare)->Kubectl({"create", "deployment", "d", "--image=nginx"});
  ASSERT_TRUE(r.ok()) << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ((*bare)->Kubectl({"get", "rs,pods", "-o", "name"}).out, "");
}

}  // namespace
}  // namespace kai::localkube
