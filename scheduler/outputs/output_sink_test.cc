// The live scheduler's writes for whole cycles over small clusters (FakeSchedulerWriter).
#include "scheduler/outputs/output_sink.h"

#include <gtest/gtest.h>

#include "api/well_known.h"
#include "scheduler/outputs/bind_request_builder.h"
#include "scheduler/outputs/test_cluster.h"

namespace kai::scheduler {
namespace {

using outputs_testing::BindRequestYaml;
using outputs_testing::DrainQueue;
using outputs_testing::Harness;
using outputs_testing::NodeYaml;
using outputs_testing::PodGroupYaml;
using outputs_testing::PodOptions;
using outputs_testing::PodYaml;
using outputs_testing::PriorityClassYaml;
using outputs_testing::QueueYaml;
using outputs_testing::WholeGpuBindRequest;

api::BindRequest DecodeBindRequest(const std::string& json) {
  auto br = api::Decode<api::BindRequest>(json);
  EXPECT_TRUE(br.ok()) << br.status();
  return br.ok() ? *br : api::BindRequest{};
}

// Queue q with two jobs of one 1-GPU pod each: ns/p1 (PodGroup pg) and ns/p2 (pg2).
std::string TwoJobsOfOnePod() {
  return QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) + PodYaml("ns", "p1", "pg", 1) +
         PodGroupYaml("ns", "pg2", "q", 1) + PodYaml("ns", "p2", "pg2", 1);
}

TEST(OutputSink, WholeGpuPodGetsOneBindRequestAsKaiWritesIt) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
         PodYaml("ns", "p1", "pg", 1));
  h.Cycle();

  auto creates = h.writer().CallsOf("CreateBindRequest");
  ASSERT_EQ(creates.size(), 1u);
  api::BindRequest br = DecodeBindRequest(creates[0].body);
  EXPECT_EQ(br.metadata.name, "p1");
  EXPECT_EQ(br.metadata.namespace_, "ns");
  ASSERT_EQ(br.metadata.owner_references.size(), 1u);
  EXPECT_EQ(br.metadata.owner_references[0].api_version, "v1");
  EXPECT_EQ(br.metadata.owner_references[0].kind, "Pod");
  EXPECT_EQ(br.metadata.owner_references[0].name, "p1");
  EXPECT_EQ(br.metadata.owner_references[0].uid, "uid-p1");
  EXPECT_EQ(br.metadata.labels, (std::map<std::string, std::string>{{"selected-node", "n1"}}));
  EXPECT_EQ(br.spec.pod_name, "p1");
  EXPECT_EQ(br.spec.selected_node, "n1");
  EXPECT_EQ(br.spec.received_resource_type, "Regular");
  ASSERT_TRUE(br.spec.received_gpu);
  EXPECT_EQ(br.spec.received_gpu->count, 1);
  EXPECT_EQ(br.spec.received_gpu->portion, "1.00");
  EXPECT_TRUE(br.spec.selected_gpu_groups.empty());
  EXPECT_FALSE(br.spec.backoff_limit);  // the scheduler never sets it

  auto events = h.writer().Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].object.kind, "Pod");
  EXPECT_EQ(events[0].object.name, "p1");
  EXPECT_EQ(events[0].object.uid, "uid-p1");
  EXPECT_EQ(events[0].reason, "Scheduled");
  EXPECT_EQ(events[0].message, "Successfully assigned pod ns/p1 to node n1 at node-pool default");

  // The job started: its last-start timestamp is patched onto the PodGroup.
  auto updates = DrainQueue(&h.updates());
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].kind, StatusUpdate::Kind::kPodGroup);
  EXPECT_EQ(updates[0].patch, R"([{"op":"add","path":"/metadata/annotations","value":)"
                              R"({"kai.scheduler/last-start-timestamp":"2025-01-01T12:00:00Z"}}])");
  EXPECT_TRUE(updates[0].status_patch.empty());
  EXPECT_EQ(h.sink().counters().bind_requests_created, 1);
}

// Node names may be 253 characters long, label values 63: the API server would refuse a
// BindRequest labelled with a longer name, so the label is left out and the spec names the node.
TEST(OutputSink, BindRequestForANodeNameLongerThanALabelValueHasNoNodeLabel) {
  api::Pod pod;
  pod.metadata.name = "p1";
  pod.metadata.namespace_ = "ns";
  BindDecision d;
  d.node = std::string(63, 'n');
  EXPECT_EQ(BuildBindRequest(d, pod, {}).metadata.labels,
            (std::map<std::string, std::string>{{"selected-node", d.node}}));
  d.node = "ip-10-0-0-1." + std::string(60, 'a') + ".compute.internal";
  api::BindRequest br = BuildBindRequest(d, pod, {});
  EXPECT_TRUE(br.metadata.labels.empty());
  EXPECT_EQ(br.spec.selected_node, d.node);
}

