// The proportion plugin end to end: Kubernetes objects -> snapshot -> session -> actions, through
// RunSimulation (the same path as `kai-scheduler simulate`).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kube/base/fake_clock.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "scheduler/app/simulate.h"

namespace kai::scheduler {
namespace {

// JSON builders for the few objects these tests need.
struct QueueSpec {
  std::string name, parent;
  double gpu_quota = 0, gpu_limit = -1, gpu_weight = 1;
  int priority = 100;
  int created = 0;  // minutes
  // cpu / memory {quota, limit, weight}; -1/-1/1 unless set.
  std::string cpu = "{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1}";
  std::string memory = "{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1}";
};

std::string Ts(int minutes) {
  return FormatRfc3339(*ParseRfc3339("2025-01-01T10:00:00Z") + std::chrono::minutes(minutes));
}

std::string QueueJson(const QueueSpec& q) {
  char gpu[160];
  std::snprintf(gpu, sizeof(gpu), "{\"quota\":%g,\"limit\":%g,\"overQuotaWeight\":%g}", q.gpu_quota,
                q.gpu_limit, q.gpu_weight);
  std::string spec = "{\"priority\":" + std::to_string(q.priority) +
                     ",\"resources\":{\"gpu\":" + gpu + ",\"cpu\":" + q.cpu +
                     ",\"memory\":" + q.memory + "}";
  if (!q.parent.empty()) spec += ",\"parentQueue\":\"" + q.parent + "\"";
  spec += "}";
  return "{\"apiVersion\":\"scheduling.run.ai/v2\",\"kind\":\"Queue\",\"metadata\":{\"name\":\"" +
         q.name + "\",\"creationTimestamp\":\"" + Ts(q.created) + "\"},\"spec\":" + spec + "}";
}

std::string NodeJson(const std::string& name, int gpus, const std::string& cpu = "64",
                     const std::string& memory = "256G") {
  std::string res = "{\"cpu\":\"" + cpu + "\",\"memory\":\"" + memory +
                    "\",\"pods\":\"110\",\"nvidia.com/gpu\":\"" + std::to_string(gpus) + "\"}";
  return "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + name +
         "\",\"labels\":{\"nvidia.com/gpu.memory\":\"100\"}},\"status\":{\"capacity\":" + res +
         ",\"allocatable\":" + res + ",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";
}

std::string PriorityClassJson(const std::string& name, int value) {
  return "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{"
         "\"name\":\"" +
         name + "\"},\"value\":" + std::to_string(value) + "}";
}

struct JobSpec {
  std::string name, queue;
  int pods = 1;
  int running = 0;  // the first `running` pods run on `node`
  int gpus = 1;     // per pod
  std::string priority_class = "train";
  int created = 0;
  std::string node = "node0";
  std::string cpu = "1";
};

std::vector<std::string> JobJson(const JobSpec& j) {
  std::vector<std::string> out;
  out.push_back(
      "{\"apiVersion\":\"scheduling.run.ai/v2alpha2\",\"kind\":\"PodGroup\",\"metadata\":{"
      "\"name\":\"" +
      j.name + "\",\"namespace\":\"default\",\"creationTimestamp\":\"" + Ts(j.created) +
      "\"},\"spec\":{\"minMember\":" + std::to_string(j.pods) + ",\"queue\":\"" + j.queue +
      "\",\"priorityClassName\":\"" + j.priority_class + "\"}}");
  for (int i = 0; i < j.pods; ++i) {
    const bool running = i < j.running;
    std::string requests = "{\"cpu\":\"" + j.cpu + "\"";
    if (j.gpus > 0) requests += ",\"nvidia.com/gpu\":\"" + std::to_string(j.gpus) + "\"";
    requests += "}";
    std::string pod =
        StrCat("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"", j.name, "-",
               std::to_string(i), "\",\"namespace\":\"default\",\"creationTimestamp\":\"",
               Ts(j.created), "\",\"labels\":{\"kai.scheduler/queue\":\"", j.queue,
               "\"},\"annotations\":{\"pod-group-name\":\"", j.name,
               "\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\",",
               running ? StrCat("\"nodeName\":\"", j.node, "\",") : std::string(),
               "\"containers\":[{\"name\":\"main\",\"resources\":{\"requests\":", requests,
               ",\"limits\":", requests, "}}]},\"status\":{\"phase\":\"",
               running ? "Running" : "Pending", "\"}}");
    out.push_back(pod);
  }
  return out;
}

class E2E : public ::testing::Test {
 protected:
  void Add(const std::string& json) { items_.push_back(json); }
  void Add(const QueueSpec& q) { Add(QueueJson(q)); }
  void Add(const JobSpec& j) {
    for (const std::string& s : JobJson(j)) Add(s);
  }

