// The reconciler over the REST client against kube::FakeClient (the API server's semantics for
// bindings, status subresources and patches).
#include "controllers/binder/rest_binder_client.h"

#include <gtest/gtest.h>

#include <chrono>

#include "controllers/binder/binder_test_util.h"
#include "kube/cache/factory.h"
#include "kube/cache/informer.h"
#include "kube/cache/typed.h"
#include "kube/rest/errors.h"
#include "kube/rest/fake_client.h"

namespace kai::binder {
namespace {

using Outcome = ReconcileResult::Outcome;
using testing::BindRequest;
using testing::Node;
using testing::Options;
using testing::Pod;

const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kNodes{"", "v1", "nodes"};
const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

class RestBinderTest : public ::testing::Test {
 protected:
  RestBinderTest()
      : fake_({.clock = &clock_}),
        client_(&fake_, [this](const BinderEvent& e) { events_.push_back(e); }),
        r_(&client_, Options(), &clock_) {
    Seed(kNodes, api::EncodeJson(Node("n1")));
  }
  void Seed(const kube::GroupVersionResource& gvr, const std::string& json) {
    ASSERT_TRUE(fake_.Seed(gvr, json).ok()) << json;
  }
  template <class T>
  T Get(const kube::GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    auto json = fake_.Get(gvr, ns, name);
    EXPECT_TRUE(json.ok()) << json.status();
    auto obj = api::Decode<T>(json.ok() ? *json : "{}");
    return obj.ok() ? *obj : T{};
  }

  FakeClock clock_;
  kube::FakeClient fake_;
  std::vector<BinderEvent> events_;
  RestBinderClient client_;
  BindRequestReconciler r_;
};

TEST(Selectors, FromPodQueries) {
  PodQuery q;
  q.labels["runai-gpu-group"] = "g1";
  q.has_labels.push_back("app");
  q.node_name = "n1";
  EXPECT_EQ(LabelSelectorOf(q), "runai-gpu-group=g1,app");
  EXPECT_EQ(FieldSelectorOf(q), "spec.nodeName=n1");
  EXPECT_EQ(LabelSelectorOf(PodQuery{}), "");
  EXPECT_EQ(FieldSelectorOf(PodQuery{}), "");
}

TEST_F(RestBinderTest, WholeGpuPodIsBound) {
  Seed(kPods, api::EncodeJson(Pod("ns", "p")));
  Seed(kube::GvrOf<api::BindRequest>(), api::EncodeJson(BindRequest("ns", "p", "n1")));
  ReconcileResult res = r_.Reconcile("ns", "p");
  ASSERT_EQ(res.outcome, Outcome::kBound) << res.error;
  auto pod = Get<api::Pod>(kPods, "ns", "p");
  EXPECT_EQ(pod.spec.node_name, "n1");
  EXPECT_EQ(pod.metadata.annotations.at("received-resource-type"), "Regular");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].type, "PodBound");
  EXPECT_EQ(Get<api::BindRequest>(kube::GvrOf<api::BindRequest>(), "ns", "p").status.phase,
            "Succeeded");
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].reason, "Bound");
  // Reconciling again changes nothing.
  fake_.ClearActions();
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kNothingToDo);
  for (const auto& a : fake_.actions()) EXPECT_TRUE(a.verb == "get" || a.verb == "list") << a.verb;
}

