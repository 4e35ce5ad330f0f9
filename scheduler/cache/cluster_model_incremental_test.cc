// The incremental snapshot equals a full rebuild (ClusterModel::FullSnapshot) after random event
// sequences: pods, nodes, PodGroups, queues, priority classes and BindRequests added, updated and
// deleted, interleaved with full scheduling cycles whose decisions mutate the session's copy.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/well_known.h"
#include "kube/base/fake_clock.h"
#include "kube/base/random.h"
#include "scheduler/actions/actions.h"
#include "scheduler/bench/synthetic_cluster.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/cache/snapshot_dump.h"
#include "scheduler/framework/session.h"
#include "scheduler/plugins/plugins.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using bench::ApplyEventBatch;
using bench::GenerateSyntheticCluster;
using bench::SpecForSize;
using bench::SyntheticCluster;

template <typename T>
const T& Pick(const std::vector<T>& v, Random* r) {
  return v[r->Uniform(v.size())];
}

// One random event the synthetic batches do not produce.
void RandomStructuralEvent(SyntheticCluster* cluster, ClusterModel* model, Random* r, int step) {
  const LoadedObjects& o = cluster->objects;
  const std::string suffix = "-x" + std::to_string(step);
  switch (r->Uniform(14)) {
    case 0: {  // a PodGroup deleted (its pods become orphans)
      const auto& pg = Pick(o.podgroups, r);
      model->DeletePodGroup(pg->metadata.namespace_ + "/" + pg->metadata.name);
      break;
    }
    case 1: {  // a PodGroup re-added / updated (minMember, backoff, priority class)
      auto pg = std::make_shared<api::PodGroup>(*Pick(o.podgroups, r));
      pg->spec.min_member = static_cast<int32_t>(1 + r->Uniform(4));
      if (r->Uniform(4) == 0) pg->spec.priority_class_name = "missing-class";
      if (r->Uniform(4) == 0) pg->spec.queue = "missing-queue";
      model->UpsertPodGroup(pg);
      break;
    }
    case 2: {  // a queue updated or deleted
      const auto& q = Pick(o.queues, r);
      if (r->Uniform(2) == 0) {
        model->DeleteQueue(q->metadata.name);
      } else {
        model->UpsertQueue(q);
      }
      break;
    }
    case 3: {  // a priority class
      if (!o.priority_classes.empty()) {
        auto pc = std::make_shared<api::PriorityClass>(*Pick(o.priority_classes, r));
        pc->value += 1;
        model->UpsertPriorityClass(pc);
      }
      break;
    }
    case 4:
    case 5: {  // a BindRequest for some pod (maybe failed, maybe to a missing node)
      const LoadedPod& p = Pick(o.pods, r);
      auto br = std::make_shared<api::BindRequest>();
      br->metadata.namespace_ = p.pod->metadata.namespace_;
      br->metadata.name = p.pod->metadata.name + "-br" + std::to_string(r->Uniform(2));
      br->spec.pod_name = p.pod->metadata.name;
      br->spec.selected_node =
          r->Uniform(5) == 0 ? "no-such-node" : Pick(o.nodes, r).node->metadata.name;
      br->spec.received_resource_type = "Regular";
      if (r->Uniform(3) > 0) {  // owned by the pod, or by an earlier pod of its name
        br->metadata.owner_references.push_back(
            {.api_version = "v1",
             .kind = "Pod",
             .name = p.pod->metadata.name,
             .uid = r->Uniform(2) == 0 ? p.pod->metadata.uid : "uid-of-an-earlier-pod"});
      }
      if (r->Uniform(4) == 0) {
        br->status.phase = std::string(api::kBindRequestPhaseFailed);
        br->spec.backoff_limit = 0;
      }
      model->UpsertBindRequest(br);
      if (r->Uniform(4) == 0) {  // the pod deleted and created again: the BindRequest is stale
        LoadedPod again = p;
        auto pod = std::make_shared<api::Pod>(*p.pod);
        pod->metadata.uid = "uid-of-an-earlier-pod";
        again.pod = pod;
        model->UpsertPod(again);
      }
      break;
    }
    case 6: {  // a BindRequest deleted
      const LoadedPod& p = Pick(o.pods, r);
      model->DeleteBindRequest(p.pod->metadata.namespace_ + "/" + p.pod->metadata.name + "-br" +
                               std::to_string(r->Uniform(2)));
      break;
    }
    case 7: {  // a node deleted, or a new one
      if (r->Uniform(2) == 0) {
        model->DeleteNode(Pick(o.nodes, r).node->metadata.name);
      } else {
        LoadedNode n = Pick(o.nodes, r);
        auto node = std::make_shared<api::Node>(*n.node);
        node->metadata.name += suffix;
        n.node = node;
        model->UpsertNode(n);
      }
      break;
    }
    case 8: {  // a node's GPU memory label changes (accepted resources of its shared pods)
      LoadedNode n = Pick(o.nodes, r);
      auto node = std::make_shared<api::Node>(*n.node);
      node->metadata.labels["nvidia.com/gpu.memory"] =
          std::to_string(10000 + r->Uniform(4) * 10000);
      n.node = node;
      model->UpsertNode(n);
      break;
    }
    case 9: {  // a pod without a PodGroup annotation (a job of one under an implicit PodGroup)
      LoadedPod p = Pick(o.pods, r);
      auto pod = std::make_shared<api::Pod>(*p.pod);
      pod->metadata.name += suffix;
      pod->metadata.annotations.erase(std::string(api::kPodGroupNameAnnotation));
      pod->metadata.labels.erase(std::string(api::kGpuGroupLabel));
      pod->spec.node_name.clear();
      pod->status.phase = "Pending";
      p.pod = pod;
      model->UpsertPod(p);
      break;
    }
    case 10: {  // a pod asking for a resource no node has (changes the resource vector)
      LoadedPod p = Pick(o.pods, r);
      auto pod = std::make_shared<api::Pod>(*p.pod);
      pod->metadata.name += suffix;
      p.pod = pod;
      p.requests["example.com/widget"] = 1;
      model->UpsertPod(p);
      if (r->Uniform(2) == 0) model->DeletePod(pod->metadata.namespace_ + "/" + pod->metadata.name);
      break;
    }
    case 11: {  // a pod with a bad GPU annotation (a warning), or a reservation pod
      LoadedPod p = Pick(o.pods, r);
      auto pod = std::make_shared<api::Pod>(*p.pod);
      if (r->Uniform(2) == 0) {
        pod->metadata.annotations[std::string(api::kGpuFractionAnnotation)] = "lots";
      } else {
        pod->metadata.labels[std::string(api::kAppLabel)] = "kai-resource-reservation";
      }
      p.pod = pod;
      model->UpsertPod(p);
      break;
    }
    case 12: {  // a pod deleted and a PodGroup's pods moved to another job
      model->DeletePod(Pick(o.pods, r).pod->metadata.namespace_ + "/" +
                       Pick(o.pods, r).pod->metadata.name);
      break;
    }
    default: {  // a pod of a running job marked for deletion (Releasing)
      LoadedPod p = Pick(o.pods, r);
      auto pod = std::make_shared<api::Pod>(*p.pod);
      pod->metadata.deletion_timestamp = cluster->now;
      p.pod = pod;
      model->UpsertPod(p);
      break;
    }
  }
}