TEST(OutputSink, PodsWithABindRequestInFlightAreNotDecidedTwice) {
  Harness h;
  h.Load(NodeYaml("n1", 1) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
         PodYaml("ns", "p1", "pg", 1) + PodGroupYaml("ns", "pg2", "q", 1) +
         PodYaml("ns", "p2", "pg2", 1, PodOptions{.created = "2025-01-01T00:00:05Z"}));
  h.Cycle();
  ASSERT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 1u);
  EXPECT_EQ(h.writer().CallsOf("CreateBindRequest")[0].key, "ns/p1");

  // The informer has not delivered the BindRequest nor the binding yet: the next cycle still
  // sees p1 as Binding on n1 (its GPU taken), so p1 is not decided again and p2 stays pending.
  h.writer().calls.clear();
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty());
  bool p2_unschedulable = false;
  for (const auto& e : h.writer().Events()) {
    if (e.object.name == "p2" && e.reason == "Unschedulable") p2_unschedulable = true;
    EXPECT_NE(e.reason, "Scheduled");
  }
  EXPECT_TRUE(p2_unschedulable);
}

TEST(OutputSink, LoadedLiveBindRequestMakesItsPodBinding) {
  Harness h;
  h.Load(NodeYaml("n1", 1) + TwoJobsOfOnePod() +
         BindRequestYaml("ns", "p1", "n1", "", "{phase: Pending}"));
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty());
  EXPECT_TRUE(h.writer().CallsOf("DeleteBindRequest").empty());
}

TEST(OutputSink, StaleBindRequestsAreDeletedBeforeScheduling) {
  Harness h;
  h.Load(NodeYaml("n1", 2) + TwoJobsOfOnePod() + BindRequestYaml("ns", "p2", "gone") +
         BindRequestYaml("ns", "p1", "n1", "", "{phase: Failed, reason: boom}"));
  h.Cycle();
  ASSERT_GE(h.writer().calls.size(), 4u);
  EXPECT_EQ(h.writer().calls[0].verb, "DeleteBindRequest");
  EXPECT_EQ(h.writer().calls[0].key, "ns/p1");
  EXPECT_EQ(h.writer().calls[1].verb, "DeleteBindRequest");
  EXPECT_EQ(h.writer().calls[1].key, "ns/p2");
  // Both pods are Pending again and get fresh BindRequests in the same cycle.
  EXPECT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 2u);
  EXPECT_EQ(h.sink().counters().stale_bind_requests_deleted, 2);
}

// A stale BindRequest is deleted with its uid as a precondition: when the name holds a newer
// one (a new leader's, created since the snapshot), the API server refuses (409) and the newer
// one stays. That is no error of the cycle and no stale BindRequest deleted.
TEST(OutputSink, StaleBindRequestIsDeletedOnlyWhileTheNameStillHoldsIt) {
  Harness h;
  h.Load(NodeYaml("n1", 2) + TwoJobsOfOnePod() +
         BindRequestYaml("ns", "p1", "n1", "", "{phase: Failed, reason: boom}", "br-old"));
  h.writer().bind_requests["ns/p1"] = WholeGpuBindRequest("ns", "p1", "n1", "br-new");

  CycleResult r = h.Cycle();
  EXPECT_TRUE(r.clean_stale_bind_requests.ok()) << r.clean_stale_bind_requests;
  auto deletes = h.writer().CallsOf("DeleteBindRequest");
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].key, "ns/p1");
  EXPECT_EQ(deletes[0].body, "br-old") << "the uid precondition";
  EXPECT_EQ(h.writer().bind_requests.at("ns/p1").metadata.uid, "br-new");
  EXPECT_EQ(h.sink().counters().stale_bind_requests_deleted, 0);
}

