// The proportion plugin on a session built by hand (no snapshot loader needed).
#include "scheduler/plugins/proportion/proportion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kube/base/fake_clock.h"
#include "kube/base/random.h"

namespace kai::scheduler {
namespace {

namespace p = ::kai::proportion;

class NullSink final : public DecisionSink {
 public:
  Status Bind(const BindDecision&) override { return Status::OK(); }
  Status Evict(const EvictDecision&) override { return Status::OK(); }
  void Pipelined(const PipelineDecision&) override {}
};

WallTime Minute(int m) { return WallTime{} + std::chrono::hours(500000) + std::chrono::minutes(m); }

// Builds a ClusterInfo piece by piece.
class ClusterBuilder {
 public:
  ClusterBuilder() : c_(std::make_unique<ClusterInfo>()) {}

  ClusterBuilder& Queue(const std::string& name, const std::string& parent, api::QueueResources r,
                        int priority = api::kDefaultQueuePriority, int created = 0,
                        const std::string& display_name = "") {
    auto q = std::make_shared<api::Queue>();
    q->metadata.name = name;
    q->metadata.creation_timestamp = Minute(created);
    q->spec.parent_queue = parent;
    q->spec.resources = r;
    q->spec.priority = priority;
    q->spec.display_name = display_name;
    c_->queues[name] = std::make_unique<QueueInfo>(q);
    return *this;
  }

  ClusterBuilder& Node(const std::string& name, double gpus, bool ready = true,
                       std::map<std::string, std::string> labels = {}) {
    auto n = std::make_shared<api::Node>();
    n->metadata.name = name;
    n->metadata.labels = std::move(labels);
    NodeFacts facts;
    facts.ready = ready;
    ResourceVector alloc(c_->vector_map->size());
    alloc.Set(kCpuIndex, 64000);
    alloc.Set(kMemoryIndex, 256e9);
    alloc.Set(kGpuIndex, gpus);
    alloc.Set(kPodsIndex, 110);
    auto info = std::make_unique<NodeInfo>(n, facts, c_->vector_map.get(), alloc);
    c_->node_list.push_back(info.get());
    c_->nodes[name] = std::move(info);
    return *this;
  }

  // A job of `tasks` pods in `queue`; `running` of them run on `node`.
  ClusterBuilder& Job(const std::string& name, const std::string& queue, int tasks, int running,
                      double gpus_per_task, double cpu_per_task = 1000, int32_t priority = 50,
                      const std::string& node = "n0",
                      const std::string& scheduler = "kai-scheduler", int64_t gpu_memory = 0,
                      int32_t min_member = -1) {
    auto pg = std::make_shared<api::PodGroup>();
    pg->metadata.name = name;
    pg->metadata.namespace_ = "ns";
    pg->spec.queue = queue;
    pg->spec.min_member = min_member < 0 ? tasks : min_member;
    std::string error;
    auto job = std::make_unique<PodGroupInfo>(pg, priority, &error);
    EXPECT_TRUE(error.empty()) << error;
    for (int i = 0; i < tasks; ++i) {
      auto pod = std::make_shared<api::Pod>();
      pod->metadata.name = name + "-" + std::to_string(i);
      pod->metadata.namespace_ = "ns";
      pod->metadata.annotations["pod-group-name"] = name;
      pod->spec.scheduler_name = scheduler;
      const bool run = i < running;
      if (run) {
        pod->spec.node_name = node;
        pod->status.phase = "Running";
      } else {
        pod->status.phase = "Pending";
      }
      PodRequirements req;
      req.requests["cpu"] = cpu_per_task;
      req.requests["memory"] = 1e9;
      if (gpu_memory > 0) {
        req.gpu = GpuRequirement::WithGpus(0, gpu_memory);
        req.request_type = ResourceRequestType::kGpuMemory;
      } else {
        req.gpu = GpuRequirement::WithGpus(gpus_per_task, 0);
        if (gpus_per_task > 0 && gpus_per_task < 1)
          req.request_type = ResourceRequestType::kFraction;
      }
      auto task = std::make_unique<PodInfo>(pod, req, *c_->vector_map);
      task->of_other_scheduler = scheduler != "kai-scheduler";  // as the snapshot builder sets it
      if (run) c_->nodes.at(node)->AddTask(task.get());
      if (scheduler == "kai-scheduler") job->AddTask(task.get());
      // ClusterInfo keeps its (non-reservation) tasks in key order.
      auto at = std::lower_bound(
          c_->tasks.begin(), c_->tasks.end(), task->key(),
          [](const std::unique_ptr<PodInfo>& t, const std::string& k) { return t->key() < k; });
      c_->tasks.insert(at, std::move(task));
    }
    if (scheduler == "kai-scheduler") c_->jobs[job->uid()] = std::move(job);
    return *this;
  }

