// The live scheduler over kube::FakeClient: list+watch into the model, cycles, REST writes.
#include "scheduler/app/live_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/fake_clock.h"
#include "kube/base/time.h"
#include "kube/base/zip_reader.h"
#include "kube/metrics/registry.h"
#include "kube/metrics/text_format.h"
#include "kube/rest/fake_client.h"
#include "kube/testing/eventually.h"
#include "scheduler/app/debug_snapshot_load.h"
#include "scheduler/app/live_testing.h"
#include "scheduler/app/simulate.h"
#include "scheduler/outputs/test_cluster.h"

namespace kai::scheduler {
namespace {

using outputs_testing::NodeYaml;
using outputs_testing::PodGroupYaml;
using outputs_testing::PodYaml;
using outputs_testing::QueueYaml;

using ::kai::testing::Eventually;
using live_testing::GvrOfKind;
using live_testing::kBindRequests;
using live_testing::kPods;
using live_testing::Seed;

LiveSchedulerOptions Options() {
  LiveSchedulerOptions o;
  o.status_workers = 1;
  return o;
}

TEST(LiveScheduler, BindsWhatItListedAndWhatItWatches) {
  kube::FakeClient fake;
  Seed(&fake, NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                  PodYaml("ns", "p1", "pg", 1));
  LiveScheduler s(&fake, Options());
  s.Start();
  ASSERT_TRUE(Eventually([&] { return s.HasSynced(); }));
  s.RunOnce();
  auto br = fake.Get(kBindRequests, "ns", "p1");
  ASSERT_TRUE(br.ok()) << br.status();
  EXPECT_EQ(api::Decode<api::BindRequest>(*br)->spec.selected_node, "n1");

  // A pod created later arrives through the watch and is bound on a later cycle; p1 is not
  // decided again (its BindRequest is in the model).
  Seed(&fake, PodGroupYaml("ns", "pg2", "q", 1) + PodYaml("ns", "p2", "pg2", 1), true);
  ASSERT_TRUE(Eventually([&] {
    s.RunOnce();
    return fake.Get(kBindRequests, "ns", "p2").ok();
  }));
  int creates = 0;
  for (const auto& a : fake.actions()) {
    if (a.verb == "create" && a.gvr == kBindRequests) ++creates;
  }
  EXPECT_EQ(creates, 2);
  // The status workers write the PodGroup's start time.
  ASSERT_TRUE(Eventually([&] {
    auto pg = fake.Get(GvrOfKind("PodGroup"), "ns", "pg");
    return pg.ok() && pg->find("last-start-timestamp") != std::string::npos;
  }));
  s.Stop();
}

// KAI's per-cycle metrics (reference §22.1) on the registry: per-action pod-group counters and
// the queues' fair-share gauges, with the metrics namespace prefix.
TEST(LiveScheduler, ExportsActionCountersAndQueueFairShares) {
  kube::FakeClient fake;
  Seed(&fake, NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                  PodYaml("ns", "p1", "pg", 1) + PodGroupYaml("ns", "big", "q", 1) +
                  PodYaml("ns", "b1", "big", 4));
  metrics::Registry registry;
  LiveSchedulerOptions o = Options();
  o.registry = &registry;
  LiveScheduler s(&fake, o);
  s.Start();
  ASSERT_TRUE(Eventually([&] { return s.HasSynced(); }));
  s.RunOnce();
  const std::string text = registry.Expose();
  EXPECT_NE(text.find("kai_podgroups_acted_on_by_action{action=\"allocate\"} 2"), std::string::npos)
      << text;
  EXPECT_NE(text.find("kai_podgroups_scheduled_by_action{action=\"allocate\"} 1"),
            std::string::npos)
      << text;
  // The only queue gets the cluster's 2 GPUs as its fair share.
  EXPECT_NE(text.find("kai_queue_fair_share_gpu{queue_name=\"q\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("kai_total_preemption_attempts 0"), std::string::npos) << text;
  s.Stop();
}

// The latency metrics on the injected clock: every configured plugin's OnSessionOpen and
// OnSessionClose gauge, and per BindRequest written the pod's time since creation and the bind
// attempt's time (KAI's ExponentialBuckets(5, 2, 10), whole milliseconds).
TEST(LiveScheduler, ExportsPluginAndTaskLatencies) {
  FakeClock clock(ParseRfc3339("2025-01-01T12:00:00Z").value());
  kube::FakeClient fake({.clock = &clock});  // stamps creationTimestamp from `clock`
  Seed(&fake, NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                  PodYaml("ns", "p1", "pg", 1));
  clock.Advance(std::chrono::seconds(1));
  // Each BindRequest creation takes 25 ms.
  fake.PrependReactor("create", "bindrequests", [&](const kube::FakeAction&) {
    clock.Advance(std::chrono::milliseconds(25));
    return std::optional<StatusOr<std::string>>();
  });
  metrics::Registry registry;
  LiveSchedulerOptions o = Options();
  o.registry = &registry;
  o.clock = &clock;
  o.bind_request_workers = 1;
  LiveScheduler s(&fake, o);
  s.Start();
  ASSERT_TRUE(Eventually([&] { return s.HasSynced(); }));
  s.RunOnce();
  ASSERT_TRUE(fake.Get(kBindRequests, "ns", "p1").ok());
  const std::string text = registry.Expose();
  for (const PluginOption& p : o.conf.plugins) {
    for (const char* on_session : {"OnSessionOpen", "OnSessionClose"}) {
      EXPECT_NE(text.find("kai_plugin_scheduling_latency_milliseconds{OnSession=\"" +
                          std::string(on_session) + "\",plugin=\"" + p.name + "\"} 0\n"),
                std::string::npos)
          << p.name << " " << on_session << "\n"
          << text;
    }
  }
  auto histogram = [](const std::string& name, int first_bucket, double sum) {
    std::string out = "# TYPE " + name + " histogram\n";
    for (int b = 5; b <= 2560; b *= 2) {
      out += name + "_bucket{le=\"" + std::to_string(b) + "\"} " + (b >= first_bucket ? "1" : "0") +
             "\n";
    }
    return out + name + "_bucket{le=\"+Inf\"} 1\n" + name + "_sum " + metrics::FormatFloat(sum) +
           "\n" + name + "_count 1\n";
  };
  // Created 1 s before the cycle, written 25 ms into it.
  EXPECT_NE(text.find("# HELP kai_task_scheduling_latency_milliseconds Task scheduling latency "
                      "in milliseconds\n" +
                      histogram("kai_task_scheduling_latency_milliseconds", 1280, 1025)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(histogram("kai_task_bind_latency_milliseconds", 40, 25)), std::string::npos)
      << text;
  // No usage database in the live scheduler: nothing registered under that name.
  EXPECT_EQ(text.find("usage_query_latency"), std::string::npos);
  s.Stop();
}

TEST(LiveScheduler, PendingPodGetsItsConditionAndEvents) {
  kube::FakeClient fake;
  Seed(&fake, NodeYaml("n1", 1) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                  PodYaml("ns", "big", "pg", 3));
  LiveScheduler s(&fake, Options());
  s.Start();
  ASSERT_TRUE(Eventually([&] { return s.HasSynced(); }));
  s.RunOnce();
  s.FlushStatusUpdates();
  auto pod = api::Decode<api::Pod>(*fake.Get(kPods, "ns", "big"));
  ASSERT_TRUE(pod.ok());
  ASSERT_EQ(pod->status.conditions.size(), 1u);
  EXPECT_EQ(pod->status.conditions[0].reason, "Unschedulable");
  ASSERT_TRUE(Eventually([&] {
    auto events = fake.List({"", "v1", "events"}, "ns");
    return events.ok() && events->items.size() == 2;  // pod + PodGroup Unschedulable
  }));
  s.Stop();
  EXPECT_EQ(s.cycles(), 1);
}

// /get-snapshot: the informer caches' objects (apiVersion/kind set), the BindRequest the cycle
// created, the configuration; replayed by simulate to the live decisions.
TEST(LiveScheduler, DebugSnapshotReplaysToTheLiveDecisions) {
  kube::FakeClient fake;
  Seed(&fake, NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                  PodYaml("ns", "p1", "pg", 1) + PodGroupYaml("ns", "pg2", "q", 1) +
                  PodYaml("ns", "big", "pg2", 3));
  LiveSchedulerOptions o = Options();
  o.params.detailed_fit_errors = true;
  LiveScheduler s(&fake, o);
  s.Start();
  ASSERT_TRUE(Eventually([&] { return s.HasSynced(); }));
  s.RunOnce();
  s.FlushStatusUpdates();

  RawObjectLists raw = s.RawObjects();
  EXPECT_EQ(raw["pods"].size(), 2u);
  EXPECT_EQ(raw["nodes"].size(), 1u);
  EXPECT_EQ(raw["bindrequests"].size(), 1u);  // created this cycle, before its watch event
  auto zip = s.DebugSnapshotZip();
  ASSERT_TRUE(zip.ok()) << zip.status();
  auto json = ReadZipEntry(*zip, "snapshot.json");
  ASSERT_TRUE(json.ok()) << json.status();
  auto doc = api::ParseJsonDocument(*json);
  ASSERT_TRUE(doc.ok());
  for (const auto& pod : (*doc)["rawObjects"]["pods"].GetArray()) {
    EXPECT_STREQ(pod["apiVersion"].GetString(), "v1");
    EXPECT_STREQ(pod["kind"].GetString(), "Pod");
  }
  EXPECT_STREQ((*doc)["rawObjects"]["bindRequests"][0]["kind"].GetString(), "BindRequest");
  EXPECT_TRUE((*doc)["schedulerParams"]["detailedFitErrors"].GetBool());

  SimulateOptions so;
  so.snapshot_text = *zip;
  FakeClock clock;
  auto r = RunSimulation(so, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  auto live_big = api::Decode<api::Pod>(*fake.Get(kPods, "ns", "big"));
  ASSERT_TRUE(live_big.ok());
  ASSERT_EQ(live_big->status.conditions.size(), 1u);
  for (const auto& p : r->pods) {
    if (p.name == "p1") {
      EXPECT_EQ(p.before, "Running");  // Binding through its BindRequest: not decided again
      EXPECT_EQ(p.after, "Running");
      EXPECT_EQ(p.node, "n1");
    } else {
      EXPECT_EQ(p.after, "Pending");
      EXPECT_EQ(p.unschedulable_message, live_big->status.conditions[0].message);
    }
  }
  s.Stop();
}

// A BindRequest this scheduler created and someone else deleted (or replaced) while the
// BindRequest watch was down, its history compacted: the informer's relist lists no such object
// and no event names it. The model learned it from the create's answer; without a read-back its
// pod would stay Binding by it for ever. (The read-back delay is 0 here; a minute by default.)
class UnseenBindRequestChange : public ::testing::Test {
 protected:
  void SetUp() override {
    Seed(&fake_, NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
                     PodYaml("ns", "p1", "pg", 1));
    fake_.PrependReactor("watch", "bindrequests",
                         [this](const kube::FakeAction&) -> std::optional<StatusOr<std::string>> {
                           if (!watch_down_.load()) return std::nullopt;
                           return StatusOr<std::string>(UnavailableError("watch down"));
                         });
    LiveSchedulerOptions o = Options();
    o.unconfirmed_bind_request_read_back = Duration::zero();
    s_ = std::make_unique<LiveScheduler>(&fake_, o);
    s_->Start();
    ASSERT_TRUE(Eventually([&] { return s_->HasSynced(); }));
  }
  void TearDown() override { s_->Stop(); }

  // Runs a cycle while the BindRequest watch is down and lets `change` act on the BindRequest it
  // created. With `watch_back`, compacts the history and brings the watch back (a relist that
  // lists what `change` left). Returns the created BindRequest.
  api::BindRequest CycleWhileTheWatchIsDown(const std::function<void()>& change, bool watch_back) {
    const int watches = fake_.open_watches();
    watch_down_ = true;
    fake_.DropWatches();
    EXPECT_TRUE(Eventually([&] { return fake_.open_watches() == watches - 1; }));
    s_->RunOnce();
    auto created = fake_.Get(kBindRequests, "ns", "p1");
    EXPECT_TRUE(created.ok()) << created.status();
    change();
    if (watch_back) {
      fake_.CompactHistory();
      watch_down_ = false;
      EXPECT_TRUE(Eventually([&] { return fake_.open_watches() == watches; }));
    }
    return api::Decode<api::BindRequest>(created.ok() ? *created : "{}").value();
  }
  int Creates() const {
    int n = 0;
    for (const auto& a : fake_.actions()) n += a.verb == "create" && a.gvr == kBindRequests;
    return n;
  }

  kube::FakeClient fake_;
  std::atomic<bool> watch_down_{false};
  std::unique_ptr<LiveScheduler> s_;
};

// The usual case: the informer delivers the created BindRequest (before or after the create's
// answer is handled) and nothing is read back.
TEST_F(UnseenBindRequestChange, DeliveredBindRequestIsNotReadBack) {
  s_->RunOnce();
  ASSERT_TRUE(fake_.Get(kBindRequests, "ns", "p1").ok());
  EXPECT_TRUE(Eventually([&] { return s_->unconfirmed_bind_requests() == 0; }));
  fake_.ClearActions();
  s_->RunOnce();
  for (const auto& a : fake_.actions()) {
    EXPECT_FALSE(a.verb == "get" && a.gvr == kBindRequests) << a.name;
  }
}

TEST_F(UnseenBindRequestChange, DeletedBindRequestIsReadBackAndItsPodDecidedAgain) {
  api::BindRequest first = CycleWhileTheWatchIsDown(
      [&] { ASSERT_TRUE(fake_.Delete(kBindRequests, "ns", "p1").ok()); }, true);
  s_->RunOnce();  // reads it back, finds it gone, binds p1 anew
  auto second = fake_.Get(kBindRequests, "ns", "p1");
  ASSERT_TRUE(second.ok()) << "p1 was left Binding by a BindRequest that no longer exists";
  EXPECT_NE(api::Decode<api::BindRequest>(*second)->metadata.uid, first.metadata.uid);
}

// Replaced by another BindRequest (a new leader's) that the informer has not delivered either:
// the read-back hands that one to the model, so p1 is Binding by it and not decided again (a
// create would be refused with AlreadyExists and report a FailedBinding).
TEST_F(UnseenBindRequestChange, ReplacedBindRequestIsReadBackAndTheOtherOneTaken) {
  CycleWhileTheWatchIsDown(
      [&] {
        ASSERT_TRUE(fake_.Delete(kBindRequests, "ns", "p1").ok());
        api::BindRequest other = outputs_testing::WholeGpuBindRequest("ns", "p1", "n1");
        ASSERT_TRUE(fake_.Create(kBindRequests, "ns", api::EncodeJson(other)).ok());
      },
      false);
  const int creates = Creates();
  s_->RunOnce();
  EXPECT_EQ(Creates(), creates);
}

}  // namespace
}  // namespace kai::scheduler