// Runs every action on the snapshot and gives it back (for ClusterModel::Recycle).
std::unique_ptr<ClusterInfo> RunCycle(std::unique_ptr<ClusterInfo> snapshot, WallTime now) {
  static const auto* plugins = [] {
    auto* p = new PluginRegistry();
    RegisterDefaultPlugins(p);
    return p;
  }();
  static const auto* actions = [] {
    auto* a = new ActionRegistry();
    RegisterDefaultActions(a);
    return a;
  }();
  SchedulerConfiguration conf = DefaultSchedulerConfiguration();
  SchedulerParams params;
  FakeClock clock(now);
  SeededRandom random(7);
  testing::RecordingSink sink;
  Session ssn("incremental", std::move(snapshot), conf, params, &sink, &clock, &random);
  ssn.Open(*plugins);
  for (const std::string& name : conf.actions) {
    if (const ActionRegistry::Builder* b = actions->Find(name)) (*b)()->Execute(&ssn);
  }
  ssn.Close();
  return ssn.TakeCluster();
}

// Task pointers of nodes and jobs point into their own snapshot.
void ExpectOwnPointers(const ClusterInfo& c, const std::string& where) {
  for (const auto& [name, node] : c.nodes) {
    for (const auto& [key, e] : node->tasks()) ASSERT_EQ(e.task, c.FindTask(key)) << where;
  }
  for (const auto& [id, job] : c.jobs) {
    for (const PodInfo* task : job->tasks()) ASSERT_EQ(task, c.FindTask(task->key())) << where;
  }
  ASSERT_EQ(c.node_list.size(), c.nodes.size()) << where;
  for (const NodeInfo* n : c.node_list) ASSERT_EQ(n, c.FindNode(n->name())) << where;
}

