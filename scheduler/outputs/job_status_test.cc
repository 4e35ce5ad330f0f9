#include "scheduler/outputs/job_status.h"

#include <gtest/gtest.h>

#include "api/well_known.h"
#include "scheduler/outputs/test_cluster.h"

namespace kai::scheduler {
namespace {

using outputs_testing::PodGroupYaml;
using outputs_testing::PodOptions;
using outputs_testing::PodYaml;
using outputs_testing::QueueYaml;

WallTime T(const char* s) { return ParseRfc3339(s).value(); }

TEST(JobFitErrorsToDetailedMessage, ReasonThenSortedMessages) {
  std::vector<JobFitError> e{{"OverLimit", "b", std::nullopt},
                             {"PodSchedulingErrors", "a", std::nullopt},
                             {"PodSchedulingErrors", "b", std::nullopt}};
  EXPECT_EQ(JobFitErrorsToDetailedMessage(e), "\nUnable to schedule podgroup.\na.\nb.\nb.");
  EXPECT_EQ(JobFitErrorsToDetailedMessage({e[0]}), "\nOverLimit.\nb.");
}

TEST(ToUnschedulableExplanation, QueueDetailsBecomeResourceLists) {
  QueueDetails d;
  d.name = "team";
  d.deserved = {{"gpu", 2}, {"cpu", 1500}, {"memory", 2147483648.0}};
  d.limits = {{"gpu", 3.5}, {"cpu", -1}, {"memory", -1}};
  auto x = ToUnschedulableExplanation(JobFitError{"OverLimit", "too much", d});
  EXPECT_EQ(x.reason, "OverLimit");
  EXPECT_EQ(x.message, "too much");
  ASSERT_TRUE(x.details && x.details->queue_details);
  const auto& q = *x.details->queue_details;
  EXPECT_EQ(q.name, "team");
  EXPECT_EQ(q.queue_deserved_resources.at("cpu").ToString(), "1500m");
  EXPECT_EQ(q.queue_deserved_resources.at("memory").ToString(), "2Gi");
  EXPECT_EQ(q.queue_deserved_resources.at("nvidia.com/gpu").ToString(), "2");
  EXPECT_EQ(q.queue_resource_limits.at("nvidia.com/gpu").ToString(), "3");  // int64 as KAI
  EXPECT_EQ(q.queue_requested_resources.at("cpu").ToString(), "0");
}

api::SchedulingCondition Cond(const std::string& pool, const std::string& message) {
  api::SchedulingCondition c;
  c.type = "UnschedulableOnNodePool";
  c.node_pool = pool;
  c.reason = "Unschedulable";
  c.message = message;
  c.status = "True";
  return c;
}

TEST(SetSchedulingCondition, TransitionIdsSquashAndIdempotence) {
  api::PodGroup pg;
  WallTime now = T("2025-01-01T00:00:00Z");
  EXPECT_TRUE(SetSchedulingCondition(&pg, Cond("default", "m1"), now));
  ASSERT_EQ(pg.status.scheduling_conditions.size(), 1u);
  EXPECT_EQ(pg.status.scheduling_conditions[0].transition_id, "1");
  EXPECT_EQ(pg.status.scheduling_conditions[0].last_transition_time, now);
  // Same condition again: nothing to write.
  EXPECT_FALSE(SetSchedulingCondition(&pg, Cond("default", "m1"), now));
  // Another node pool is appended after it.
  EXPECT_TRUE(SetSchedulingCondition(&pg, Cond("pool-a", "m2"), now));
  ASSERT_EQ(pg.status.scheduling_conditions.size(), 2u);
  EXPECT_EQ(pg.status.scheduling_conditions[1].transition_id, "2");
  // Back to default: its old condition is squashed and the new one goes last.
  EXPECT_TRUE(SetSchedulingCondition(&pg, Cond("default", "m1"), now));
  ASSERT_EQ(pg.status.scheduling_conditions.size(), 2u);
  EXPECT_EQ(pg.status.scheduling_conditions[0].node_pool, "pool-a");
  EXPECT_EQ(pg.status.scheduling_conditions[1].node_pool, "default");
  EXPECT_EQ(pg.status.scheduling_conditions[1].transition_id, "3");
}

TEST(SetSchedulingCondition, BadTransitionIdCountsAsZero) {
  api::PodGroup pg;
  auto c = Cond("default", "old");
  c.transition_id = "abc";
  pg.status.scheduling_conditions.push_back(c);
  EXPECT_TRUE(SetSchedulingCondition(&pg, Cond("default", "new"), WallTime{}));
  EXPECT_EQ(pg.status.scheduling_conditions.back().transition_id, "1");
}

class JobStatusTest : public ::testing::Test {
 protected:
  // One snapshot (no session): statuses as the loader derives them.
  std::unique_ptr<ClusterInfo> Snapshot(const std::string& yaml,
                                        const SchedulerParams& params = {}) {
    auto objects = LoadObjects(yaml);
    EXPECT_TRUE(objects.ok()) << objects.status();
    model_.AddAll(*objects);
    std::vector<std::string> warnings;
    return model_.Snapshot(params, &warnings);
  }
  ClusterModel model_;
};

TEST_F(JobStatusTest, NotReadyJobGetsOnlyTheNotReadyEvent) {
  auto c = Snapshot(QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 3) +
                    PodYaml("ns", "p1", "pg", 1) + PodYaml("ns", "p2", "pg", 1));
  const PodGroupInfo* job = c->FindJob("ns/pg");
  ASSERT_NE(job, nullptr);
  auto w = ComputeJobStatusWrites(*job, {}, T("2025-01-01T00:00:00Z"));
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0].reason, "NotReady");
  EXPECT_EQ(w.events[0].type, "Normal");
  EXPECT_EQ(w.events[0].object.kind, "PodGroup");
  EXPECT_EQ(w.events[0].object.api_version, "scheduling.run.ai/v2alpha2");
  EXPECT_EQ(w.events[0].message,
            "Job is not ready for scheduling. Waiting for 3 pods, currently 2 exist, 0 are gated");
  EXPECT_TRUE(w.pod_status_patches.empty());
  EXPECT_TRUE(w.podgroup_status_patch.empty());
  EXPECT_EQ(w.desired, nullptr);
}

