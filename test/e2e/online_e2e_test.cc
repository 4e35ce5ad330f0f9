// End to end on localkube with two simulated GPU nodes (2 GPUs each, a simulated kubelet that
// runs bound pods and gives reservation pods their GPU UUID): the kai-scheduler and kai-binder
// binaries schedule and bind pods that kubectl creates.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/strings.h"
#include "kube/testing/binaries.h"
#include "test/localkube/testing/localkube_process.h"

extern char** environ;

namespace kai {
namespace {

using localkube::testing::CommandResult;
using localkube::testing::LocalKubeProcess;

// A child process, stopped with SIGTERM (then SIGKILL) when destroyed.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& log_path) {
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    ok_ = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Child() {
    if (!ok_) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  bool ok() const { return ok_; }
  // Still running.
  bool alive() const {
    int status = 0;
    return ok_ && waitpid(pid_, &status, WNOHANG) == 0;
  }

 private:
  pid_t pid_ = -1;
  bool ok_ = false;
};

class OnlineE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto k =
        LocalKubeProcess::Start({.args = {"--nodes=2", "--gpus-per-node=2", "--gpu-memory=40000"}});
    ASSERT_TRUE(k.ok()) << k.status();
    kube_ = std::move(*k);
    Apply({"-f", "crds/"});
    Apply({"-f", "-"}, R"(apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Namespace
metadata: {name: kai-resource-reservation}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec:
  resources:
    gpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
)");
    const std::string dir = kube_->dir();
    scheduler_ = std::make_unique<Child>(
        std::vector<std::string>{kai::testing::KaiBinary("kai-scheduler"), "run",
                                 "--kubeconfig=" + kube_->kubeconfig_path(),
                                 "--listen-address=127.0.0.1:0", "--plugin-server-port=0",
                                 "--schedule-period=200ms"},
        dir + "/scheduler.log");
    binder_ = std::make_unique<Child>(
        std::vector<std::string>{kai::testing::KaiBinary("kai-binder"),
                                 "--kubeconfig=" + kube_->kubeconfig_path(),
                                 "--metrics-bind-address=0", "--health-probe-bind-address=0"},
        dir + "/binder.log");
    ASSERT_TRUE(scheduler_->ok() && binder_->ok());
  }
  void TearDown() override {
    if (HasFailure() && kube_) {
      for (const char* log : {"/scheduler.log", "/binder.log"}) {
        auto r =
            localkube::testing::RunCommand({"tail", "-n", "40", kube_->dir() + log}, {}, "", 10);
        std::cerr << "---- " << log << "\n" << r.out;
      }
    }
    binder_.reset();
    scheduler_.reset();
    kube_.reset();
  }