void ExpectSameAsFull(const ClusterModel& model, const SchedulerParams& params,
                      const std::string& where) {
  std::vector<std::string> incremental_warnings, full_warnings;
  auto incremental = model.Snapshot(params, &incremental_warnings);
  auto full = model.FullSnapshot(params, &full_warnings);
  ASSERT_EQ(FirstSnapshotDifference(*full, *incremental), "") << where;
  ASSERT_EQ(incremental_warnings, full_warnings) << where;
  ExpectOwnPointers(*incremental, where);
  // The next snapshot is copied into this one's objects.
  model.Recycle(std::move(incremental));
}

class IncrementalSnapshotTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(IncrementalSnapshotTest, EqualsFullRebuildAfterRandomEventsAndCycles) {
  auto spec = SpecForSize("tiny");
  ASSERT_TRUE(spec.ok());
  spec->seed = GetParam();
  SyntheticCluster cluster = GenerateSyntheticCluster(*spec);
  ClusterModel model;
  model.AddAll(cluster.objects);
  SeededRandom r(GetParam() * 7919 + 1);
  SchedulerParams params;
  ExpectSameAsFull(model, params, "initial");
  int checks = 0;
  for (int step = 0; step < 60; ++step) {
    const std::string where =
        "seed " + std::to_string(GetParam()) + " step " + std::to_string(step);
    if (r.Uniform(2) == 0) {
      ApplyEventBatch(&cluster, static_cast<int>(1 + r.Uniform(8)), &r, &model);
    }
    const int structural = static_cast<int>(r.Uniform(4));
    for (int i = 0; i < structural; ++i) RandomStructuralEvent(&cluster, &model, &r, step);
    ExpectSameAsFull(model, params, where);
    if (HasFatalFailure()) return;
    ++checks;
    // A whole cycle on a fresh incremental snapshot: its decisions mutate tasks, nodes and jobs
    // of the session's copy, which must not leak into the next snapshot — neither through the
    // kept state nor through the recycled copy the next snapshot is assigned into.
    if (r.Uniform(3) != 0) {
      auto used = RunCycle(model.Snapshot(params, nullptr), cluster.now);
      if (r.Uniform(4) != 0) model.Recycle(std::move(used));
    }
    // Sometimes another shard's parameters (the kept state is rebuilt, then kept again).
    if (r.Uniform(10) == 0) {
      SchedulerParams other;
      other.resource_reservation_app_label = "other-reservation";
      ExpectSameAsFull(model, other, where + " (other params)");
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(checks, 60);
}

INSTANTIATE_TEST_SUITE_P(Seeds, IncrementalSnapshotTest, ::testing::Values(1, 2, 3, 4, 5, 6));

// The comparison can fail: a session's change to its copy shows in the dump, and it does not
// reach the next snapshot.
TEST(IncrementalSnapshot, DumpSeesSessionChangesAndCopiesAreIndependent) {
  auto spec = SpecForSize("tiny");
  ASSERT_TRUE(spec.ok());
  SyntheticCluster cluster = GenerateSyntheticCluster(*spec);
  ClusterModel model;
  model.AddAll(cluster.objects);
  SchedulerParams params;
  auto a = model.Snapshot(params, nullptr);
  auto b = model.Snapshot(params, nullptr);
  ASSERT_EQ(FirstSnapshotDifference(*a, *b), "");
  ASSERT_FALSE(a->tasks.empty());
  PodInfo* t = a->tasks.back().get();
  t->status = t->status == PodStatus::kPending ? PodStatus::kAllocated : PodStatus::kPending;
  EXPECT_NE(FirstSnapshotDifference(*b, *a), "");
  NodeInfo* n = a->node_list.front();
  n->idle.Set(0, n->idle.Get(0) + 1);
  auto c = model.Snapshot(params, nullptr);
  EXPECT_EQ(FirstSnapshotDifference(*b, *c), "");
  ExpectOwnPointers(*c, "third snapshot");
}

// A recycled snapshot may have been changed in any way (sessions write their snapshot from many
// places); the snapshot filled into it equals a full one, shares nothing with the kept state and
// points only into itself.
TEST(IncrementalSnapshot, RecycledSnapshotIsOverwrittenWhole) {
  auto spec = SpecForSize("tiny");
  ASSERT_TRUE(spec.ok());
  SyntheticCluster cluster = GenerateSyntheticCluster(*spec);
  ClusterModel model;
  model.AddAll(cluster.objects);
  SchedulerParams params;
  auto used = model.Snapshot(params, nullptr);
  ASSERT_GE(used->tasks.size(), 4u);
  ASSERT_GE(used->nodes.size(), 2u);
  ASSERT_FALSE(used->jobs.empty());
  const ClusterInfo* address = used.get();
  // Damage: statuses, node accounting, a task too many and too few, a node and a job gone, a
  // made-up job and queue usage, session bookkeeping.
  for (auto& t : used->tasks) {
    t->status = PodStatus::kReleasing;
    t->node_name = "somewhere";
    t->gpu_groups.push_back("g");
  }
  used->tasks.pop_back();
  used->num_reservation_tasks = 3;
  used->node_list.front()->idle.Set(0, -5);
  used->node_list.front()->AddTask(used->tasks.front().get());
  used->nodes.erase(std::prev(used->nodes.end()));
  used->node_list.pop_back();
  used->jobs.erase(used->jobs.begin());
  used->jobs.begin()->second->AddJobFitError("reason", "message");
  used->jobs_pending_at_open.push_back(used->jobs.begin()->second.get());
  used->jobs_pending_at_open_set = true;
  used->num_jobs_at_open = 99;
  used->queue_usage["q"]["gpu"] = 1;
  used->stale_bind_requests.push_back({"ns/br", "uid-br"});
  used->IndexQueues();
  used->session_epoch = 12345;
  used->queues.clear();
  model.Recycle(std::move(used));

  std::vector<std::string> warnings, full_warnings;
  auto c = model.Snapshot(params, &warnings);
  EXPECT_EQ(c.get(), address);  // the recycled object was reused
  auto full = model.FullSnapshot(params, &full_warnings);
  EXPECT_EQ(FirstSnapshotDifference(*full, *c), "");
  EXPECT_EQ(warnings, full_warnings);
  ExpectOwnPointers(*c, "recycled");
  EXPECT_FALSE(c->jobs_pending_at_open_set);
  EXPECT_TRUE(c->jobs_pending_at_open.empty());
  EXPECT_FALSE(c->queues_indexed);
  EXPECT_EQ(c->session_epoch, 0u);
  EXPECT_TRUE(c->queue_usage.empty());
  EXPECT_TRUE(c->stale_bind_requests.empty());
  for (const auto& [id, job] : c->jobs) EXPECT_TRUE(job->job_fit_errors.empty()) << id;
  // The kept state did not absorb the damage: a second snapshot, new, is equal too.
  auto d = model.Snapshot(params, nullptr);
  EXPECT_EQ(FirstSnapshotDifference(*full, *d), "");
}

}  // namespace
}  // namespace kai::scheduler