TEST_F(RestBinderTest, FractionalPodThroughTheRealVerbs) {
  Seed(kPods, api::EncodeJson(Pod("ns", "f", true)));
  Seed(kube::GvrOf<api::BindRequest>(),
       api::EncodeJson(BindRequest("ns", "f", "n1", {"g1"}, "0.50")));
  ASSERT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kWaitingForReservation);
  std::string rp = ResourceReservation::ReservationPodName("n1", "g1");
  auto reservation = Get<api::Pod>(kPods, "kai-resource-reservation", rp);
  EXPECT_EQ(reservation.spec.node_name, "n1");
  // The reservation pod reports its GPU (what the container / simulated kubelet does).
  ASSERT_TRUE(
      fake_
          .Patch(kPods, "kai-resource-reservation", rp, kube::PatchType::kMerge,
                 R"({"metadata":{"annotations":{"run.ai/reserve_for_gpu_index":"GPU-u1"}}})")
          .ok());
  ReconcileResult res = r_.Reconcile("ns", "f");
  ASSERT_EQ(res.outcome, Outcome::kBound) << res.error;
  auto pod = Get<api::Pod>(kPods, "ns", "f");
  EXPECT_EQ(pod.spec.node_name, "n1");
  EXPECT_EQ(pod.metadata.labels.at("runai-gpu-group"), "g1");
  auto cm = Get<api::ConfigMap>(kConfigMaps, "ns", "f-abcdefg-shared-gpu-0");
  EXPECT_EQ(cm.data.at("NVIDIA_VISIBLE_DEVICES"), "GPU-u1");
  EXPECT_EQ(cm.data.at("GPU_PORTION"), "0.50");
  EXPECT_EQ(cm.metadata.owner_references.at(0).uid, pod.metadata.uid);

  // Rolling back on a later failure of another pod keeps what f uses.
  ASSERT_TRUE(r_.reservation().SyncForNode("n1").ok());
  EXPECT_TRUE(fake_.Get(kPods, "kai-resource-reservation", rp).ok());
}

// With synced informers the reconcile makes no GET or LIST: the client's QPS goes to the four
// writes of a whole-GPU bind (KAI's binder reads its controller-runtime cache).
TEST_F(RestBinderTest, SyncedCachesServeTheReads) {
  Seed(kPods, api::EncodeJson(Pod("ns", "p")));
  Seed(kube::GvrOf<api::BindRequest>(), api::EncodeJson(BindRequest("ns", "p", "n1")));
  api::Pod grouped = Pod("ns", "g");
  grouped.metadata.labels["runai-gpu-group"] = "g1";
  grouped.spec.node_name = "n1";
  Seed(kPods, api::EncodeJson(grouped));
  Seed(kPods, api::EncodeJson(Pod("other", "o")));

  // Before the caches sync, reads go to the server.
  kube::SharedInformerFactory factory(&fake_);
  kube::SharedInformer* brs = BindRequestCacheInformer(&factory);
  auto pods_or = PodCacheInformer(&factory);
  ASSERT_TRUE(pods_or.ok()) << pods_or.status();
  kube::SharedInformer* pods = *pods_or;
  kube::SharedInformer* nodes = factory.InformerFor<api::Node>(/*keep_json=*/false);
  client_.UseCaches({.bind_requests = brs, .pods = pods, .nodes = nodes});
  fake_.ClearActions();
  ASSERT_TRUE(client_.GetNode("n1").ok());
  ASSERT_EQ(fake_.actions().size(), 1u);
  EXPECT_EQ(fake_.actions()[0].verb, "get");

  factory.Start();
  ASSERT_TRUE(kube::WaitForCacheSync({brs, pods, nodes}, std::chrono::minutes(1)));
  fake_.ClearActions();
  // Queries answer as the selectors would.
  PodQuery on_node;
  on_node.has_labels.push_back("runai-gpu-group");
  on_node.node_name = "n1";
  auto found = client_.ListPods(on_node);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].metadata.name, "g");
  PodQuery in_ns;
  in_ns.namespace_ = "other";
  ASSERT_EQ(client_.ListPods(in_ns)->size(), 1u);
  PodQuery by_label;
  by_label.labels["runai-gpu-group"] = "g2";
  EXPECT_TRUE(client_.ListPods(by_label)->empty());
  // The queries decoded only the pods they matched (the filters read the scanned fields).
  EXPECT_TRUE(pods->store().Get("ns/g")->decoded());
  EXPECT_TRUE(pods->store().Get("other/o")->decoded());
  EXPECT_FALSE(pods->store().Get("ns/p")->decoded());
  ASSERT_EQ(client_.ListBindRequests()->size(), 1u);

  ReconcileResult res = r_.Reconcile("ns", "p");
  ASSERT_EQ(res.outcome, Outcome::kBound) << res.error;
  std::vector<std::string> verbs;
  for (const auto& a : fake_.actions()) {
    if (a.verb == "watch") continue;  // the informers' (re)watches
    verbs.push_back(a.verb + " " + a.gvr.resource + (a.subresource.empty() ? "" : "/") +
                    a.subresource);
  }
  const std::vector<std::string> want = {"create-subresource pods/binding",
                                         "patch bindrequests/status", "patch pods/status"};
  EXPECT_EQ(verbs, want);
  EXPECT_EQ(Get<api::Pod>(kPods, "ns", "p").spec.node_name, "n1");
  EXPECT_EQ(Get<api::Pod>(kPods, "ns", "p").metadata.annotations.at("received-resource-type"),
            "Regular");

  // A Get the cache misses (newer than the watch) and a fresh Get ask the server.
  fake_.ClearActions();
  EXPECT_TRUE(IsNotFound(client_.GetPod("ns", "none", false).status()));
  ASSERT_TRUE(client_.GetPod("ns", "p", /*fresh=*/true).ok());
  std::vector<std::string> reads;
  for (const auto& a : fake_.actions()) {
    if (a.verb != "watch") reads.push_back(a.verb + " " + a.name);
  }
  EXPECT_EQ(reads, (std::vector<std::string>{"get none", "get p"}));
  factory.Shutdown();
}