TEST_F(JobStatusTest, PendingPodsGetConditionsAndThePodGroupACondition) {
  auto c = Snapshot(QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                    PodYaml("ns", "p2", "pg", 1) + PodYaml("ns", "p1", "pg", 1));
  PodGroupInfo* job = c->FindJob("ns/pg");
  ASSERT_NE(job, nullptr);
  job->AddJobFitError("PodSchedulingErrors", "no room");
  TaskFitErrors fe;
  fe.AddNodeError(NodeFitError{"n1", {"node(s) didn't have enough resources: GPUs"}});
  job->AddTaskFitErrors(*c->FindTask("ns/p1"), fe);
  auto w = ComputeJobStatusWrites(*job, {}, T("2025-01-01T00:00:00Z"));

  // Pod events in name order, then the PodGroup event.
  ASSERT_EQ(w.events.size(), 3u);
  EXPECT_EQ(w.events[0].object.name, "p1");
  EXPECT_EQ(w.events[0].type, "Warning");
  EXPECT_EQ(w.events[0].reason, "Unschedulable");
  EXPECT_EQ(w.events[0].message,
            "no nodes with enough resources were found: 1 node(s) didn't have enough resources: "
            "GPUs.");
  EXPECT_EQ(w.events[1].object.name, "p2");
  EXPECT_EQ(w.events[1].message, "PodSchedulingErrors: no room.");  // job errors as fallback
  EXPECT_EQ(w.events[2].object.kind, "PodGroup");
  EXPECT_EQ(w.events[2].reason, "Unschedulable");
  EXPECT_EQ(w.events[2].type, "Normal");

  ASSERT_EQ(w.pod_status_patches.size(), 2u);
  EXPECT_EQ(w.pod_status_patches[0].name, "p1");
  EXPECT_EQ(w.pod_status_patches[0].patch,
            R"({"metadata":{"uid":"uid-p1"},)"  // a pod made since under the name refuses it
            R"("status":{"conditions":[{"type":"PodScheduled","status":"False",)"
            R"("lastProbeTime":null,"lastTransitionTime":"2025-01-01T00:00:00Z",)"
            R"("reason":"Unschedulable","message":"no nodes with enough resources were found: )"
            R"(1 node(s) didn't have enough resources: GPUs."}]}})");

  EXPECT_TRUE(w.podgroup_patch.empty());
  EXPECT_EQ(w.podgroup_status_patch,
            R"([{"op":"add","path":"/status","value":{"schedulingConditions":[{"type":)"
            R"("UnschedulableOnNodePool","nodePool":"default","reason":"Unschedulable",)"
            R"("message":"PodSchedulingErrors: no room.","reasons":[{"reason":)"
            R"("PodSchedulingErrors","message":"no room"}],"lastTransitionTime":)"
            R"("2025-01-01T00:00:00Z","status":"True","transitionID":"1"}]}}])");
  ASSERT_NE(w.desired, nullptr);
  EXPECT_EQ(w.desired->status.scheduling_conditions.size(), 1u);
}

