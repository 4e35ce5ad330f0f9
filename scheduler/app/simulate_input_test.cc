// `kai-scheduler simulate` on bad input: every malformed snapshot is an error that names the
// document, the object and the field, with a non-zero exit code — never a crash. Dangling
// references are warnings (errors with --strict).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "kube/base/fake_clock.h"
#include "kube/base/zip_writer.h"
#include "scheduler/app/simulate.h"

namespace kai::scheduler {
namespace {

constexpr const char* kQueue = R"(
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 1}}}
)";

struct BadCase {
  const char* name;
  std::string snapshot;
  std::vector<std::string> message_parts;  // all must appear in the error
};

// The debug endpoint's zip holding `entries` (name, data).
std::string Zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  ZipWriter w;
  for (const auto& [name, data] : entries) w.Add(name, data);
  auto zip = w.Finish();
  EXPECT_TRUE(zip.ok()) << zip.status();
  return zip.ok() ? *zip : std::string();
}

constexpr const char* kGoodSnapshotJson = R"({"config":{"actions":"allocate"},"rawObjects":{}})";

std::string CorruptCrc() {
  std::string z = Zip({{"snapshot.json", kGoodSnapshotJson}});
  z[30 + 13 + 3] ^= 0x20;  // a data byte: 30-byte local header, 13-byte name
  return z;
}

// snapshot.json whose rawObjects.<list> is `items`.
std::string RawObjects(const std::string& list, const std::string& items) {
  return R"({"config":{"actions":"allocate"},"rawObjects":{")" + list + "\":" + items + "}}";
}

