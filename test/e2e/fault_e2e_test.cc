// End to end on localkube under faults (issue 6): the binder killed between binding and its
// status update, the scheduler killed mid-cycle, injected 500s and 409s, dropped watches and
// expired watch history, localkube itself stopped (SIGTERM) or crashed (SIGKILL) while pods are
// being bound and restarted from its --data-dir; and leader election between two schedulers. After
// each: no pod bound twice, no node's GPUs over-committed, no gang below its minimum, and every pod
// scheduled since the capacity allows it.
#include <atomic>

#include "test/e2e/e2e_cluster.h"

namespace kai::e2e {
namespace {

class FaultE2eTest : public E2eCluster {
 protected:
  // 2 nodes x 4 GPUs and a workload that fills them over two queues: two gangs of 2 in q and 4
  // bare pods in default-queue (no queue label).
  void SetUpCluster() { StartCluster(2, 4, Queue("q", -1) + Queue("default-queue", -1)); }
  static std::string Workload() {
    std::string y = Gang("g1", "q", 2, 1, 2) + Gang("g2", "q", 2, 1, 2);
    for (int i = 0; i < 4; ++i) y += Pod("solo-" + std::to_string(i), PodSpec{});
    return y;
  }
  static std::vector<std::string> WorkloadPods() {
    return {"g1-0", "g1-1", "g2-0", "g2-1", "solo-0", "solo-1", "solo-2", "solo-3"};
  }
  bool AllBindRequestsSucceeded() {
    auto r = K({"get", "bindrequests", "-n", "team", "-o",
                "jsonpath={range .items[*]}{.metadata.name} _{.status.phase}{\"\\n\"}{end}"});
    if (!r.ok()) return false;
    for (const auto& line : Lines(r.out)) {
      auto f = Fields(line);
      if (f.size() != 2 || f[1] != "_Succeeded") return false;
    }
    return true;
  }
  void FaultRule(const std::string& rule) { Control("/localkube/faults", rule); }

  // Stops localkube with `signal` while the scheduler is creating BindRequests and the binder is
  // binding, restarts it on the same port from its --data-dir, and checks that the scheduler and
  // the binder (which never restart) reconnect, relist and finish the workload.
  void RestartLocalkubeMidBinding(int signal) {
    char tmpl[] = "/tmp/kai-e2e-data-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    data_dir_ = tmpl;
    StartCluster(2, 4, Queue("q", -1) + Queue("default-queue", -1),
                 {"--data-dir=" + data_dir_ + "/data"});
    // Decisions and bindings are slowed so the stop lands in the middle: each BindRequest
    // creation takes 600 ms (the scheduler writes them two at a time) and each binding 300 ms.
    FaultRule(R"({"verb":"create","resource":"bindrequests","latencyMs":600,"count":-1})");
    FaultRule(R"({"verb":"create","resource":"pods/binding","latencyMs":300,"count":-1})");
    Child* scheduler = StartScheduler({"--bind-request-workers=2"});
    Child* binder = StartBinder();
    // Whole-GPU pods, two gangs and a fractional pod: 7 whole GPUs and a shared one.
    std::string y = Gang("g1", "q", 2, 1, 2) + Gang("g2", "q", 2, 1, 2);
    for (int i = 0; i < 3; ++i) y += Pod("solo-" + std::to_string(i), PodSpec{.queue = "q"});
    y += Pod("frac",
             PodSpec{.queue = "q",
                     .gpus = 0,
                     .annotations = "    gpu-fraction: \"0.5\"\n"
                                    "    runai/shared-gpu-configmap: frac-abcdefg-shared-gpu\n"});
    Apply(y);
    const std::vector<std::string> pods = {"g1-0",   "g1-1",   "g2-0",   "g2-1",
                                           "solo-0", "solo-1", "solo-2", "frac"};
    int bound_before = 0;
    ASSERT_TRUE(Eventually(
        [&] {
          bound_before = 0;
          for (const auto& [k, p] : Pods()) bound_before += p.node.empty() ? 0 : 1;
          return bound_before >= 2;
        },
        30));
    const size_t decided_before =
        Lines(K({"get", "bindrequests", "-n", "team", "-o", "name"}).out).size();
    ASSERT_TRUE(kube_->Stop(signal).ok());
    EXPECT_LT(decided_before, pods.size()) << "the stop came after the last decision";
    EXPECT_LT(bound_before, static_cast<int>(pods.size())) << "the stop came after the binding";
    // Down for a while: the components' requests and watches fail and are retried.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ASSERT_TRUE(kube_->Restart().ok());
    ASSERT_TRUE(Eventually([&] { return AllRunning(pods); }, 60))
        << K({"get", "pods", "-A", "-o", "wide"}).out
        << K({"get", "bindrequests", "-A", "-o", "yaml"}).out;
    EXPECT_TRUE(Eventually([&] { return AllBindRequestsSucceeded(); }));
    EXPECT_TRUE(scheduler->alive());
    EXPECT_TRUE(binder->alive());
    // Exactly one reservation pod holds the shared GPU.
    EXPECT_EQ(Lines(K({"get", "pods", "-n", "kai-resource-reservation", "-o", "name"}).out).size(),
              1u);
    CheckInvariants();
  }

