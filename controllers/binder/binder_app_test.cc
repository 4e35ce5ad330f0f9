// kai-binder's process pieces over kube::FakeClient: flags, watches -> controller -> reconcile.
#include "controllers/binder/binder_app.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "controllers/binder/binder_test_util.h"
#include "kube/rest/fake_client.h"
#include "kube/testing/eventually.h"

namespace kai::binder {
namespace {

using testing::BindRequest;
using testing::Node;
using testing::Pod;

const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kBindRequests{"scheduling.run.ai", "v1alpha2", "bindrequests"};

using ::kai::testing::Eventually;

TEST(ParseBinderArgs, KaisFlags) {
  auto o =
      ParseBinderArgs({"--scheduler-name=s", "--resource-reservation-namespace", "rr",
                       "--resource-reservation-allocation-timeout=5", "--fake-gpu-nodes",
                       "--cdi-enabled=true", "--max-concurrent-reconciles=3",
                       "--resource-reservation-pod-resources", R"({"requests":{"cpu":"100m"}})",
                       "--qps=20", "--burst=40", "--leader-elect", "--metrics-bind-address=:9090",
                       "--health-probe-bind-address=0", "--volume-binding-timeout-seconds=1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->binder.scheduler_name, "s");
  EXPECT_EQ(o->binder.resource_reservation_namespace, "rr");
  EXPECT_EQ(o->binder.resource_reservation_allocation_timeout, std::chrono::seconds(5));
  EXPECT_TRUE(o->binder.fake_gpu_nodes);
  EXPECT_TRUE(o->binder.cdi_enabled);
  EXPECT_EQ(o->max_concurrent_reconciles, 3);
  EXPECT_EQ(o->binder.resource_reservation_pod_resources->requests.at("cpu").ToString(), "100m");
  EXPECT_EQ(o->qps, 20);
  EXPECT_EQ(o->burst, 40);
  EXPECT_TRUE(o->leader_elect);
  EXPECT_EQ(o->metrics_bind_address, ":9090");

  EXPECT_EQ(ParseBinderArgs({"--nope=1"}).status().message(), "unknown flag --nope");
  EXPECT_EQ(ParseBinderArgs({"--health-probe-bind-address=:http"}).status().message(),
            "--health-probe-bind-address: bind address \":http\": invalid port \"http\"");
  EXPECT_EQ(ParseBinderArgs({"--metrics-bind-address=0"})->metrics_bind_address, "0");
  EXPECT_EQ(ParseBinderArgs({"--qps=x"}).status().message(), "--qps: expected a number, got \"x\"");
  EXPECT_FALSE(ParseBinderArgs({"--resource-reservation-pod-resources={"}).ok());
  EXPECT_FALSE(ParseBinderArgs({"--max-concurrent-reconciles=0"}).ok());
  EXPECT_EQ(ParseBinderArgs({"--max-concurrent-reconciles=1e9"}).status().message(),
            "--max-concurrent-reconciles: expected an integer from 1 to 1024, got \"1e9\"");
  EXPECT_FALSE(ParseBinderArgs({"--burst=-1"}).ok());
  EXPECT_FALSE(ParseBinderArgs({"--rate-limiter-max-delay=1e300"}).ok());
  EXPECT_FALSE(ParseBinderArgs({"--resource-reservation-allocation-timeout=40.5"}).ok());
}

class BinderAppTest : public ::testing::Test {
 protected:
  BinderAppTest() {
    opts_.binder = testing::Options();
    opts_.max_concurrent_reconciles = 2;
    EXPECT_TRUE(fake_.Seed({"", "v1", "nodes"}, api::EncodeJson(Node("n1"))).ok());
  }
  std::string NodeOf(const std::string& ns, const std::string& name) {
    auto p = fake_.Get(kPods, ns, name);
    return p.ok() ? api::Decode<api::Pod>(*p)->spec.node_name : "";
  }
  std::string PhaseOf(const std::string& name) {
    auto b = fake_.Get(kBindRequests, "ns", name);
    return b.ok() ? api::Decode<api::BindRequest>(*b)->status.phase : "";
  }

  kube::FakeClient fake_;
  BinderRunOptions opts_;
};

TEST_F(BinderAppTest, BindsWhatTheSchedulerRequests) {
  ASSERT_TRUE(fake_.Seed(kPods, api::EncodeJson(Pod("ns", "p"))).ok());
  ASSERT_TRUE(fake_.Seed(kBindRequests, api::EncodeJson(BindRequest("ns", "p", "n1"))).ok());
  BinderApp app(&fake_, opts_, nullptr, nullptr);
  ASSERT_TRUE(app.Start().ok());
  ASSERT_TRUE(Eventually([&] { return PhaseOf("p") == "Succeeded"; }));
  EXPECT_EQ(NodeOf("ns", "p"), "n1");
  // One created later (watched).
  ASSERT_TRUE(fake_.Create(kPods, "ns", api::EncodeJson(Pod("ns", "q"))).ok());
  ASSERT_TRUE(
      fake_.Create(kBindRequests, "ns", api::EncodeJson(BindRequest("ns", "q", "n1"))).ok());
  ASSERT_TRUE(Eventually([&] { return NodeOf("ns", "q") == "n1"; }));
  // Reconciles read through the API until the stores sync, so binding may come first; the
  // handlers' initial lists are delivered on their own threads.
  EXPECT_TRUE(Eventually([&] { return app.HasSynced(); }));
  app.Stop(RealClock::Get()->NowMonotonic() + std::chrono::seconds(30));
}

TEST_F(BinderAppTest, EventsGoThroughTheirOwnClient) {
  // The event client has its own rate limit (controller-runtime's recorder has its own client), so
  // events must reach it and never the binding client.
  kube::FakeClient events;
  ASSERT_TRUE(fake_.Seed(kPods, api::EncodeJson(Pod("ns", "p"))).ok());
  ASSERT_TRUE(fake_.Seed(kBindRequests, api::EncodeJson(BindRequest("ns", "p", "n1"))).ok());
  BinderApp app(&fake_, opts_, nullptr, nullptr, &events);
  ASSERT_TRUE(app.Start().ok());
  ASSERT_TRUE(Eventually([&] { return PhaseOf("p") == "Succeeded"; }));
  const kube::GroupVersionResource kEvents{"", "v1", "events"};
  ASSERT_TRUE(Eventually([&] {
    auto list = events.List(kEvents, "ns");
    return list.ok() && !list->items.empty();
  }));
  app.Stop(RealClock::Get()->NowMonotonic() + std::chrono::seconds(30));
  auto list = events.List(kEvents, "ns");
  ASSERT_TRUE(list.ok());
  EXPECT_NE(list->items.front().find("\"reason\":\"Bound\""), std::string::npos)
      << list->items.front();
  for (const auto& a : fake_.actions()) EXPECT_NE(a.gvr.resource, "events") << a.verb;
}

TEST_F(BinderAppTest, FractionalPodWaitsForTheReservationThenBindsAndDeletionReleasesIt) {
  ASSERT_TRUE(fake_.Seed(kPods, api::EncodeJson(Pod("ns", "f", true))).ok());
  ASSERT_TRUE(
      fake_.Seed(kBindRequests, api::EncodeJson(BindRequest("ns", "f", "n1", {"g1"}, "0.50")))
          .ok());
  BinderApp app(&fake_, opts_, nullptr, nullptr);
  ASSERT_TRUE(app.Start().ok());
  std::string rp = ResourceReservation::ReservationPodName("n1", "g1");
  ASSERT_TRUE(Eventually([&] { return fake_.Get(kPods, "kai-resource-reservation", rp).ok(); }));
  // The reservation pod reports its GPU; the requeued BindRequest then completes.
  ASSERT_TRUE(fake_
                  .Patch(kPods, "kai-resource-reservation", rp, kube::PatchType::kMerge,
                         R"({"metadata":{"annotations":{"run.ai/reserve_for_gpu_index":"GPU-x"}}})")
                  .ok());
  ASSERT_TRUE(Eventually([&] { return NodeOf("ns", "f") == "n1"; }));
  // The pod completes: its group is released.
  kube::PatchOptions status;
  status.subresource = "status";
  ASSERT_TRUE(fake_
                  .Patch(kPods, "ns", "f", kube::PatchType::kMerge,
                         R"({"status":{"phase":"Succeeded"}})", status)
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] { return IsNotFound(fake_.Get(kPods, "kai-resource-reservation", rp).status()); }));
  app.Stop(RealClock::Get()->NowMonotonic() + std::chrono::seconds(30));
}

// --help lists only flags the parser takes, each with a value it accepts.
TEST(BinderUsage, EveryListedFlagIsParsed) {
  for (const FlagHelp& f : BinderFlags()) {
    auto o = ParseBinderArgs({std::string("--") + f.name + "=" + f.example});
    EXPECT_TRUE(o.ok()) << f.name << ": " << o.status();
  }
  EXPECT_NE(BinderUsage().find("--max-concurrent-reconciles"), std::string::npos);
  EXPECT_TRUE(WantsHelp({"--qps=5", "-h"}));
  EXPECT_FALSE(WantsHelp({"--qps=5"}));
}

// The default --help prints for a flag is the one the parser applies: passing it changes nothing.
// (Three defaults are descriptions, not values.)
TEST(BinderUsage, EveryListedDefaultIsTheParsersDefault) {
  const StatusOr<BinderRunOptions> defaults = ParseBinderArgs({});
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  const std::set<std::string> described = {"kubeconfig", "resource-reservation-pod-resources",
                                           "volume-binding-timeout-seconds"};
  for (const FlagHelp& f : BinderFlags()) {
    if (described.count(f.name) > 0) continue;
    std::string value = f.default_value;
    if (value == "\"\"") value.clear();
    const StatusOr<BinderRunOptions> o =
        ParseBinderArgs({std::string("--") + f.name + "=" + value});
    ASSERT_TRUE(o.ok()) << f.name << ": " << o.status();
    EXPECT_TRUE(*o == *defaults) << "--" << f.name << "'s listed default " << f.default_value
                                 << " is not the parser's";
  }
}

}  // namespace
}  // namespace kai::binder
