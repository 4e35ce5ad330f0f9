// End to end on localkube: the kai-scheduler and kai-binder binaries schedule and bind pods that
// kubectl creates. No simulated kubelet is needed for whole GPUs; for fractional pods the test
// plays the reservation pod's part (it reports a GPU UUID on the reservation pod).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

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
    auto k = LocalKubeProcess::Start();
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
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-node
  labels: {nvidia.com/gpu.memory: "40000", nvidia.com/gpu.count: "2"}
)");
    auto st = K({"patch", "node", "gpu-node", "--subresource=status", "--type=merge", "-p",
                 R"({"status":{"allocatable":{"cpu":"16","memory":"64Gi","pods":"110",)"
                 R"("nvidia.com/gpu":"2"},"capacity":{"cpu":"16","memory":"64Gi","pods":"110",)"
                 R"("nvidia.com/gpu":"2"},"conditions":[{"type":"Ready","status":"True"}]}})"});
    ASSERT_TRUE(st.ok()) << st.err;
    const std::string dir = kube_->dir();
    scheduler_ = std::make_unique<Child>(
        std::vector<std::string>{"build/bin/kai-scheduler", "run",
                                 "--kubeconfig=" + kube_->kubeconfig_path(),
                                 "--listen-address=127.0.0.1:0", "--schedule-period=200ms"},
        dir + "/scheduler.log");
    binder_ = std::make_unique<Child>(
        std::vector<std::string>{"build/bin/kai-binder", "--kubeconfig=" + kube_->kubeconfig_path(),
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
      y += "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "-" + std::to_string(i) +
           "\n  namespace: team\n  annotations:\n    pod-group-name: " + name + "\n" +
           extra_annotations +
           "spec:\n  schedulerName: kai-scheduler\n  containers:\n  - name: main\n"
           "    image: busybox\n    resources:\n      requests: {cpu: 100m}\n";
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

TEST_F(OnlineE2eTest, WholeGpuPodIsBound) {
  Apply({"-f", "-"}, Job("train", 1, 1, 1));
  ASSERT_TRUE(WaitFor({"get", "pod", "-n", "team", "train-0", "-o", "jsonpath={.spec.nodeName}"},
                      "gpu-node"));
  EXPECT_TRUE(
      WaitFor({"get", "bindrequest", "-n", "team", "train-0", "-o", "jsonpath={.status.phase}"},
              "Succeeded"));
  auto rt = K({"get", "pod", "-n", "team", "train-0", "-o",
               "jsonpath={.metadata.annotations.received-resource-type}"});
  EXPECT_EQ(rt.out, "Regular");
  EXPECT_TRUE(scheduler_->alive());
  EXPECT_TRUE(binder_->alive());
}

TEST_F(OnlineE2eTest, GangThatCannotFitBindsNothingAndSaysWhy) {
  Apply({"-f", "-"}, Job("big", 2, 2, 2));  // 4 GPUs wanted, 2 exist
  ASSERT_TRUE(WaitFor({"get", "podgroup", "-n", "team", "big", "-o",
                       "jsonpath={.status.schedulingConditions[0].type}"},
                      "UnschedulableOnNodePool"));
  for (const char* p : {"big-0", "big-1"}) {
    EXPECT_EQ(K({"get", "pod", "-n", "team", p, "-o", "jsonpath={.spec.nodeName}"}).out, "");
  }
  EXPECT_TRUE(WaitFor({"get", "pod", "-n", "team", "big-0", "-o",
                       "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].reason}"},
                      "Unschedulable"));
}

TEST_F(OnlineE2eTest, FractionalPodGetsAReservationAndItsGpu) {
  Apply({"-f", "-"}, Job("frac", 1, 0, 1,
                         "    gpu-fraction: \"0.5\"\n"
                         "    runai/shared-gpu-configmap: frac-0-abcdefg-shared-gpu\n"));
  // Play the reservation pod: report a GPU UUID once it exists.
  std::string reservation;
  for (int i = 0; i < 600 && reservation.empty(); ++i) {
    auto r = K({"get", "pods", "-n", "kai-resource-reservation", "-o",
                "jsonpath={.items[0].metadata.name}"});
    if (r.ok()) reservation = r.out;
    if (reservation.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(reservation.empty()) << "no reservation pod";
  auto a = K({"annotate", "pod", "-n", "kai-resource-reservation", reservation,
              "run.ai/reserve_for_gpu_index=GPU-e2e-0"});
  ASSERT_TRUE(a.ok()) << a.err;
  ASSERT_TRUE(WaitFor({"get", "pod", "-n", "team", "frac-0", "-o", "jsonpath={.spec.nodeName}"},
                      "gpu-node"));
  EXPECT_EQ(K({"get", "configmap", "-n", "team", "frac-0-abcdefg-shared-gpu-0", "-o",
               "jsonpath={.data.GPU_PORTION}"})
                .out,
            "0.50");
  EXPECT_EQ(K({"get", "configmap", "-n", "team", "frac-0-abcdefg-shared-gpu-0-evar", "-o",
               "jsonpath={.data.NVIDIA_VISIBLE_DEVICES}"})
                .out,
            "GPU-e2e-0");
  EXPECT_FALSE(
      K({"get", "pod", "-n", "team", "frac-0", "-o", "jsonpath={.metadata.labels.runai-gpu-group}"})
          .out.empty());
}

}  // namespace
}  // namespace kai