  SimulationResult Run(std::vector<std::string> actions) {
    Add(PriorityClassJson("train", 50));
    Add(PriorityClassJson("build", 100));
    std::string list = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
    for (size_t i = 0; i < items_.size(); ++i) list += (i ? "," : "") + items_[i];
    list += "]}";
    SimulateOptions opts;
    opts.snapshot_text = list;
    opts.actions = std::move(actions);
    FakeClock clock(*ParseRfc3339("2025-01-01T12:00:00Z"));
    StatusOr<SimulationResult> r = RunSimulation(opts, &clock);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : SimulationResult{};
  }

  static double GpuFairShare(const SimulationResult& r, const std::string& queue) {
    for (const SimQueue& q : r.queues) {
      if (q.name == queue) return q.fair_share.count("gpu") ? q.fair_share.at("gpu") : -999;
    }
    ADD_FAILURE() << "no queue " << queue;
    return -999;
  }
  static const SimPod* Pod(const SimulationResult& r, const std::string& name) {
    for (const SimPod& p : r.pods) {
      if (p.name == name) return &p;
    }
    ADD_FAILURE() << "no pod " << name;
    return nullptr;
  }
  static std::string Reasons(const SimulationResult& r, const std::string& podgroup) {
    for (const SimPodGroup& g : r.podgroups) {
      if (g.name == podgroup) {
        std::string out;
        for (const auto& [reason, message] : g.reasons) out += StrCat(reason, ": ", message, "\n");
        return out;
      }
    }
    return "";
  }