std::vector<BadCase> Cases() {
  return {
      {"malformed yaml", "kind: Pod\nmetadata: {name: p\n", {"invalid YAML", "line"}},
      {"not an object", "- 1\n- 2\n", {"document 1", "expected an object"}},
      {"missing kind", "metadata: {name: x}\n", {"document 1", "missing kind"}},
      {"unknown kind",
       "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
       {"document 1", "Deployment d", "unknown kind \"Deployment\"", "apps/v1"}},
      {"unknown kind in second document",
       std::string(kQueue) + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n",
       {"document 2", "Secret s", "unknown kind \"Secret\""}},
      {"list items not a list",
       "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
       {"items: expected a list"}},
      {"missing name",
       "apiVersion: v1\nkind: Node\nmetadata: {labels: {a: b}}\n",
       {"Node <unnamed>: metadata.name: required"}},
      {"missing name of a namespaced object",
       "apiVersion: v1\nkind: Pod\nmetadata: {namespace: ns}\n",
       {"Pod ns/<unnamed>: metadata.name: required"}},
      {"invalid node quantity",
       "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: 12x}\n",
       {"Node n1", "status.allocatable.cpu", "quantities must match", "\"12x\""}},
      {"invalid pod quantity",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: ns}\nspec:\n  containers:\n"
       "  - name: m\n    resources: {requests: {memory: 1Gb}}\n",
       {"Pod ns/p1", "spec.containers[0].resources.requests.memory", "\"1Gb\""}},
      {"invalid init container quantity",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec:\n  containers: [{name: m}]\n"
       "  initContainers:\n  - name: i\n    resources: {requests: {cpu: lots}}\n",
       {"Pod p1", "spec.initContainers[0].resources.requests.cpu", "\"lots\""}},
      {"wrong field type",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: {name: m}}\n",
       {"Pod p1", "spec.containers", "expected array, got object"}},
      {"bad timestamp",
       "apiVersion: v1\nkind: Node\nmetadata: {name: n1, creationTimestamp: yesterday}\n",
       {"Node n1", "metadata.creationTimestamp"}},
      {"bad queue number",
       "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\n"
       "spec: {resources: {gpu: {quota: many}}}\n",
       {"Queue q", "spec.resources.gpu.quota", "expected number", "\"many\""}},
      // Read as the API server reads them: limits are checked too, label values are strings
      // and the apiVersion is the kind's.
      {"invalid pod limit",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: ns}\nspec:\n  containers:\n"
       "  - name: m\n    resources: {limits: {nvidia.com/gpu: two}}\n",
       {"Pod ns/p1", "spec.containers[0].resources.limits[nvidia.com/gpu]", "\"two\""}},
      {"label value not a string",
       "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {gpus: 8}}\n",
       {"Node n1", "metadata.labels.gpus", "expected string, got number 8"}},
      {"apiVersion of another kind",
       "apiVersion: scheduling.run.ai/v2alpha2\nkind: Queue\nmetadata: {name: q}\n",
       {"document 1", "Queue q", "apiVersion: expected \"scheduling.run.ai/v2\""}},
      {"bad scheduling shard flag",
       "apiVersion: kai.scheduler/v1\nkind: SchedulingShard\nmetadata: {name: default}\n"
       "spec: {args: {max-consolidation-preemptees: ten}}\n",
       {"max-consolidation-preemptees"}},
      // The debug snapshot (/get-snapshot zip or its snapshot.json).
      {"zip without snapshot.json",
       Zip({{"other.json", "{}"}}),
       {"snapshot: no entry snapshot.json"}},
      {"truncated zip",
       Zip({{"snapshot.json", kGoodSnapshotJson}}).substr(0, 60),
       {"snapshot: truncated zip"}},
      {"zip CRC mismatch", CorruptCrc(), {"CRC mismatch in snapshot.json"}},
      {"snapshot.json in the zip is not JSON",
       Zip({{"snapshot.json", "{\"rawObjects\": [}"}}),
       {"snapshot.json: invalid JSON"}},
      {"rawObjects list not a list",
       RawObjects("pods", "{}"),
       {"rawObjects.pods: expected a list"}},
      {"rawObjects item not an object",
       RawObjects("nodes", "[7]"),
       {"rawObjects.nodes[0]: expected an object"}},
      {"rawObjects item of another kind",
       RawObjects("nodes", R"([{"kind":"Pod","metadata":{"name":"p"}}])"),
       {"rawObjects.nodes[0]", "kind \"Pod\" in the nodes list"}},
      {"rawObjects pod with a bad quantity",
       RawObjects("pods", R"([{"metadata":{"name":"a","namespace":"ns"}},)"
                          R"({"metadata":{"name":"b","namespace":"ns"},"spec":{"containers":)"
                          R"([{"name":"m","resources":{"requests":{"memory":"1Gb"}}}]}}])"),
       {"rawObjects.pods[1]", "Pod ns/b", "spec.containers[0].resources.requests.memory", "1Gb"}},
      {"snapshot config not an object",
       R"({"config":"allocate","rawObjects":{}})",
       {"config: expected an object"}},
      {"snapshot config with a bad queue depth",
       R"({"config":{"queueDepthPerAction":{"allocate":"many"}},"rawObjects":{}})",
       {"config", "queueDepthPerAction.allocate", "expected an integer"}},
      {"snapshot schedulerParams with a bad duration",
       R"({"schedulerParams":{"schedulePeriod":"soon"},"rawObjects":{}})",
       {"schedulerParams.schedulePeriod"}},
      {"snapshot schedulerParams with a bad flag type",
       R"({"schedulerParams":{"detailedFitErrors":"yes"},"rawObjects":{}})",
       {"schedulerParams.detailedFitErrors: expected a boolean"}},
  };
}

// Dangling references: KAI's outcomes apply (the job stays pending with QueueDoesNotExist, the
// orphan queue is dropped, the pod is not scheduled) and simulate warns; --strict fails.
std::vector<BadCase> DanglingCases() {
  return {
      {"pod names a missing PodGroup",
       std::string(kQueue) +
           "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, annotations: "
           "{pod-group-name: nope}}\nspec: {schedulerName: kai-scheduler, containers: [{name: "
           "m}]}\n",
       {"Pod ns/p", "metadata.annotations.pod-group-name", "PodGroup \"ns/nope\" does not exist"}},
      {"pod names a missing queue",
       std::string(kQueue) +
           "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, labels: "
           "{kai.scheduler/queue: ghost}}\nspec: {schedulerName: kai-scheduler, containers: "
           "[{name: m}]}\n",
       {"Pod ns/p", "metadata.labels.kai.scheduler/queue", "Queue \"ghost\" does not exist"}},
      {"podgroup names a missing queue",
       std::string(kQueue) +
           "---\napiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: pg, "
           "namespace: ns}\nspec: {minMember: 1, queue: ghost}\n",
       {"PodGroup ns/pg", "spec.queue", "Queue \"ghost\" does not exist"}},
      {"podgroup without queue",
       "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: pg, namespace: "
       "ns}\nspec: {minMember: 1}\n",
       {"PodGroup ns/pg", "spec.queue: required"}},
      {"queue names a missing parent",
       "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: child}\nspec: "
       "{parentQueue: ghost}\n",
       {"Queue child", "spec.parentQueue", "Queue \"ghost\" does not exist"}},
  };
}

