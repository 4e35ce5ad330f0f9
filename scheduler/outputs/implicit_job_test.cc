// Pods without a PodGroup are scheduled as jobs of one (scheduler/cache/implicit_podgroup.h), and
// nothing is written to the PodGroup that does not exist.
#include <gtest/gtest.h>

#include "api/well_known.h"
#include "scheduler/outputs/test_cluster.h"

namespace kai::scheduler {
namespace {

using outputs_testing::DrainQueue;
using outputs_testing::Harness;
using outputs_testing::NodeYaml;
using outputs_testing::PodGroupYaml;
using outputs_testing::PodOptions;
using outputs_testing::PodYaml;
using outputs_testing::PriorityClassYaml;
using outputs_testing::QueueYaml;

std::unique_ptr<ClusterInfo> Snap(Harness& h, std::vector<std::string>* warnings = nullptr,
                                  const SchedulerParams& params = {}) {
  std::vector<std::string> w;
  auto c = h.model().Snapshot(params, warnings ? warnings : &w);
  return c;
}

TEST(ImplicitPodGroup, BarePodIsAJobOfOneInItsQueueLabel) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("team") +
         PodYaml("ns", "p1", "", 1, PodOptions{.labels = "    kai.scheduler/queue: team\n"}));
  auto c = Snap(h);
  const PodGroupInfo* job = c->FindJob("ns/pg-p1-uid-p1");
  ASSERT_NE(job, nullptr);
  EXPECT_TRUE(job->implicit);
  EXPECT_EQ(job->name(), "pg-p1-uid-p1");
  EXPECT_EQ(job->namespace_(), "ns");
  EXPECT_EQ(job->queue(), "team");
  EXPECT_EQ(job->DefaultMinAvailable(), 1);
  EXPECT_EQ(job->priority(), kDefaultPodGroupPriority);
  ASSERT_EQ(job->tasks().size(), 1u);
  EXPECT_EQ(job->tasks()[0]->key(), "ns/p1");
  EXPECT_EQ(job->tasks()[0]->job(), "ns/pg-p1-uid-p1");
  EXPECT_TRUE(job->job_fit_errors.empty());
}

TEST(ImplicitPodGroup, QueueFallsBackToProjectThenDefaultQueue) {
  Harness h;
  h.Load(NodeYaml("n1", 4, "    kai.scheduler/node-pool: pool-a\n") + QueueYaml("default-queue") +
         PodYaml("ns", "plain", "", 1) +
         PodYaml("ns", "proj", "", 1, PodOptions{.labels = "    project: research\n"}) +
         PodYaml("ns", "proj-pool", "", 1,
                 PodOptions{.labels = "    project: research\n"
                                      "    kai.scheduler/node-pool: pool-a\n"}));
  SchedulerParams pool_a;
  pool_a.partition_label_value = "pool-a";
  auto c = Snap(h);
  ASSERT_NE(c->FindJob("ns/pg-plain-uid-plain"), nullptr);
  EXPECT_EQ(c->FindJob("ns/pg-plain-uid-plain")->queue(), "default-queue");
  ASSERT_NE(c->FindJob("ns/pg-proj-uid-proj"), nullptr);
  EXPECT_EQ(c->FindJob("ns/pg-proj-uid-proj")->queue(), "research");
  // The made-up PodGroup carries the pod's node-pool label, as the pod grouper copies it: it
  // belongs to the pool-a shard only.
  EXPECT_EQ(c->FindJob("ns/pg-proj-pool-uid-proj-pool"), nullptr);
  auto a = Snap(h, nullptr, pool_a);
  ASSERT_NE(a->FindJob("ns/pg-proj-pool-uid-proj-pool"), nullptr);
  EXPECT_EQ(a->FindJob("ns/pg-proj-pool-uid-proj-pool")->queue(), "research-pool-a");
  EXPECT_EQ(a->FindJob("ns/pg-plain-uid-plain"), nullptr);
}

