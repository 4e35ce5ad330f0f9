// Amounts at int64's edge (amount_bounds.h): the API server accepts quantities up to 2^63-1 and
// any int64 in the GPU annotations; a cycle over them is defined (the sanitizer build of this
// test fails on an overflow), places what fits, and leaves each absurd request pending with a
// warning that names it.
#include "scheduler/api/amount_bounds.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kube/base/fake_clock.h"
#include "scheduler/app/simulate.h"
#include "scheduler/cache/object_loader.h"

namespace kai::scheduler {
namespace {

// A pending pod of queue q; `annotations` and `requests` are YAML flow-mapping bodies.
std::string PendingPod(const std::string& name, const std::string& annotations,
                       const std::string& requests) {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: ns, labels: {kai.scheduler/queue: q}, annotations: {" + annotations +
         "}}\nspec:\n  schedulerName: kai-scheduler\n  containers: [{name: m, resources: "
         "{requests: {" +
         requests + "}, limits: {" + requests + "}}}]\nstatus: {phase: Pending}\n";
}

// Node "big" advertises everything at or beyond int64's range; "small" is a real node.
std::string Snapshot() {
  return std::string(R"(apiVersion: scheduling.run.ai/v2
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
  name: big
  labels: {nvidia.com/gpu.memory: "999999999999999999", nvidia.com/gpu.count: "999999999999999999"}
status:
  allocatable:
    cpu: 9999999999999999999Gi
    memory: 100Ei
    nvidia.com/gpu: 9999999999999999999Gi
    pods: "9223372036854775807"
    nvidia.com/mig-1g.10gb: 8Ei
---
apiVersion: v1
kind: Node
metadata: {name: small, labels: {nvidia.com/gpu.memory: "81920"}}
status:
  allocatable: {cpu: "8", memory: 8Gi, nvidia.com/gpu: "1", pods: "110"}
)") + PendingPod("whole", "", "nvidia.com/gpu: \"2\"") +
         PendingPod("fraction", "gpu-fraction: \"0.5\"", "") +
         PendingPod("gpu-memory", "gpu-memory: \"1000\"", "") +
         PendingPod("cpu-byte", "", "cpu: 1m, memory: \"1\"") +
         PendingPod("huge-gpu", "", "nvidia.com/gpu: \"1e18\"") +
         PendingPod("huge-cpu", "", "cpu: 9999999999999999999Gi") +
         PendingPod("huge-devices",
                    "gpu-fraction: \"0.5\", gpu-fraction-num-devices: "
                    "\"9223372036854775807\"",
                    "") +
         PendingPod("huge-gpu-memory", "gpu-memory: \"9223372036854775807\"", "") +
         PendingPod("huge-mig", "", "nvidia.com/mig-1g.10gb: \"9223372036854775807\"");
}

TEST(AmountBoundsTest, NodeAndPodAmountsAreClampedWhereTheyAreRead) {
  StatusOr<LoadedObjects> o = LoadObjects(Snapshot());
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->nodes.size(), 2u);
  const ResourceAmounts& big = o->nodes[0].allocatable;
  EXPECT_EQ(big.at("cpu"), kMaxNodeAmount);
  EXPECT_EQ(big.at("memory"), kMaxNodeAmount);
  EXPECT_EQ(big.at("pods"), kMaxNodeAmount);
  EXPECT_EQ(big.at("nvidia.com/gpu"), static_cast<double>(kMaxNodeGpuDevices));
  EXPECT_EQ(big.at("nvidia.com/mig-1g.10gb"), static_cast<double>(kMaxNodeGpuDevices));
  EXPECT_EQ(o->nodes[1].allocatable.at("cpu"), 8000);  // real amounts are untouched
  std::map<std::string, ResourceAmounts> requests;
  for (const LoadedPod& p : o->pods) requests[p.pod->metadata.name] = p.requests;
  EXPECT_EQ(requests["huge-cpu"].at("cpu"), kMaxPodAmount);
  EXPECT_EQ(requests["huge-gpu"].at("nvidia.com/gpu"), static_cast<double>(kMaxPodGpuDevices));
  EXPECT_EQ(requests["huge-mig"].at("nvidia.com/mig-1g.10gb"),
            static_cast<double>(kMaxPodGpuDevices));
  EXPECT_EQ(requests["cpu-byte"].at("memory"), 1);
}

TEST(AmountBoundsTest, EveryActionRunsAndOnlyWhatFitsIsPlaced) {
  SimulateOptions opts;
  opts.snapshot_text = Snapshot();
  opts.cycles = 2;
  FakeClock clock;
  StatusOr<SimulationResult> r = RunSimulation(opts, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  std::map<std::string, std::string> node_of;
  for (const auto& p : r->pods) node_of[p.name] = p.after == "Pending" ? "" : p.node;
  const std::map<std::string, std::string> want = {
      {"whole", "big"},  // two GPUs: only the big node has them
      {"fraction", "small"}, {"gpu-memory", "small"}, {"cpu-byte", "small"},   {"huge-gpu", ""},
      {"huge-cpu", ""},      {"huge-devices", ""},    {"huge-gpu-memory", ""}, {"huge-mig", ""}};
  EXPECT_EQ(node_of, want);
  std::string all;
  for (const auto& w : r->warnings) all += w + "\n";
  for (const char* part :
       {"Pod ns/huge-cpu: the cpu request is beyond the scheduler's bound (9007199254740992m)",
        "Pod ns/huge-gpu: the nvidia.com/gpu request is beyond the scheduler's bound (16385)",
        "Pod ns/huge-mig: the nvidia.com/mig-1g.10gb request is beyond",
        "Pod ns/huge-devices: annotation gpu-fraction-num-devices is beyond the scheduler's bound "
        "(16385)",
        "Pod ns/huge-gpu-memory: annotation gpu-memory is beyond the scheduler's bound "
        "(1073741825 MiB)"}) {
    EXPECT_NE(all.find(part), std::string::npos) << part << "\nin:\n" << all;
  }
  EXPECT_EQ(all.find("Pod ns/whole"), std::string::npos) << all;
}

}  // namespace
}  // namespace kai::scheduler