TEST_F(RestBinderTest, ApiErrorsAreClassified) {
  EXPECT_TRUE(IsNotFound(client_.GetPod("ns", "none", false).status()));
  EXPECT_TRUE(IsNotFound(client_.DeleteConfigMap("ns", "none")));
  api::ConfigMap cm;
  cm.metadata.namespace_ = "ns";
  cm.metadata.name = "c";
  ASSERT_TRUE(client_.CreateConfigMap(cm).ok());
  EXPECT_TRUE(IsAlreadyExists(client_.CreateConfigMap(cm)));
  Seed(kPods, api::EncodeJson(Pod("ns", "b")));
  EXPECT_TRUE(kube::IsConflict(client_.CreateBinding("ns", "b", "another-pods-uid", "n1", {})));
  ASSERT_TRUE(
      client_.CreateBinding("ns", "b", "", "n1", {{"received-resource-type", "Regular"}}).ok());
  EXPECT_EQ(client_.GetPod("ns", "b", true)->metadata.annotations.at("received-resource-type"),
            "Regular");
  EXPECT_FALSE(client_.CreateBinding("ns", "b", "", "n1", {}).ok());  // already bound

  // A BindRequest is deleted with its uid as a precondition.
  const kube::GroupVersionResource brs{"scheduling.run.ai", "v1alpha2", "bindrequests"};
  auto br = testing::BindRequest("ns", "b", "n1");
  br.metadata.uid = "br-2";
  Seed(brs, api::EncodeJson(br));
  EXPECT_TRUE(IsAborted(client_.DeleteBindRequest("ns", "b", "br-1")));
  EXPECT_TRUE(client_.GetBindRequest("ns", "b").ok());
  EXPECT_TRUE(client_.DeleteBindRequest("ns", "b", "br-2").ok());
  EXPECT_TRUE(IsNotFound(client_.GetBindRequest("ns", "b").status()));

  // Its status is written only to the BindRequest of that uid.
  EXPECT_TRUE(IsNotFound(client_.UpdateBindRequestStatus("ns", "b", "br-2", {.phase = "Failed"})));
  br.metadata.uid = "br-3";
  Seed(brs, api::EncodeJson(br));
  EXPECT_TRUE(IsAborted(client_.UpdateBindRequestStatus("ns", "b", "br-2", {.phase = "Failed"})));
  EXPECT_EQ(Get<api::BindRequest>(brs, "ns", "b").status.phase, "");
  ASSERT_TRUE(client_
                  .UpdateBindRequestStatus("ns", "b", "br-3",
                                           {.phase = "Failed", .reason = "x", .failed_attempts = 1})
                  .ok());
  EXPECT_EQ(Get<api::BindRequest>(brs, "ns", "b").status,
            (api::BindRequestStatus{.phase = "Failed", .reason = "x", .failed_attempts = 1}));
  ASSERT_TRUE(client_.UpdateBindRequestStatus("ns", "b", "br-3", {.phase = "Succeeded"}).ok());
  EXPECT_EQ(Get<api::BindRequest>(brs, "ns", "b").status,
            (api::BindRequestStatus{.phase = "Succeeded"}));
}

}  // namespace
}  // namespace kai::binder
