#include "controllers/binder/resource_reservation.h"

#include <gtest/gtest.h>

#include <set>

#include "controllers/binder/binder_test_util.h"

namespace kai::binder {
namespace {

using testing::BindRequest;
using testing::Options;
using testing::Pod;
using testing::ReservationPods;

class ReservationTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  FakeBinderClient client_{&clock_};
  ResourceReservation rr_{&client_, Options(), &clock_};
};

TEST_F(ReservationTest, NameIsDeterministicPerNodeAndGroup) {
  std::string a = ResourceReservation::ReservationPodName("n1", "g1");
  EXPECT_EQ(a, ResourceReservation::ReservationPodName("n1", "g1"));
  EXPECT_NE(a, ResourceReservation::ReservationPodName("n2", "g1"));
  EXPECT_NE(a, ResourceReservation::ReservationPodName("n1", "g2"));
  EXPECT_EQ(a.rfind("gpu-reservation-", 0), 0u);
  EXPECT_EQ(a.size(), std::string("gpu-reservation-").size() + 16);
}

TEST_F(ReservationTest, ReservationPodSpecAsKaiBuildsIt) {
  api::Pod source = Pod("ns", "p", true);
  api::Toleration t;
  t.key = "gpu";
  t.operator_ = "Exists";
  source.spec.tolerations.push_back(t);
  BinderOptions o = Options();
  o.runtime_class_name = "nvidia";
  api::ResourceRequirements extra;
  extra.requests["cpu"] = api::Quantity::FromMilli(100);
  extra.requests["nvidia.com/gpu"] = api::Quantity::FromInt(4);  // ignored
  o.resource_reservation_pod_resources = extra;
  ResourceReservation rr(&client_, o, &clock_);
  api::Pod r = rr.BuildReservationPod(source, "n1", "g1");
  EXPECT_EQ(r.metadata.namespace_, "kai-resource-reservation");
  EXPECT_EQ(r.metadata.labels,
            (std::map<std::string, std::string>{{"app", "kai-resource-reservation"},
                                                {"runai-gpu-group", "g1"}}));
  EXPECT_EQ(r.metadata.annotations.at("karpenter.sh/do-not-disrupt"), "true");
  EXPECT_EQ(r.spec.node_name, "n1");
  EXPECT_EQ(r.spec.service_account_name, "kai-resource-reservation");
  EXPECT_EQ(r.spec.runtime_class_name, std::optional<std::string>("nvidia"));
  ASSERT_EQ(r.spec.tolerations.size(), 1u);
  ASSERT_EQ(r.spec.containers.size(), 1u);
  const api::Container& c = r.spec.containers[0];
  EXPECT_EQ(c.name, "resource-reservation");
  EXPECT_EQ(c.image, "reservation:test");
  EXPECT_EQ(c.image_pull_policy, "IfNotPresent");
  EXPECT_EQ(c.resources.limits.at("nvidia.com/gpu").ToString(), "1");
  EXPECT_EQ(c.resources.requests.at("nvidia.com/gpu").ToString(), "1");
  EXPECT_EQ(c.resources.requests.at("cpu").ToString(), "100m");
  ASSERT_EQ(c.env.size(), 2u);
  EXPECT_EQ(c.env[0].name, "POD_NAME");
  EXPECT_EQ(c.env[0].value_from->field_ref.json, R"({"fieldPath":"metadata.name"})");
  EXPECT_EQ(c.env[1].name, "POD_NAMESPACE");

  BinderOptions fake = Options();
  fake.fake_gpu_nodes = true;
  ResourceReservation rf(&client_, fake, &clock_);
  api::Pod f = rf.BuildReservationPod(source, "n1", "g1");
  EXPECT_EQ(f.spec.containers[0].image, "ubuntu");
  EXPECT_EQ(f.spec.containers[0].args, (std::vector<std::string>{"sleep", "infinity"}));
  EXPECT_FALSE(f.spec.runtime_class_name);
}

TEST_F(ReservationTest, ReserveCreatesOncesWaitsThenLabelsThePod) {
  client_.AddPod(Pod("ns", "p", true));
  api::Pod p = client_.pods.at("ns/p");
  auto r = rr_.ReserveGpuDevice(p, "n1", "g1");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ready);
  r = rr_.ReserveGpuDevice(p, "n1", "g1");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ready);
  EXPECT_EQ(client_.CallsOf("CreatePod").size(), 1u);
  EXPECT_EQ(client_.ReportReservedGpus("kai-resource-reservation"), 1);
  r = rr_.ReserveGpuDevice(p, "n1", "g1");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ready);
  EXPECT_EQ(r->gpu_id, "GPU-n1-0");
  EXPECT_EQ(client_.pods.at("ns/p").metadata.labels.at("runai-gpu-group"), "g1");
}

TEST_F(ReservationTest, ScalingUpBlocksNewReservations) {
  api::Pod scaling = Pod("kai-scale-adjust", "s", false);
  api::PodCondition c;
  c.type = "PodScheduled";
  c.status = "False";
  scaling.status.conditions.push_back(c);
  client_.AddPod(scaling);
  auto r = rr_.ReserveGpuDevice(Pod("ns", "p", true), "n1", "g1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cluster is scaling up, could not create reservation pod");
  EXPECT_TRUE(ReservationPods(client_).empty());
}