  void TearDown() override {
    E2eCluster::TearDown();
    if (!data_dir_.empty()) localkube::testing::RunCommand({"rm", "-rf", data_dir_}, {}, "", 30);
  }

  std::string data_dir_;
};

TEST_F(FaultE2eTest, BinderKilledBetweenBindingAndStatusUpdate) {
  SetUpCluster();
  // Every BindRequest status write fails: the binder binds, then cannot record it.
  FaultRule(R"({"verb":"patch","resource":"bindrequests/status","code":500,"count":-1})");
  StartScheduler();
  Child* binder = StartBinder();
  Apply(Workload());
  ASSERT_TRUE(Eventually([&] {
    int bound = 0;
    for (const auto& [k, p] : Pods()) bound += p.node.empty() ? 0 : 1;
    return bound >= 3;
  }));
  EXPECT_FALSE(AllBindRequestsSucceeded());
  binder->Kill();
  Control("/localkube/faults/clear");
  StartBinder("binder2");
  ASSERT_TRUE(Eventually([&] { return AllRunning(WorkloadPods()); }));
  EXPECT_TRUE(Eventually([&] { return AllBindRequestsSucceeded(); }));
  CheckInvariants();
}

TEST_F(FaultE2eTest, SchedulerKilledMidCycle) {
  SetUpCluster();
  // Each BindRequest creation takes 800 ms, two at a time: a cycle deciding 8 pods lasts over
  // 3 s, and the kill lands inside it, with creations in flight.
  FaultRule(R"({"verb":"create","resource":"bindrequests","latencyMs":800,"count":-1})");
  Child* scheduler = StartScheduler({"--bind-request-workers=2"});
  StartBinder();
  Apply(Workload());
  ASSERT_TRUE(Eventually(
      [&] {
        auto r = K({"get", "bindrequests", "-n", "team", "-o", "name"});
        return !Lines(r.out).empty();
      },
      30));
  scheduler->Kill();
  const size_t decided_before =
      Lines(K({"get", "bindrequests", "-n", "team", "-o", "name"}).out).size();
  EXPECT_LT(decided_before, WorkloadPods().size()) << "the kill came after the cycle";
  Control("/localkube/faults/clear");
  StartScheduler({}, "scheduler2");
  ASSERT_TRUE(Eventually([&] { return AllRunning(WorkloadPods()); }));
  CheckInvariants();
}

TEST_F(FaultE2eTest, Injected500sAnd409s) {
  SetUpCluster();
  const std::vector<const char*> rules = {
      R"({"verb":"create","resource":"bindrequests","code":500,"count":3})",
      R"({"verb":"create","resource":"pods/binding","code":409,"count":2})",
      R"({"verb":"create","resource":"pods/binding","code":500,"count":1})",
      R"({"verb":"patch","resource":"bindrequests/status","code":500,"count":2})",
      R"({"verb":"patch","resource":"podgroups/status","code":409,"count":2})",
      R"({"verb":"patch","resource":"pods/status","code":500,"count":3})",
      R"({"verb":"get","resource":"pods","code":500,"count":2})",
      R"({"verb":"list","resource":"bindrequests","code":500,"count":2})",
  };
  // The gang that cannot fit yet writes its condition (through the 409s).
  Apply(Workload() + Gang("big", "q", 3, 4, 3));  // 12 GPUs: never fits
  // The faults are for the scheduler and the binder: they start after kubectl is done.
  for (const char* rule : rules) FaultRule(rule);
  StartScheduler();
  StartBinder();
  ASSERT_TRUE(Eventually([&] { return AllRunning(WorkloadPods()); }));
  EXPECT_TRUE(Eventually([&] {
    return K({"get", "podgroup", "-n", "team", "big", "-o",
              "jsonpath={.status.schedulingConditions[0].type}"})
               .out == "UnschedulableOnNodePool";
  }));
  EXPECT_EQ(K({"get", "--raw", "/localkube/faults"}).out.find("\"count\":"), std::string::npos)
      << "some faults never fired: " << K({"get", "--raw", "/localkube/faults"}).out;
  EXPECT_TRUE(Eventually([&] { return AllBindRequestsSucceeded(); }));
  CheckInvariants();
}

TEST_F(FaultE2eTest, DroppedWatchesAndExpiredHistory) {
  SetUpCluster();
  StartScheduler();
  StartBinder();
  std::atomic<bool> stop{false};
  std::thread chaos([&] {
    for (int i = 0; !stop.load(); ++i) {
      kube_->Request("POST", i % 3 == 2 ? "/localkube/history/compact" : "/localkube/watches/drop");
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  });
  Apply(Workload());
  bool all = Eventually([&] { return AllRunning(WorkloadPods()); });
  // Deletions seen through relists free capacity for new pods.
  bool replaced = false;
  if (all) {
    EXPECT_TRUE(K({"delete", "pod", "-n", "team", "solo-0", "solo-1", "--wait=false"}).ok());
    Apply(Pod("late-0", PodSpec{}) + Pod("late-1", PodSpec{}));
    replaced = Eventually([&] { return AllRunning({"late-0", "late-1"}); });
  }
  stop = true;
  chaos.join();
  ASSERT_TRUE(all);
  EXPECT_TRUE(replaced);
  CheckInvariants();
}

TEST_F(FaultE2eTest, LocalkubeStoppedMidBindingAndRestarted) {
  RestartLocalkubeMidBinding(SIGTERM);
}

TEST_F(FaultE2eTest, LocalkubeCrashedMidBindingAndRestarted) {
  RestartLocalkubeMidBinding(SIGKILL);
}

TEST_F(FaultE2eTest, LeaderElectionOneActsTheOtherTakesOver) {
  SetUpCluster();
  Child* first = StartScheduler({"--leader-elect"}, "scheduler-a");
  ASSERT_TRUE(Eventually([&] { return LogContains(first, "became leader"); }, 30));
  Child* second = StartScheduler({"--leader-elect"}, "scheduler-b");
  StartBinder();
  Apply(Pod("one", PodSpec{}));
  ASSERT_TRUE(Eventually([&] { return AllRunning({"one"}); }));
  const std::string holder = K({"get", "lease", "-n", "kai-scheduler", "kai-scheduler", "-o",
                                "jsonpath={.spec.holderIdentity}"})
                                 .out;
  EXPECT_FALSE(holder.empty());
  EXPECT_FALSE(LogContains(second, "became leader"));  // one acts

  first->Kill();  // no lease release: the other waits for the lease to expire (15 s)
  Apply(Pod("two", PodSpec{}));
  ASSERT_TRUE(Eventually([&] { return AllRunning({"two"}); }, 50));
  EXPECT_TRUE(LogContains(second, "became leader"));
  EXPECT_NE(K({"get", "lease", "-n", "kai-scheduler", "kai-scheduler", "-o",
               "jsonpath={.spec.holderIdentity}"})
                .out,
            holder);
  CheckInvariants();
}

}  // namespace
}  // namespace kai::e2e