TEST(ImplicitPodGroup, MissingQueueIsAJobFitError) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + PodYaml("ns", "p1", "", 1));
  auto c = Snap(h);
  const PodGroupInfo* job = c->FindJob("ns/pg-p1-uid-p1");
  ASSERT_NE(job, nullptr);
  ASSERT_EQ(job->job_fit_errors.size(), 1u);
  EXPECT_EQ(job->job_fit_errors[0].message, "Queue 'default-queue' does not exist");
}

TEST(ImplicitPodGroup, PriorityFromLabelThenSpecThenTrain) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("default-queue") + PriorityClassYaml("build", 100) +
         PriorityClassYaml("inference", 125) +
         PodYaml("ns", "spec", "", 1, PodOptions{.priority_class = "build"}) +
         PodYaml("ns", "label", "", 1,
                 PodOptions{.labels = "    priorityClassName: inference\n",
                            .priority_class = "build"}) +
         PodYaml("ns", "missing", "", 1,
                 PodOptions{.labels = "    priorityClassName: nope\n", .priority_class = "build"}) +
         PodYaml("ns", "none", "", 1));
  auto c = Snap(h);
  EXPECT_EQ(c->FindJob("ns/pg-spec-uid-spec")->priority(), 100);
  EXPECT_EQ(c->FindJob("ns/pg-label-uid-label")->priority(), 125);
  EXPECT_EQ(c->FindJob("ns/pg-missing-uid-missing")->priority(), 100);  // label names no class
  EXPECT_EQ(c->FindJob("ns/pg-none-uid-none")->priority(), kDefaultPodGroupPriority);
  EXPECT_FALSE(c->FindJob("ns/pg-label-uid-label")->IsPreemptible());  // 125 >= 100
  EXPECT_TRUE(c->FindJob("ns/pg-none-uid-none")->IsPreemptible());

  // With the pod grouper's default class `train` installed, it is used when nothing else is.
  h.Load(PriorityClassYaml("train", 40));
  c = Snap(h);
  EXPECT_EQ(c->FindJob("ns/pg-none-uid-none")->priority(), 40);
  EXPECT_EQ(c->FindJob("ns/pg-spec-uid-spec")->priority(), 100);
}

TEST(ImplicitPodGroup, PreemptibilityFromThePodLabel) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("default-queue") +
         PodYaml("ns", "p1", "", 1,
                 PodOptions{.labels = "    kai.scheduler/preemptibility: "
                                      "non-preemptible\n"}));
  auto c = Snap(h);
  EXPECT_FALSE(c->FindJob("ns/pg-p1-uid-p1")->IsPreemptible());
}

TEST(ImplicitPodGroup, OnlyPodsOfThisSchedulerAndNotReservationPods) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("default-queue") +
         PodYaml("ns", "foreign", "", 0, PodOptions{.scheduler = "default-scheduler"}) +
         PodYaml("kai-resource-reservation", "gpu-reservation-n1-abc", "", 0,
                 PodOptions{.node = "n1",
                            .phase = "Running",
                            .labels = "    app: kai-resource-reservation\n"}));
  auto c = Snap(h);
  EXPECT_TRUE(c->jobs.empty());
  // The snapshot marks whose pods they are (fair share subtracts other schedulers' pods).
  ASSERT_NE(c->FindTask("ns/foreign"), nullptr);
  EXPECT_TRUE(c->FindTask("ns/foreign")->of_other_scheduler);
  ASSERT_NE(c->FindTask("kai-resource-reservation/gpu-reservation-n1-abc"), nullptr);
  EXPECT_FALSE(c->FindTask("kai-resource-reservation/gpu-reservation-n1-abc")->of_other_scheduler);
  EXPECT_TRUE(c->nodes.at("n1")->tasks().begin()->second.task->is_reservation);
  EXPECT_FALSE(c->nodes.at("n1")->tasks().begin()->second.other_scheduler);
}

TEST(ImplicitPodGroup, AnnotatedPodWithoutItsPodGroupIsStillSkipped) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("default-queue") + PodYaml("ns", "p1", "later", 1));
  std::vector<std::string> warnings;
  auto c = Snap(h, &warnings);
  EXPECT_TRUE(c->jobs.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("PodGroup ns/later does not exist"), std::string::npos);
  h.Cycle();
  EXPECT_TRUE(h.writer().calls.empty());
}