TEST_F(ReservationTest, TimeoutDeletesTheReservationPod) {
  client_.AddPod(Pod("ns", "p", true));
  ASSERT_TRUE(rr_.ReserveGpuDevice(client_.pods.at("ns/p"), "n1", "g1").ok());
  clock_.Advance(std::chrono::seconds(39));
  auto r = rr_.ReserveGpuDevice(client_.pods.at("ns/p"), "n1", "g1");
  ASSERT_TRUE(r.ok());
  clock_.Advance(std::chrono::seconds(1));
  r = rr_.ReserveGpuDevice(client_.pods.at("ns/p"), "n1", "g1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "failed waiting for GPU reservation pod to allocate: kai-resource-reservation/" +
                ResourceReservation::ReservationPodName("n1", "g1"));
  EXPECT_TRUE(ReservationPods(client_).empty());
}

TEST_F(ReservationTest, SyncDeletesOrphanReservationsAndUnreservedRunningPods) {
  // g-orphan: a reservation pod, no fractional pod, no BindRequest -> deleted.
  client_.AddPod(rr_.BuildReservationPod(Pod("ns", "x"), "n1", "g-orphan"));
  // g-kept: a reservation pod protected by a pending BindRequest.
  client_.AddPod(rr_.BuildReservationPod(Pod("ns", "x"), "n1", "g-kept"));
  client_.AddBindRequest(BindRequest("ns", "k", "n1", {"g-kept"}, "0.50"));
  // g-used: reservation pod + running fractional pod -> untouched.
  client_.AddPod(rr_.BuildReservationPod(Pod("ns", "x"), "n1", "g-used"));
  api::Pod used = Pod("ns", "u", true);
  used.metadata.labels["runai-gpu-group"] = "g-used";
  used.status.phase = "Running";
  used.spec.node_name = "n1";
  client_.AddPod(used);
  // g-lost: running and pending fractional pods without a reservation pod -> the running one
  // is deleted (it lost its GPU), the pending one stays.
  api::Pod lost = Pod("ns", "lost", true);
  lost.metadata.labels["runai-gpu-group"] = "g-lost";
  lost.status.phase = "Running";
  lost.spec.node_name = "n1";
  client_.AddPod(lost);
  api::Pod waiting = Pod("ns", "waiting", true);
  waiting.metadata.labels["runai-gpu-group"] = "g-lost";
  client_.AddPod(waiting);

  ASSERT_TRUE(rr_.Sync().ok());
  std::set<std::string> groups;
  for (const auto& r : ReservationPods(client_))
    groups.insert(r.metadata.labels.at("runai-gpu-group"));
  EXPECT_EQ(groups, (std::set<std::string>{"g-kept", "g-used"}));
  EXPECT_EQ(client_.pods.count("ns/lost"), 0u);
  EXPECT_EQ(client_.pods.count("ns/waiting"), 1u);
  EXPECT_EQ(client_.pods.count("ns/u"), 1u);

  // A succeeded BindRequest still protects the group while its pod lives.
  auto br = BindRequest("ns", "u2", "n1", {"g-s"}, "0.50");
  br.status.phase = "Succeeded";
  client_.AddBindRequest(br);
  client_.AddPod(Pod("ns", "u2", true));
  client_.AddPod(rr_.BuildReservationPod(Pod("ns", "x"), "n1", "g-s"));
  ASSERT_TRUE(rr_.SyncForGpuGroup("g-s").ok());
  EXPECT_EQ(ReservationPods(client_).size(), 3u);
  client_.pods.at("ns/u2").status.phase = "Succeeded";
  ASSERT_TRUE(rr_.SyncForGpuGroup("g-s").ok());
  EXPECT_EQ(ReservationPods(client_).size(), 2u);
}

// The pod finished before its BindRequest's Succeeded write landed (or was observed): nothing
// will ever bring the group back, so the request must not keep the reservation alive.
TEST_F(ReservationTest, ARequestWhosePodFinishedDoesNotProtectTheGroup) {
  client_.AddBindRequest(BindRequest("ns", "f", "n1", {"g1"}, "0.50"));  // phase still empty
  api::Pod f = Pod("ns", "f", true);
  f.metadata.labels["runai-gpu-group"] = "g1";
  f.spec.node_name = "n1";
  f.status.phase = "Running";
  client_.AddPod(f);
  client_.AddPod(rr_.BuildReservationPod(Pod("ns", "x"), "n1", "g1"));
  ASSERT_TRUE(rr_.SyncForGpuGroup("g1").ok());
  EXPECT_EQ(ReservationPods(client_).size(), 1u);  // running: its GPU stays reserved
  client_.pods.at("ns/f").status.phase = "Failed";
  ASSERT_TRUE(rr_.SyncForGpuGroup("g1").ok());
  EXPECT_TRUE(ReservationPods(client_).empty());
}

TEST_F(ReservationTest, RemoveGroupLabelsUsesTheLivePod) {
  api::Pod p = Pod("ns", "p", true, 2);
  p.metadata.labels["runai-gpu-group/g1"] = "g1";
  p.metadata.labels["runai-gpu-group/g2"] = "g2";
  p.metadata.labels["keep"] = "yes";
  client_.AddPod(p);
  ASSERT_TRUE(rr_.RemovePodGpuGroupsConnection("ns", "p").ok());
  EXPECT_EQ(client_.pods.at("ns/p").metadata.labels,
            (std::map<std::string, std::string>{{"keep", "yes"}}));
  ASSERT_TRUE(rr_.RemovePodGpuGroupsConnection("ns", "gone").ok());
}

}  // namespace
}  // namespace kai::binder