  CommandResult K(const std::vector<std::string>& args, std::string_view in = "") {
    return kube_->Kubectl(args, in);
  }
  void Apply(std::vector<std::string> args, std::string_view in = "") {
    args.insert(args.begin(), "apply");
    auto r = K(args, in);
    ASSERT_TRUE(r.ok()) << r.err;
  }
  // Polls a jsonpath of an object until it equals `want` (up to `seconds`).
  bool WaitFor(const std::vector<std::string>& get, const std::string& want, int seconds = 60) {
    for (int i = 0; i < seconds * 10; ++i) {
      auto r = K(get);
      if (r.ok() && r.out == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  static std::string Job(const std::string& name, int pods, int gpus, int min_member,
                         const std::string& extra_annotations = "") {
    std::string y =
        "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: " + name +
        ", namespace: team}\nspec: {minMember: " + std::to_string(min_member) + ", queue: q}\n";
    for (int i = 0; i < pods; ++i) {
      y += StrCat("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ", name, "-",
                  std::to_string(i),
                  "\n  namespace: team\n  annotations:\n    pod-group-name: ", name, "\n",
                  extra_annotations,
                  "spec:\n  schedulerName: kai-scheduler\n  containers:\n  - name: main\n"
                  "    image: busybox\n    resources:\n      requests: {cpu: 100m}\n");
      if (gpus > 0) {
        y += "      limits: {nvidia.com/gpu: \"" + std::to_string(gpus) + "\"}\n";
      }
    }
    return y;
  }

  std::unique_ptr<LocalKubeProcess> kube_;
  std::unique_ptr<Child> scheduler_;
  std::unique_ptr<Child> binder_;
};

// The node a pod is bound to ("" while unbound).
#define NODE_OF(pod) K({"get", "pod", "-n", "team", pod, "-o", "jsonpath={.spec.nodeName}"}).out

TEST_F(OnlineE2eTest, WholeGpuPodIsBoundAndRuns) {
  Apply({"-f", "-"}, Job("train", 1, 1, 1));
  ASSERT_TRUE(WaitFor({"get", "pod", "-n", "team", "train-0", "-o", "jsonpath={.status.phase}"},
                      "Running"));
  std::string node = NODE_OF("train-0");
  EXPECT_TRUE(node == "node-0" || node == "node-1") << node;
  EXPECT_TRUE(
      WaitFor({"get", "bindrequest", "-n", "team", "train-0", "-o", "jsonpath={.status.phase}"},
              "Succeeded"));
  EXPECT_EQ(K({"get", "bindrequest", "-n", "team", "train-0", "-o",
               "jsonpath={.metadata.labels.selected-node}"})
                .out,
            node);
  EXPECT_EQ(K({"get", "pod", "-n", "team", "train-0", "-o",
               "jsonpath={.metadata.annotations.received-resource-type}"})
                .out,
            "Regular");
  EXPECT_TRUE(scheduler_->alive());
  EXPECT_TRUE(binder_->alive());
}

TEST_F(OnlineE2eTest, GangThatFitsIsBoundWhole) {
  Apply({"-f", "-"}, Job("gang", 4, 1, 4));  // exactly the 4 GPUs of the cluster
  for (const char* p : {"gang-0", "gang-1", "gang-2", "gang-3"}) {
    ASSERT_TRUE(
        WaitFor({"get", "pod", "-n", "team", p, "-o", "jsonpath={.status.phase}"}, "Running"))
        << p;
  }
}

TEST_F(OnlineE2eTest, GangThatCannotFitBindsNothingAndSaysWhy) {
  Apply({"-f", "-"}, Job("big", 3, 2, 3));  // 6 GPUs wanted, 4 exist
  ASSERT_TRUE(WaitFor({"get", "podgroup", "-n", "team", "big", "-o",
                       "jsonpath={.status.schedulingConditions[0].type}"},
                      "UnschedulableOnNodePool"));
  for (const char* p : {"big-0", "big-1", "big-2"}) EXPECT_EQ(NODE_OF(p), "") << p;
  EXPECT_TRUE(WaitFor({"get", "pod", "-n", "team", "big-0", "-o",
                       "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].reason}"},
                      "Unschedulable"));
  auto events = K({"get", "events", "-n", "team", "--field-selector", "involvedObject.name=big",
                   "-o", "jsonpath={.items[*].reason}"});
  EXPECT_NE(events.out.find("Unschedulable"), std::string::npos) << events.out;
}

TEST_F(OnlineE2eTest, FractionalPodsShareOneReservedGpu) {
  // What the admission webhook adds: a per-pod ConfigMap name prefix.
  for (const char* job : {"fa", "fb"}) {
    Apply({"-f", "-"}, Job(job, 1, 0, 1,
                           std::string("    gpu-fraction: \"0.5\"\n"
                                       "    runai/shared-gpu-configmap: ") +
                               job + "-abcdefg-shared-gpu\n"));
  }
  for (const char* p : {"fa-0", "fb-0"}) {
    ASSERT_TRUE(
        WaitFor({"get", "pod", "-n", "team", p, "-o", "jsonpath={.status.phase}"}, "Running"))
        << p;
  }
  // Both halves on one GPU (GPU bin packing), held by one reservation pod whose UUID the pods
  // see in NVIDIA_VISIBLE_DEVICES.
  EXPECT_EQ(NODE_OF("fa-0"), NODE_OF("fb-0"));
  auto uuids = K({"get", "pods", "-n", "kai-resource-reservation", "-o",
                  "jsonpath={.items[*].metadata.annotations.run\\.ai/reserve_for_gpu_index}"});
  ASSERT_TRUE(uuids.ok()) << uuids.err;
  EXPECT_EQ(uuids.out.find(' '), std::string::npos) << uuids.out;  // exactly one
  EXPECT_EQ(uuids.out.rfind("GPU-" + NODE_OF("fa-0") + "-", 0), 0u) << uuids.out;
  std::string group =
      K({"get", "pod", "-n", "team", "fa-0", "-o", "jsonpath={.metadata.labels.runai-gpu-group}"})
          .out;
  EXPECT_FALSE(group.empty());
  EXPECT_EQ(
      K({"get", "pod", "-n", "team", "fb-0", "-o", "jsonpath={.metadata.labels.runai-gpu-group}"})
          .out,
      group);
  for (const char* job : {"fa", "fb"}) {
    std::string cm = std::string(job) + "-abcdefg-shared-gpu-0";
    EXPECT_EQ(K({"get", "configmap", "-n", "team", cm, "-o", "jsonpath={.data.GPU_PORTION}"}).out,
              "0.50");
    EXPECT_EQ(K({"get", "configmap", "-n", "team", cm + "-evar", "-o",
                 "jsonpath={.data.NVIDIA_VISIBLE_DEVICES}"})
                  .out,
              uuids.out);
  }
  // Both pods finish: the GPU is released (the reservation pod goes).
  for (const char* p : {"fa-0", "fb-0"}) {
    ASSERT_TRUE(K({"delete", "pod", "-n", "team", p, "--grace-period=1", "--wait=false"}).ok());
  }
  EXPECT_TRUE(WaitFor({"get", "pods", "-n", "kai-resource-reservation", "-o", "name"}, ""));
}

}  // namespace
}  // namespace kai