TEST(ImplicitPodGroup, ThePodGroupersPodGroupTakesThePodBeforeTheAnnotationArrives) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("default-queue") + QueueYaml("team") +
         PodGroupYaml("ns", "pg-p1-uid-p1", "team", 1) + PodYaml("ns", "p1", "", 1));
  auto c = Snap(h);
  ASSERT_EQ(c->jobs.size(), 1u);
  const PodGroupInfo* job = c->FindJob("ns/pg-p1-uid-p1");
  ASSERT_NE(job, nullptr);
  EXPECT_FALSE(job->implicit);
  EXPECT_EQ(job->queue(), "team");
  EXPECT_EQ(job->tasks().size(), 1u);
}

TEST(ImplicitPodGroup, BarePodIsBoundAndNoPodGroupIsWritten) {
  Harness h;
  h.Load(NodeYaml("n1", 4) + QueueYaml("default-queue") + PodYaml("ns", "p1", "", 1));
  h.Cycle();
  auto creates = h.writer().CallsOf("CreateBindRequest");
  ASSERT_EQ(creates.size(), 1u);
  EXPECT_EQ(creates[0].key, "ns/p1");
  EXPECT_TRUE(h.writer().CallsOf("PatchPodGroup").empty());
  EXPECT_TRUE(h.writer().CallsOf("PatchPodGroupStatus").empty());
  for (const auto& e : h.writer().Events()) EXPECT_EQ(e.object.kind, "Pod") << e.reason;
  // No last-start-timestamp patch for a PodGroup that does not exist.
  EXPECT_TRUE(DrainQueue(&h.updates()).empty());
}

TEST(ImplicitPodGroup, UnschedulableBarePodIsToldOnThePodOnly) {
  Harness h;
  h.Load(NodeYaml("n1", 1) + QueueYaml("default-queue") + PodYaml("ns", "p1", "", 2));
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty());
  auto events = h.writer().Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].object.kind, "Pod");
  EXPECT_EQ(events[0].object.name, "p1");
  EXPECT_EQ(events[0].reason, "Unschedulable");
  auto updates = DrainQueue(&h.updates());
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].kind, StatusUpdate::Kind::kPodStatus);
  EXPECT_EQ(updates[0].name, "p1");
  EXPECT_NE(updates[0].patch.find("PodScheduled"), std::string::npos);
}

TEST(ImplicitPodGroup, HigherPriorityBarePodPreemptsAndTheEvictEventGoesToTheVictimPod) {
  Harness h;
  h.Load(NodeYaml("n1", 1) + QueueYaml("default-queue") + PriorityClassYaml("train", 50) +
         PriorityClassYaml("build", 100) +
         PodYaml("ns", "low", "", 1, PodOptions{.node = "n1", .phase = "Running"}) +
         PodYaml("ns", "high", "", 1,
                 PodOptions{.created = "2025-01-01T00:00:05Z", .priority_class = "build"}));
  h.Cycle();
  auto deletes = h.writer().CallsOf("DeletePod");
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].key, "ns/low");
  bool evict_event = false;
  for (const auto& e : h.writer().Events()) {
    EXPECT_EQ(e.object.kind, "Pod") << e.reason;
    if (e.reason != "Evict") continue;
    evict_event = true;
    EXPECT_EQ(e.object.name, "low");
    EXPECT_EQ(e.annotations.at(std::string(api::kEvictorActionTypeAnnotation)), "preempt");
    EXPECT_EQ(e.annotations.at(std::string(api::kEvictorPodGroupNameAnnotation)),
              "pg-high-uid-high");
  }
  EXPECT_TRUE(evict_event);
  EXPECT_TRUE(h.writer().CallsOf("PatchPodGroup").empty());
  EXPECT_TRUE(h.writer().CallsOf("PatchPodGroupStatus").empty());
}

}  // namespace
}  // namespace kai::scheduler