// The model learns BindRequests from the scheduler's own writes and from the informer, which can
// be behind them. A stale BindRequest's late events (a MODIFIED in flight when the scheduler
// deleted it, e.g. the binder's status write for a vanished node; then its DELETED) arrive after
// the scheduler created its successor under the name: they must not make the pod look
// unscheduled again (a second decision, a 409 and a FailedBinding event).
TEST(OutputSink, LateEventsOfAReplacedBindRequestKeepItsSuccessor) {
  Harness h;
  const std::string stale =
      BindRequestYaml("ns", "p1", "n1", "", "{phase: Failed, reason: boom}", "br-old");
  h.Load(NodeYaml("n1", 2) + TwoJobsOfOnePod() + stale);
  h.Cycle();
  ASSERT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 2u);
  const std::string successor = h.writer().bind_requests.at("ns/p1").metadata.uid;
  ASSERT_NE(successor, "br-old");

  auto late = LoadObjects(stale);
  ASSERT_TRUE(late.ok()) << late.status();
  EXPECT_FALSE(h.model().UpsertBindRequest(late->bind_requests.at(0))) << "a late MODIFIED";
  h.writer().calls.clear();
  h.Cycle();
  EXPECT_FALSE(h.model().DeleteBindRequest("ns/p1", "br-old")) << "its late DELETED";
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty()) << "p1 is Binding";
  EXPECT_TRUE(h.writer().CallsOf("DeleteBindRequest").empty());
  EXPECT_TRUE(h.writer().CallsOf("Event").empty());

  // The successor's own DELETED does remove it: p1 is decided again.
  EXPECT_TRUE(h.model().DeleteBindRequest("ns/p1", successor));
  h.writer().bind_requests.erase("ns/p1");
  h.Cycle();
  EXPECT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 1u);
}

// A BindRequest left by an earlier pod of the same name (deleted and created again before the
// garbage collector removed it) is stale: the new pod is not Binding by it but decided anew.
TEST(OutputSink, BindRequestOfAnEarlierPodOfTheSameNameIsStale) {
  Harness h;
  h.Load(NodeYaml("n1", 2) + TwoJobsOfOnePod() + BindRequestYaml("ns", "p1", "n1", "uid-old") +
         BindRequestYaml("ns", "p2", "n1", "uid-p2"));
  h.Cycle();
  ASSERT_FALSE(h.writer().calls.empty());
  EXPECT_EQ(h.writer().calls[0].verb, "DeleteBindRequest");
  EXPECT_EQ(h.writer().calls[0].key, "ns/p1");
  EXPECT_EQ(h.writer().CallsOf("DeleteBindRequest").size(), 1u) << "p2's own BindRequest stays";
  auto creates = h.writer().CallsOf("CreateBindRequest");
  ASSERT_EQ(creates.size(), 1u) << "p1 is decided again; p2 is Binding";
  api::BindRequest br = DecodeBindRequest(creates[0].body);
  EXPECT_EQ(br.metadata.name, "p1");
  EXPECT_EQ(br.metadata.owner_references.at(0).uid, "uid-p1");
  EXPECT_EQ(h.sink().counters().stale_bind_requests_deleted, 1);
}

// An eviction deletes the victim by name with its uid as a precondition: a pod created again
// under that name since the snapshot answers 409 and is neither deleted nor counted.
TEST(OutputSink, EvictionIsPreconditionedOnTheVictimsUid) {
  const std::string cluster =
      NodeYaml("n1", 1) + QueueYaml("q") + PriorityClassYaml("low", 50) +
      PriorityClassYaml("high", 200) +
      PodGroupYaml("ns", "pg-low", "q", 1, "  priorityClassName: low\n") +
      PodYaml("ns", "low-0", "pg-low", 1, PodOptions{.node = "n1", .phase = "Running"}) +
      PodGroupYaml("ns", "pg-high", "q", 1, "  priorityClassName: high\n") +
      PodYaml("ns", "high-0", "pg-high", 1);
  {
    Harness h;
    h.Load(cluster);
    h.Cycle();
    auto deletes = h.writer().CallsOf("DeletePod");
    ASSERT_EQ(deletes.size(), 1u);
    EXPECT_EQ(deletes[0].key, "ns/low-0");
    EXPECT_EQ(deletes[0].body, "uid-low-0");
    EXPECT_EQ(h.sink().counters().pods_evicted, 1);
  }
  Harness h;
  h.Load(cluster);
  h.writer().FailNext("DeletePod", AbortedError("Precondition failed: UID in precondition")
                                       .SetReason("Conflict")
                                       .SetHttpCode(409));
  h.Cycle();
  EXPECT_EQ(h.sink().counters().pods_evicted, 0);
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty()) << "the preemptor is pipelined";
}