  std::vector<std::string> items_;
};

// KAI proportion_test.go "Set fair share for 2 hierarchy queues - simplified", as the scenario
// converter renders it: d1/q1 and d2/q2, each leaf requesting 100 GPUs, CPU and memory
// {0, 0, 0}, priority 0 unless set.
struct DeptCase {
  std::string name;
  int total;
  double d1_quota, q1_quota, d2_quota, q2_quota;
  double d1_weight, d2_weight;
  int d1_priority, d2_priority;
  double d1, q1, d2, q2;
};

class TwoDepartmentsE2E : public E2E, public ::testing::WithParamInterface<DeptCase> {};

TEST_P(TwoDepartmentsE2E, FairShares) {
  const DeptCase& c = GetParam();
  const std::string zero = "{\"quota\":0,\"limit\":0,\"overQuotaWeight\":0}";
  auto queue = [&](std::string name, std::string parent, double quota, double weight,
                   int priority) {
    QueueSpec q;
    q.name = std::move(name);
    q.parent = std::move(parent);
    q.gpu_quota = quota;
    q.gpu_weight = weight;
    q.priority = priority;
    q.cpu = zero;
    q.memory = zero;
    Add(q);
  };
  queue("d1", "", c.d1_quota, c.d1_weight, c.d1_priority);
  queue("q1", "d1", c.q1_quota, 1, 0);
  queue("d2", "", c.d2_quota, c.d2_weight, c.d2_priority);
  queue("q2", "d2", c.q2_quota, 1, 0);
  Add(NodeJson("node0", c.total, "0", "0"));
  Add(JobSpec{"q1-job0", "q1", 1, 0, 100, "train", 0, "node0", "0"});
  Add(JobSpec{"q2-job0", "q2", 1, 0, 100, "train", 0, "node0", "0"});
  SimulationResult r = Run({"allocate"});
  EXPECT_DOUBLE_EQ(GpuFairShare(r, "d1"), c.d1);
  EXPECT_DOUBLE_EQ(GpuFairShare(r, "q1"), c.q1);
  EXPECT_DOUBLE_EQ(GpuFairShare(r, "d2"), c.d2);
  EXPECT_DOUBLE_EQ(GpuFairShare(r, "q2"), c.q2);
}

INSTANTIATE_TEST_SUITE_P(
    KaiCases, TwoDepartmentsE2E,
    ::testing::Values(DeptCase{"Sanity", 4, 2, 2, 2, 2, 1, 1, 0, 0, 2, 2, 2, 2},
                      DeptCase{"DeservedDepartmentQuota", 4, 3, 2, 1, 2, 1, 1, 0, 0, 3, 3, 1, 2},
                      DeptCase{"OverQuota", 12, 3, 2, 1, 2, 1, 1, 0, 0, 7, 7, 5, 5},
                      DeptCase{"OverQuotaWeight", 12, 3, 2, 1, 2, 1, 7, 0, 0, 4, 4, 8, 8},
                      DeptCase{"OverQuotaWeightReversed", 12, 3, 2, 1, 2, 7, 1, 0, 0, 10, 10, 2, 2},
                      DeptCase{"Priority", 12, 1, 1, 1, 1, 7, 1, 1, 2, 1, 1, 11, 11},
                      DeptCase{"PriorityReversed", 12, 1, 1, 1, 1, 1, 7, 2, 1, 11, 11, 1, 1}),
    [](const ::testing::TestParamInfo<DeptCase>& info) { return info.param.name; });

TEST_F(E2E, ReclaimBetweenDepartments) {
  // Each department deserves 1 of 2 GPUs; d2's queue runs both, d1's queue wants one back.
  Add(QueueSpec{"d1", "", 1, -1, 1, 100, 0});
  Add(QueueSpec{"d2", "", 1, -1, 1, 100, 1});
  Add(QueueSpec{"queue0", "d1", 1, -1, 0, 100, 0});
  Add(QueueSpec{"queue1", "d2", 1, -1, 0, 100, 1});
  Add(NodeJson("node0", 2));
  Add(JobSpec{"running-job0", "queue1", 1, 1, 1, "train", 1});
  Add(JobSpec{"running-job1", "queue1", 1, 1, 1, "train", 2});
  Add(JobSpec{"pending-job0", "queue0", 1, 0, 1, "train", 3});
  SimulationResult r = Run({"reclaim"});
  EXPECT_DOUBLE_EQ(GpuFairShare(r, "d1"), 1);
  EXPECT_DOUBLE_EQ(GpuFairShare(r, "d2"), 1);
  int evicted = 0;
  for (const char* name : {"running-job0-0", "running-job1-0"}) {
    if (const SimPod* p = Pod(r, name); p && p->after == "Evicted") ++evicted;
  }
  EXPECT_EQ(evicted, 1);
  ASSERT_NE(Pod(r, "pending-job0-0"), nullptr);
  EXPECT_EQ(Pod(r, "pending-job0-0")->after, "Pipelined");
}

TEST_F(E2E, NoReclaimFromQueueWithinItsFairShare) {
  Add(QueueSpec{"d1", "", 1, -1, 1, 100, 0});
  Add(QueueSpec{"d2", "", 1, -1, 1, 100, 1});
  Add(QueueSpec{"queue0", "d1", 1, -1, 0, 100, 0});
  Add(QueueSpec{"queue1", "d2", 1, -1, 0, 100, 1});
  Add(NodeJson("node0", 2));
  Add(JobSpec{"running-job0", "queue1", 1, 1, 1, "train", 1});
  Add(JobSpec{"running-job1", "queue0", 1, 1, 1, "train", 2});
  Add(JobSpec{"pending-job0", "queue0", 1, 0, 1, "train", 3});
  SimulationResult r = Run({"reclaim"});
  for (const char* name : {"running-job0-0", "running-job1-0"}) {
    ASSERT_NE(Pod(r, name), nullptr);
    EXPECT_EQ(Pod(r, name)->after, "Running") << name;
  }
  EXPECT_EQ(Pod(r, "pending-job0-0")->after, "Pending");
}

TEST_F(E2E, OverLimitAndNonPreemptibleOverQuotaReasons) {
  Add(QueueSpec{"limited", "", 1, 2, 1, 100, 0});
  Add(NodeJson("node0", 8));
  Add(JobSpec{"too-big", "limited", 1, 0, 3, "train", 1});
  Add(JobSpec{"interactive", "limited", 1, 0, 2, "build", 2});
  SimulationResult r = Run({"allocate"});
  EXPECT_EQ(Pod(r, "too-big-0")->after, "Pending");
  EXPECT_NE(Reasons(r, "too-big")
                .find("OverLimit: limited quota has reached the allowable limit "
                      "of GPUs. Limit is 2 GPUs, currently 0 GPUs allocated and "
                      "workload requested 3 GPUs"),
            std::string::npos)
      << Reasons(r, "too-big");
  EXPECT_EQ(Pod(r, "interactive-0")->after, "Pending");
  EXPECT_NE(Reasons(r, "interactive")
                .find("NonPreemptibleOverQuota: Non-preemptible workload is over quota. Workload "
                      "requested 2 GPUs, but limited quota is 1 GPUs, while 0 GPUs are already "
                      "allocated for non-preemptible pods. Use a preemptible workload to go over "
                      "quota."),
            std::string::npos)
      << Reasons(r, "interactive");
}

TEST_F(E2E, QueueOrderServesTheStarvedQueueFirst) {
  // One free GPU; the queue below its quota gets it although its job is younger.
  Add(QueueSpec{"busy", "", 1, -1, 1, 100, 0});
  Add(QueueSpec{"starved", "", 1, -1, 1, 100, 1});
  Add(NodeJson("node0", 3));
  Add(JobSpec{"busy-running", "busy", 2, 2, 1, "train", 0});
  Add(JobSpec{"busy-pending", "busy", 1, 0, 1, "train", 1});
  Add(JobSpec{"starved-pending", "starved", 1, 0, 1, "train", 2});
  SimulationResult r = Run({"allocate"});
  EXPECT_EQ(Pod(r, "starved-pending-0")->after, "Bound");
  EXPECT_EQ(Pod(r, "busy-pending-0")->after, "Pending");
}

}  // namespace
}  // namespace kai::scheduler