class BadSnapshotTest : public ::testing::TestWithParam<size_t> {};

TEST_P(BadSnapshotTest, IsAnErrorNamingObjectAndField) {
  const BadCase c = Cases()[GetParam()];
  SCOPED_TRACE(c.name);
  SimulateOptions opts;
  opts.snapshot_text = c.snapshot;
  FakeClock clock;
  StatusOr<SimulationResult> r = RunSimulation(opts, &clock);
  ASSERT_FALSE(r.ok()) << "accepted: " << c.snapshot;
  const std::string msg(r.status().message());
  for (const auto& part : c.message_parts) {
    EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nmissing: " << part;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, BadSnapshotTest, ::testing::Range<size_t>(0, Cases().size()));

class DanglingReferenceTest : public ::testing::TestWithParam<size_t> {};

TEST_P(DanglingReferenceTest, WarnsByDefaultAndFailsWhenStrict) {
  const BadCase c = DanglingCases()[GetParam()];
  SCOPED_TRACE(c.name);
  SimulateOptions opts;
  opts.snapshot_text = c.snapshot;
  FakeClock clock;
  StatusOr<SimulationResult> r = RunSimulation(opts, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  std::string warnings;
  for (const auto& w : r->warnings) warnings += w + "\n";
  // The object, the field and "does not exist" in some warning (the pod -> PodGroup one comes
  // from the cluster model, with its own wording of the target).
  std::vector<std::string> parts = {c.message_parts[0], c.message_parts[1]};
  if (c.message_parts.size() > 2) parts.push_back("does not exist");
  for (const auto& part : parts) {
    EXPECT_NE(warnings.find(part), std::string::npos)
        << "warnings: " << warnings << "\nmissing: " << part;
  }

  opts.strict = true;
  StatusOr<SimulationResult> strict = RunSimulation(opts, &clock);
  ASSERT_FALSE(strict.ok()) << "accepted with --strict: " << c.snapshot;
  const std::string msg(strict.status().message());
  for (const auto& part : c.message_parts) {
    EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nmissing: " << part;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, DanglingReferenceTest,
                         ::testing::Range<size_t>(0, DanglingCases().size()));

TEST(DanglingReferenceTest, JobOfAMissingQueueStaysPendingWithKaisReason) {
  SimulateOptions opts;
  opts.snapshot_text = std::string(kQueue) + R"(---
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "8", memory: 8Gi, pods: "110", nvidia.com/gpu: "1"}
---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: pg, namespace: ns}
spec: {minMember: 1, queue: ghost}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns, annotations: {pod-group-name: pg}}
spec:
  schedulerName: kai-scheduler
  containers: [{name: m, resources: {limits: {nvidia.com/gpu: "1"}}}]
status: {phase: Pending}
)";
  FakeClock clock;
  StatusOr<SimulationResult> r = RunSimulation(opts, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->pods.size(), 1u);
  EXPECT_EQ(r->pods[0].after, "Pending");
  ASSERT_EQ(r->podgroups.size(), 1u);
  EXPECT_NE(r->podgroups[0].unschedulable_reason.find("Queue 'ghost' does not exist"),
            std::string::npos)
      << r->podgroups[0].unschedulable_reason;
}