TEST(OutputSink, UnschedulableJobConditionIsWrittenOnce) {
  Harness h;
  h.Load(NodeYaml("n1", 1) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
         PodYaml("ns", "p1", "pg", 2));
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty());
  auto events = h.writer().Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].reason, "Unschedulable");
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].object.name, "p1");
  EXPECT_EQ(events[1].reason, "Unschedulable");
  EXPECT_EQ(events[1].object.kind, "PodGroup");
  EXPECT_EQ(
      events[1].message.rfind("PodSchedulingErrors: Resources were not found for pod ns/p1", 0), 0u)
      << events[1].message;

  ASSERT_EQ(h.updates().size(), 2u);  // pod condition + PodGroup status
  h.updates().Drain(&h.writer());
  ASSERT_EQ(h.writer().CallsOf("PatchPodStatus").size(), 1u);
  ASSERT_EQ(h.writer().CallsOf("PatchPodGroupStatus").size(), 1u);
  EXPECT_NE(h.writer().CallsOf("PatchPodGroupStatus")[0].body.find("UnschedulableOnNodePool"),
            std::string::npos);

  // Nothing changed: the PodGroup (overlaid with what was written) is not patched again.
  h.writer().calls.clear();
  h.Cycle();
  h.updates().Drain(&h.writer());
  EXPECT_TRUE(h.writer().CallsOf("PatchPodGroupStatus").empty());
}

TEST(OutputSink, FractionalPodBindRequest) {
  Harness h;
  h.Load(NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
         PodYaml("ns", "f1", "pg", 0, PodOptions{.annotations = "    gpu-fraction: \"0.5\"\n"}));
  h.Cycle();
  auto creates = h.writer().CallsOf("CreateBindRequest");
  ASSERT_EQ(creates.size(), 1u);
  api::BindRequest br = DecodeBindRequest(creates[0].body);
  EXPECT_EQ(br.spec.received_resource_type, "Fraction");
  ASSERT_TRUE(br.spec.received_gpu);
  EXPECT_EQ(br.spec.received_gpu->count, 1);
  EXPECT_EQ(br.spec.received_gpu->portion, "0.50");
  ASSERT_EQ(br.spec.selected_gpu_groups.size(), 1u);
  EXPECT_EQ(br.spec.selected_gpu_groups[0].size(), 36u);  // a new random UUID
}

class EvictionTest : public ::testing::TestWithParam<bool> {};

TEST_P(EvictionTest, PreemptedPodIsDeletedAfterAnAnnotatedEvent) {
  SchedulerParams params;
  params.update_pod_eviction_condition = GetParam();
  Harness h(params);
  h.Load(PriorityClassYaml("low", 50) + PriorityClassYaml("high", 200) + NodeYaml("n1", 1) +
         QueueYaml("q") + PodGroupYaml("ns", "pg-low", "q", 1, "  priorityClassName: low\n") +
         PodYaml("ns", "low-0", "pg-low", 1, PodOptions{.node = "n1", .phase = "Running"}) +
         PodGroupYaml("ns", "pg-high", "q", 1, "  priorityClassName: high\n") +
         PodYaml("ns", "high-0", "pg-high", 1));
  std::vector<std::string> evicted;  // pod_group_evicted_pods_total, one per pod
  h.sink().set_on_pod_evicted([&](const PodGroupInfo& job, const EvictionMetadata& meta) {
    evicted.push_back(job.namespace_() + "/" + job.name() + " " + meta.action);
  });
  h.Cycle();
  EXPECT_EQ(evicted, std::vector<std::string>{"ns/pg-low preempt"});

  std::vector<FakeSchedulerWriter::Call> relevant;
  for (const auto& c : h.writer().calls) {
    if (c.verb == "DeletePod" || c.verb == "PatchPodStatus" ||
        (c.verb == "Event" && (c.event.reason == "Evict" || c.event.reason == "Pipelined"))) {
      relevant.push_back(c);
    }
  }
  size_t i = 0;
  ASSERT_EQ(relevant.size(), GetParam() ? 4u : 3u);
  const EventRecord& evict = relevant[i++].event;
  EXPECT_EQ(evict.object.kind, "PodGroup");
  EXPECT_EQ(evict.object.name, "pg-low");
  EXPECT_EQ(evict.message, "Pod ns/low-0 was preempted by higher priority workload ns/pg-high");
  EXPECT_EQ(evict.annotations,
            (std::map<std::string, std::string>{{"evictor-action-type", "preempt"},
                                                {"evictor-pod-group-name", "pg-high"},
                                                {"evictor-pod-group-namespace", "ns"},
                                                {"num-evicted-pods", "1"}}));
  if (GetParam()) {
    EXPECT_EQ(relevant[i].verb, "PatchPodStatus");
    EXPECT_NE(relevant[i].body.find(R"("type":"DisruptionTarget","status":"True")"),
              std::string::npos);
    EXPECT_NE(relevant[i].body.find(R"("reason":"PreemptionByScheduler")"), std::string::npos);
    ++i;
  }
  EXPECT_EQ(relevant[i].verb, "DeletePod");
  EXPECT_EQ(relevant[i].key, "ns/low-0");
  ++i;
  EXPECT_EQ(relevant[i].event.reason, "Pipelined");
  EXPECT_EQ(relevant[i].event.message, "Pod ns/high-0 was pipelined to node n1");
  // Pipelined decisions are not persisted.
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty());
  EXPECT_EQ(h.sink().counters().pods_evicted, 1);
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutDisruptionCondition, EvictionTest,
                         ::testing::Values(false, true));