  std::unique_ptr<ClusterInfo> Build() {
    for (auto& [uid, q] : c_->queues) {
      if (!q->parent().empty()) {
        if (QueueInfo* parent = c_->FindQueue(q->parent()))
          parent->mutable_children().push_back(uid);
      }
    }
    return std::move(c_);
  }
  ClusterInfo* raw() { return c_.get(); }

 private:
  std::unique_ptr<ClusterInfo> c_;
};

api::QueueResources Gpu(double quota, double limit = -1, double weight = 1) {
  api::QueueResources r;
  r.gpu = {quota, weight, limit};
  r.cpu = {-1, 1, -1};
  r.memory = {-1, 1, -1};
  return r;
}

class ProportionPluginTest : public ::testing::Test {
 protected:
  std::unique_ptr<Session> Open(std::unique_ptr<ClusterInfo> cluster, PluginArguments args = {},
                                const SchedulerParams& params = {}) {
    SchedulerConfiguration conf;
    conf.plugins.push_back({"proportion", std::move(args)});
    registry_.Register("proportion", NewProportionPlugin);
    auto ssn = std::make_unique<Session>("s1", std::move(cluster), conf, params, &sink_, &clock_,
                                         &random_);
    ssn->Open(registry_);
    return ssn;
  }
  static ProportionPlugin& Plugin(Session& ssn) {
    return *static_cast<ProportionPlugin*>(ssn.FindPlugin("proportion"));
  }
  static const p::QueueAttributes& Q(Session& ssn, const std::string& uid) {
    const p::QueueTable& t = Plugin(ssn).queues();
    return t[t.Find(uid)];
  }