// A reclaim whose search budget runs out says so among the warnings (the clock moves 1ms per read).
TEST(SimulateBudgetTest, AStoppedSearchIsAWarning) {
  SimulateOptions opts;
  opts.actions = {"reclaim"};
  opts.snapshot_text = R"(apiVersion: kai.scheduler/v1
kind: SchedulingShard
metadata: {name: default}
spec:
  scenarioSearchBudgets: {maxJobSearchDuration: 1ms}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q0}
spec: {resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 0}}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q1}
spec: {resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 0}}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "8", memory: 8Gi, pods: "110", nvidia.com/gpu: "2"}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns, labels: {kai.scheduler/queue: q0}}
spec:
  schedulerName: kai-scheduler
  nodeName: n1
  containers: [{name: m, resources: {requests: {nvidia.com/gpu: "2"}, limits: {nvidia.com/gpu: "2"}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: r, namespace: ns, labels: {kai.scheduler/queue: q1}}
spec:
  schedulerName: kai-scheduler
  containers: [{name: m, resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
status: {phase: Pending}
)";
  FakeClock clock;
  clock.set_monotonic_tick(std::chrono::milliseconds(1));
  StatusOr<SimulationResult> r = RunSimulation(opts, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  std::string all;
  for (const auto& w : r->warnings) all += w + "\n";
  EXPECT_NE(all.find("cycle 1: reclaim: scenario search budget ran out (1 job search(es) "
                     "stopped); decisions may differ from an exhaustive search"),
            std::string::npos)
      << all;
  // Without the budget the same cluster reclaims: a (q0, over its quota of 1) is evicted.
  for (const auto& p : r->pods) EXPECT_NE(p.after, "Evicted") << p.name;
  opts.snapshot_text.replace(opts.snapshot_text.find("scenarioSearchBudgets"), 50,
                             "scenarioSearchBudgets: {maxJobSearchDuration: 1h}");
  r = RunSimulation(opts, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->pods.size(), 2u);
  EXPECT_EQ(r->pods[0].name, "a");
  EXPECT_EQ(r->pods[0].after, "Evicted");
  EXPECT_EQ(r->pods[1].after, "Pipelined");
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(SimulateMainTest, BadSnapshotExitsNonZero) {
  std::string path =
      WriteTemp("bad-kind.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n");
  EXPECT_EQ(SimulateMain({"--snapshot", path}), 1);
  EXPECT_EQ(SimulateMain({"--snapshot", ::testing::TempDir() + "/does-not-exist.yaml"}), 1);
}

TEST(SimulateMainTest, BadArgumentsExitWithUsage) {
  std::string path = WriteTemp("queue.yaml", kQueue);
  EXPECT_EQ(SimulateMain({}), 2);
  EXPECT_EQ(SimulateMain({"--snapshot", path, "--cycles", "0"}), 2);
  EXPECT_EQ(SimulateMain({"--snapshot", path, "-o", "xml"}), 2);
  EXPECT_EQ(SimulateMain({"--snapshot", path, "--actions", "allocate,teleport"}), 2);
  EXPECT_EQ(SimulateMain({"--snapshot", path, "--bogus"}), 2);
  EXPECT_EQ(SimulateMain({"--snapshot", path}), 0);
}

TEST(SimulateMainTest, HelpExplainsEveryOptionOnStdout) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(SimulateMain({"--help"}), 0);
  const std::string help = ::testing::internal::GetCapturedStdout();
  for (const char* option :
       {"--snapshot", "--actions", "--cycles", "-o FORMAT", "--strict", "--seed", "Exit status"}) {
    EXPECT_NE(help.find(option), std::string::npos) << option << " in:\n" << help;
  }
  // Every option the help names is one the parser takes.
  std::string path = WriteTemp("help-queue.yaml", kQueue);
  EXPECT_TRUE(ParseSimulateArgs({"--snapshot", path, "--actions", "allocate", "--cycles", "2", "-o",
                                 "table", "--strict", "--seed", "3"})
                  .ok());
}

TEST(SimulateMainTest, EmptySnapshotIsAnEmptyReport) {
  SimulateOptions opts;
  opts.snapshot_text = "";
  FakeClock clock;
  auto r = RunSimulation(opts, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->pods.empty());
}

}  // namespace
}  // namespace kai::scheduler