TEST(OutputSink, FailedBindRequestCreationReportsBindingError) {
  Harness h;
  h.Load(NodeYaml("n1", 1) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
         PodYaml("ns", "p1", "pg", 1));
  // 403: refused, nothing stored (an unanswered request or a 5xx would be held in doubt).
  h.writer().FailNext("CreateBindRequest", InternalError("boom").SetHttpCode(403));
  h.Cycle();
  bool failed_binding = false;
  for (const auto& e : h.writer().Events()) {
    EXPECT_NE(e.reason, "Scheduled");
    if (e.reason == "FailedBinding") {
      failed_binding = true;
      EXPECT_EQ(e.type, "Warning");
      EXPECT_EQ(e.message, "Failed to bind pod ns/p1 to node n1. boom");
    }
  }
  EXPECT_TRUE(failed_binding);
  EXPECT_EQ(h.sink().counters().bind_request_failures, 1);
  // The pod is Pending again in the session (and will be retried next cycle).
  h.writer().calls.clear();
  h.Cycle();
  EXPECT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 1u);
}

TEST(OutputSink, PartitionedShardLabelsBindRequestAndPod) {
  SchedulerParams params;
  params.partition_label_value = "pool-a";
  Harness h(params);
  std::string pool = "    kai.scheduler/node-pool: pool-a\n";
  h.Load(NodeYaml("n1", 1, pool) + QueueYaml("q", "", -1, "  labels:\n" + pool) +
         PodGroupYaml("ns", "pg", "q", 1, "", "  labels:\n" + pool) + PodYaml("ns", "p1", "pg", 1));
  h.Cycle();
  auto creates = h.writer().CallsOf("CreateBindRequest");
  ASSERT_EQ(creates.size(), 1u);
  EXPECT_EQ(DecodeBindRequest(creates[0].body).metadata.labels,
            (std::map<std::string, std::string>{{"kai.scheduler/node-pool", "pool-a"},
                                                {"selected-node", "n1"}}));
  auto events = h.writer().Events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].message, "Successfully assigned pod ns/p1 to node n1 at node-pool pool-a");
  bool label_patch = false;
  for (const auto& u : DrainQueue(&h.updates())) {
    if (u.kind != StatusUpdate::Kind::kPodLabels) continue;
    label_patch = true;
    EXPECT_EQ(u.patch, R"({"metadata":{"labels":{"kai.scheduler/node-pool":"pool-a"}}})");
  }
  EXPECT_TRUE(label_patch);
}

TEST(OutputSink, WritesAreDeterministic) {
  std::string cluster = NodeYaml("n1", 2) + NodeYaml("n2", 2) + QueueYaml("q");
  for (int i = 0; i < 6; ++i) {
    std::string pg = "pg" + std::to_string(i);
    cluster += PodGroupYaml("ns", pg, "q", 1) + PodYaml("ns", "p" + std::to_string(i), pg, 1);
  }
  auto run = [&]() {
    Harness h;
    h.Load(cluster);
    h.Cycle();
    std::vector<std::string> log;
    for (const auto& c : h.writer().calls) {
      log.push_back(c.verb + " " + c.key + " " + c.body + " " + c.event.reason + " " +
                    c.event.message);
    }
    for (const auto& u : DrainQueue(&h.updates()))
      log.push_back(u.Key() + u.patch + u.status_patch);
    return log;
  };
  auto a = run();
  EXPECT_EQ(a, run());
  EXPECT_EQ(
      std::count_if(a.begin(), a.end(),
                    [](const std::string& s) { return s.rfind("CreateBindRequest", 0) == 0; }),
      4);
}

}  // namespace
}  // namespace kai::scheduler