  PluginRegistry registry_;
  NullSink sink_;
  FakeClock clock_;
  SeededRandom random_{1};
};

TEST_F(ProportionPluginTest, TotalsFairSharesAndAccounting) {
  ClusterBuilder b;
  b.Queue("default", "", Gpu(-1, -1, -1))
      .Queue("q0", "default", Gpu(1), 100, 1)
      .Queue("q1", "default", Gpu(1), 100, 2)
      .Node("n0", 4)
      .Node("n1", 4, /*ready=*/false)
      // Another scheduler's pod holds one GPU of n0.
      .Job("foreign", "q0", 1, 1, 1, 1000, 50, "n0", "default-scheduler")
      .Job("a", "q0", 3, 2, 1)
      .Job("b", "q1", 2, 0, 1, 1000, 100);  // priority 100: non-preemptible
  auto ssn = Open(b.Build());
  ProportionPlugin& plugin = Plugin(*ssn);
  EXPECT_EQ(plugin.total_resources().gpu(), 3);
  EXPECT_EQ(plugin.total_resources().cpu(), 64000 - 1000);

  EXPECT_EQ(Q(*ssn, "default").share(p::ResourceName::kGpu).fair_share, 3);
  // q0: quota 1 + 1 over quota (needs 3); q1: quota 1 (needs 2). The remaining GPU goes to the
  // queue created first.
  EXPECT_EQ(Q(*ssn, "q0").share(p::ResourceName::kGpu).fair_share, 2);
  EXPECT_EQ(Q(*ssn, "q1").share(p::ResourceName::kGpu).fair_share, 1);

  EXPECT_EQ(Q(*ssn, "q0").Allocated().gpu(), 2);
  EXPECT_EQ(Q(*ssn, "q0").Request().gpu(), 3);
  EXPECT_EQ(Q(*ssn, "q1").Request().gpu(), 2);
  EXPECT_EQ(Q(*ssn, "default").Allocated().gpu(), 2);
  EXPECT_EQ(Q(*ssn, "default").Request().gpu(), 5);
  EXPECT_EQ(Q(*ssn, "default").AllocatedNonPreemptible().gpu(), 0);

  // Session hooks.
  const QueueInfo& q0 = *ssn->cluster().FindQueue("q0");
  EXPECT_EQ(ssn->QueueFairShare(q0)->gpu, 2);
  EXPECT_EQ(ssn->QueueAllocated(q0)->gpu, 2);
  EXPECT_EQ(ssn->QueueDeserved(q0)->gpu, 1);

  // Allocate / deallocate events follow the statement.
  PodInfo* pending = ssn->cluster().FindTask("ns/a-2");
  ASSERT_NE(pending, nullptr);
  pending->accepted = pending->res_req;
  ssn->FireAllocate(*pending);
  EXPECT_EQ(Q(*ssn, "q0").Allocated().gpu(), 3);
  EXPECT_EQ(Q(*ssn, "default").Allocated().gpu(), 3);
  ssn->FireDeallocate(*pending);
  EXPECT_EQ(Q(*ssn, "q0").Allocated().gpu(), 2);

  PodInfo* np = ssn->cluster().FindTask("ns/b-0");
  np->accepted = np->res_req;
  ssn->FireAllocate(*np);
  EXPECT_EQ(Q(*ssn, "q1").AllocatedNonPreemptible().gpu(), 1);
  EXPECT_EQ(Q(*ssn, "default").AllocatedNonPreemptible().gpu(), 1);
}

TEST_F(ProportionPluginTest, RestrictNodeSchedulingCountsOnlyGpuWorkers) {
  ClusterBuilder b;
  b.Queue("q", "", Gpu(-1))
      .Node("gpu-worker", 4, true, {{"node-role.kubernetes.io/gpu-worker", "true"}})
      .Node("plain", 8);
  SchedulerParams params;
  params.restrict_node_scheduling = true;
  auto ssn = Open(b.Build(), {}, params);
  EXPECT_EQ(Plugin(*ssn).total_resources().gpu(), 4);
}

TEST_F(ProportionPluginTest, CapacityChecksBecomeUnschedulableResults) {
  ClusterBuilder b;
  b.Queue("dep", "", Gpu(4, 6), 100, 0, "Department")
      .Queue("team", "dep", Gpu(2, 3), 100, 1, "Team")
      .Node("n0", 8)
      .Job("running", "team", 2, 2, 1)
      .Job("big", "team", 2, 0, 1)
      .Job("interactive", "team", 1, 0, 1, 1000, 100);
  auto ssn = Open(b.Build());
  const PodGroupInfo& big = *ssn->cluster().FindJob("ns/big");
  SchedulableResult r = ssn->IsJobOverQueueCapacity(big, big.PendingTasks());
  ASSERT_FALSE(r.schedulable);
  EXPECT_EQ(r.reason, "OverLimit");
  EXPECT_EQ(r.message,
            "Team quota has reached the allowable limit of GPUs. Limit is 3 GPUs, currently 2 "
            "GPUs allocated and workload requested 2 GPUs");
  ASSERT_TRUE(r.details.has_value());
  EXPECT_EQ(r.details->name, "team");
  EXPECT_EQ(r.details->limits.at("gpu"), 3);

  const PodGroupInfo& interactive = *ssn->cluster().FindJob("ns/interactive");
  SchedulableResult np =
      ssn->IsNonPreemptibleJobOverQueueQuota(interactive, interactive.PendingTasks());
  EXPECT_TRUE(np.schedulable);  // 0 non-preemptible allocated + 1 <= quota 2

  std::vector<PodInfo*> one = {big.PendingTasks().front()};
  EXPECT_TRUE(ssn->IsJobOverQueueCapacity(big, one).schedulable);
  EXPECT_TRUE(
      ssn->IsTaskAllocationOnNodeOverCapacity(*one.front(), big, *ssn->cluster().FindNode("n0"))
          .schedulable);
}

TEST_F(ProportionPluginTest, GpuMemoryRequestsCountWithMinNodeGpuMemory) {
  ClusterBuilder b;
  b.Queue("q", "", Gpu(-1))
      .Node("n0", 4)
      .Job("mem", "q", 1, 0, 0, 1000, 50, "n0", "kai-scheduler",
           /*gpu_memory=*/2000);
  b.raw()->min_node_gpu_memory = 4000;
  auto ssn = Open(b.Build());
  EXPECT_DOUBLE_EQ(Q(*ssn, "q").Request().gpu(), 0.5);
}

TEST_F(ProportionPluginTest, QueueOrderAndReclaimPreCheck) {
  ClusterBuilder b;
  b.Queue("default", "", Gpu(-1, -1, -1))
      .Queue("starved", "default", Gpu(2), 100, 1)
      .Queue("greedy", "default", Gpu(0), 100, 2)
      .Node("n0", 4)
      .Job("hog", "greedy", 4, 4, 1)
      .Job("want", "starved", 1, 0, 1)
      .Job("more", "greedy", 1, 0, 1);
  auto ssn = Open(b.Build());
  const QueueInfo& starved = *ssn->cluster().FindQueue("starved");
  const QueueInfo& greedy = *ssn->cluster().FindQueue("greedy");
  const PodGroupInfo* want = ssn->cluster().FindJob("ns/want");
  const PodGroupInfo* more = ssn->cluster().FindJob("ns/more");
  EXPECT_TRUE(ssn->QueueOrderLess(starved, greedy, want, more, {}, {}));
  EXPECT_FALSE(ssn->QueueOrderLess(greedy, starved, more, want, {}, {}));
  EXPECT_TRUE(ssn->CanReclaimResources(*want));
  EXPECT_FALSE(ssn->CanReclaimResources(*more));  // greedy is already above its fair share
}

// A victim scenario as the solver presents it.
class FakeScenario final : public ScenarioInfo {
 public:
  FakeScenario(const PodGroupInfo* preemptor, std::map<PodGroupId, VictimInfo> victims)
      : preemptor_(preemptor), victims_(std::move(victims)) {}
  const PodGroupInfo& GetPreemptor() const override { return *preemptor_; }
  const std::map<PodGroupId, VictimInfo>& GetVictims() const override { return victims_; }
  const std::vector<PodInfo*>& PendingTasks() const override { return pending_; }