TEST_F(JobStatusTest, MarkUnschedulableFalseAndNodePoolPrefix) {
  SchedulerParams shard;
  shard.partition_label_value = "pool-a";
  auto c = Snapshot(
      QueueYaml("q", "", -1, "  labels:\n    kai.scheduler/node-pool: pool-a\n") +
          PodGroupYaml("ns", "pg", "q", 1, "  markUnschedulable: false\n  schedulingBackoff: 1\n",
                       "  labels:\n    kai.scheduler/node-pool: pool-a\n") +
          PodYaml("ns", "p1", "pg", 1),
      shard);
  PodGroupInfo* job = c->FindJob("ns/pg");
  ASSERT_NE(job, nullptr);
  auto w = ComputeJobStatusWrites(*job, {}, T("2025-01-01T00:00:00Z"));
  EXPECT_TRUE(w.pod_status_patches.empty());
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.events[0].message, "Node-Pool 'pool-a': Unable to schedule pod");
  EXPECT_EQ(w.events[1].message, "Node-Pool 'pool-a': Unable to schedule podgroup");
  ASSERT_NE(w.desired, nullptr);
  EXPECT_EQ(w.desired->status.scheduling_conditions[0].node_pool, "pool-a");
}

TEST_F(JobStatusTest, ConditionUnchangedPodIsNotPatchedAgain) {
  auto c = Snapshot(
      QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
      PodYaml("ns", "p1", "pg", 1,
              PodOptions{.status_extra = "  conditions:\n  - type: PodScheduled\n    status: "
                                         "\"False\"\n    reason: Unschedulable\n    message: "
                                         "Unable to schedule pod\n    lastTransitionTime: "
                                         "\"2024-01-01T00:00:00Z\"\n"}));
  auto w = ComputeJobStatusWrites(*c->FindJob("ns/pg"), {}, T("2025-01-01T00:00:00Z"));
  EXPECT_TRUE(w.pod_status_patches.empty());
  EXPECT_EQ(w.events.size(), 2u);  // events are still recorded (the recorder aggregates)
}

TEST_F(JobStatusTest, TimestampAnnotationsArePatched) {
  auto c = Snapshot(QueueYaml("q") +
                    PodGroupYaml("ns", "pg", "q", 1, "",
                                 "  annotations:\n    kai.scheduler/stale-podgroup-timestamp: "
                                 "\"2024-01-01T00:00:00Z\"\n") +
                    PodYaml("ns", "p1", "pg", 1, PodOptions{.node = "n1", .phase = "Running"}));
  PodGroupInfo* job = c->FindJob("ns/pg");
  ASSERT_NE(job, nullptr);
  job->stale_timestamp.reset();
  job->stale = false;
  job->last_start_timestamp = T("2025-01-01T00:00:05Z");
  auto w = ComputeJobStatusWrites(*job, {}, T("2025-01-01T00:00:10Z"));
  EXPECT_TRUE(w.events.empty());
  EXPECT_EQ(
      w.podgroup_patch,
      R"([{"op":"remove","path":"/metadata/annotations/kai.scheduler~1stale-podgroup-timestamp"},)"
      R"({"op":"add","path":"/metadata/annotations/kai.scheduler~1last-start-timestamp",)"
      R"("value":"2025-01-01T00:00:05Z"}])");
  EXPECT_TRUE(w.podgroup_status_patch.empty());
  ASSERT_NE(w.desired, nullptr);
  EXPECT_EQ(w.desired->metadata.annotations.at(std::string(api::kLastStartTimestampAnnotation)),
            "2025-01-01T00:00:05Z");
}

TEST_F(JobStatusTest, StaleJobEvent) {
  auto c = Snapshot(QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 2) +
                    PodYaml("ns", "p1", "pg", 1, PodOptions{.node = "n1", .phase = "Running"}));
  PodGroupInfo* job = c->FindJob("ns/pg");
  job->stale = true;
  job->stale_timestamp = T("2025-01-01T00:00:00Z");
  auto w = ComputeJobStatusWrites(*job, {}, T("2025-01-01T00:00:10Z"));
  ASSERT_GE(w.events.size(), 1u);
  EXPECT_EQ(w.events[0].reason, "StaleJob");
  EXPECT_EQ(w.events[0].message, "Job is stale. 1 pods are active, minMember is 2");
}

}  // namespace
}  // namespace kai::scheduler