 private:
  const PodGroupInfo* preemptor_;
  std::map<PodGroupId, VictimInfo> victims_;
  std::vector<PodInfo*> pending_;
};

TEST_F(ProportionPluginTest, ReclaimScenarioValidator) {
  ClusterBuilder b;
  b.Queue("default", "", Gpu(-1, -1, -1))
      .Queue("starved", "default", Gpu(1), 100, 1)
      .Queue("greedy", "default", Gpu(0), 100, 2)
      .Node("n0", 4)
      .Job("hog", "greedy", 4, 4, 1, 1000, 50, "n0", "kai-scheduler", 0, /*min_member=*/1)
      .Job("want", "starved", 2, 0, 1);
  auto ssn = Open(b.Build());
  ssn->OnJobSolutionStart();
  const PodGroupInfo* hog = ssn->cluster().FindJob("ns/hog");
  const PodGroupInfo* want = ssn->cluster().FindJob("ns/want");
  auto scenario_with = [&](int victims) {
    VictimInfo v;
    v.job = hog;
    v.representative = hog;
    // The solver evicts the victims in its simulation: they are Releasing (virtually).
    for (int i = 0; i < victims; ++i) {
      PodInfo* t = hog->tasks()[3 - i];
      if (t->status == PodStatus::kRunning) t->status = PodStatus::kReleasing;
      v.tasks.push_back(t);
    }
    return FakeScenario(want, {{hog->uid(), v}});
  };
  // starved (quota 1) would exceed its quota with the 2-GPU job, so only MaintainFairShare can
  // justify a chunk: greedy (fair share 2) holds 4, so one elastic task and then the core of the
  // gang can go, each checked before it is taken.
  EXPECT_TRUE(ssn->ReclaimScenarioValid(scenario_with(2)));
  // A third task would leave greedy at or below its fair share before it is taken.
  EXPECT_FALSE(ssn->ReclaimScenarioValid(scenario_with(3)));

  // A task that the simulation re-placed (moved) is not reclaimed.
  PodInfo* moved = hog->tasks()[1];
  moved->status = PodStatus::kPipelined;
  EXPECT_TRUE(ssn->ReclaimScenarioValid(scenario_with(3)));
  // The job's other victims still count: three evicted are one too many, as above.
  EXPECT_FALSE(ssn->ReclaimScenarioValid(scenario_with(4)));
  // A victim job whose every task was moved reclaims nothing (the validator skips it whole).
  for (PodInfo* t : hog->tasks()) t->status = PodStatus::kPipelined;
  EXPECT_TRUE(ssn->ReclaimScenarioValid(scenario_with(4)));
}

TEST_F(ProportionPluginTest, Arguments) {
  ProportionPlugin defaults{PluginArguments{}};
  EXPECT_EQ(defaults.k_value(), 1.0);
  EXPECT_EQ(defaults.saturation_multiplier(), 1.0);
  ProportionPlugin code_key(
      PluginArguments{{"relcaimerSaturationMultiplier", "1.5"}, {"kValue", "-2"}});
  EXPECT_EQ(code_key.saturation_multiplier(), 1.5);
  EXPECT_EQ(code_key.k_value(), 0.0);  // <= 0 clamps to 0 (KAI quirk)
  ProportionPlugin docs_key(PluginArguments{{"reclaimerUtilizationMultiplier", "2"}});
  EXPECT_EQ(docs_key.saturation_multiplier(), 2.0);
  ProportionPlugin both(PluginArguments{{"relcaimerSaturationMultiplier", "1.2"},
                                        {"reclaimerUtilizationMultiplier", "3"}});
  EXPECT_EQ(both.saturation_multiplier(), 1.2);
  ProportionPlugin low(
      PluginArguments{{"relcaimerSaturationMultiplier", "0.5"}, {"kValue", "bad"}});
  EXPECT_EQ(low.saturation_multiplier(), 1.0);
  EXPECT_EQ(low.k_value(), 1.0);
}

TEST_F(ProportionPluginTest, MemoryQuotaIsInMegabytesAndMetricsUseDisplayNames) {
  api::QueueResources r = Gpu(-1);
  r.memory = {2000, 1, 4000};  // MB
  ClusterBuilder b;
  b.Queue("q", "", r, 100, 0, "Research").Node("n0", 0);
  auto ssn = Open(b.Build());
  EXPECT_EQ(Q(*ssn, "q").share(p::ResourceName::kMemory).deserved, 2e9);
  EXPECT_EQ(Q(*ssn, "q").share(p::ResourceName::kMemory).max_allowed, 4e9);
  std::vector<ProportionPlugin::QueueMetrics> m = Plugin(*ssn).Metrics();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].queue_name, "Research");
  EXPECT_EQ(m[0].uid, "q");
}

TEST_F(ProportionPluginTest, UsageFromSnapshotShiftsOverQuota) {
  ClusterBuilder b;
  b.Queue("x", "", Gpu(0), 100, 1)
      .Queue("y", "", Gpu(0), 100, 2)
      .Node("n0", 14)
      .Job("jx", "x", 14, 0, 1)
      .Job("jy", "y", 14, 0, 1);
  p::ClusterUsage usage;
  usage.queues["x"] = p::ResourceQuantities::Gpu(0.6);
  SetQueueUsage(usage, b.raw());
  EXPECT_EQ(b.raw()->queue_usage["x"]["gpu"], 0.6);
  auto ssn = Open(b.Build());
  EXPECT_EQ(Q(*ssn, "x").share(p::ResourceName::kGpu).fair_share, 4);
  EXPECT_EQ(Q(*ssn, "y").share(p::ResourceName::kGpu).fair_share, 10);
}

}  // namespace
}  // namespace kai::scheduler
