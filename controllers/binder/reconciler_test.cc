#include "controllers/binder/reconciler.h"

#include <gtest/gtest.h>

#include <set>

#include "controllers/binder/binder_test_util.h"

namespace kai::binder {
namespace {

using Outcome = ReconcileResult::Outcome;
using testing::BindRequest;
using testing::Node;
using testing::Options;
using testing::Pod;
using testing::ReservationPods;

class ReconcilerTest : public ::testing::Test {
 protected:
  ReconcilerTest() : r_(&client_, Options(), &clock_) { client_.AddNode(Node("n1")); }

  std::vector<std::string> Verbs() const {
    std::vector<std::string> out;
    for (const auto& c : client_.calls) out.push_back(c.verb);
    return out;
  }

  FakeClock clock_;
  FakeBinderClient client_{&clock_};
  BindRequestReconciler r_;
};

TEST_F(ReconcilerTest, WholeGpuPodIsBoundWithKaisWrites) {
  client_.AddPod(Pod("ns", "p"));
  client_.AddBindRequest(BindRequest("ns", "p", "n1"));
  ReconcileResult res = r_.Reconcile("ns", "p");
  EXPECT_EQ(res.outcome, Outcome::kBound) << res.error;
  // KAI's annotation patch rides on the binding: three writes, the annotation lands with the node.
  EXPECT_EQ(Verbs(), (std::vector<std::string>{"CreateBinding", "UpdateBindRequestStatus",
                                               "PatchPodStatus"}));
  EXPECT_EQ(client_.calls[1].body, R"({"phase":"Succeeded"})");
  const api::Pod& pod = client_.pods.at("ns/p");
  EXPECT_EQ(pod.spec.node_name, "n1");
  EXPECT_EQ(pod.metadata.annotations.at("received-resource-type"), "Regular");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].type, "PodBound");
  EXPECT_EQ(pod.status.conditions[0].status, "True");
  EXPECT_EQ(pod.status.conditions[0].reason, "Bound");
  EXPECT_EQ(pod.status.conditions[0].message, "Pod bound successfully to node n1");
  ASSERT_EQ(client_.events.size(), 1u);
  EXPECT_EQ(client_.events[0], (BinderEvent{"Pod", "ns", "p", "uid-p", "Normal", "Bound",
                                            "Pod bound successfully to node n1"}));
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.phase, "Succeeded");

  // Succeeded is final.
  client_.calls.clear();
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kNothingToDo);
  EXPECT_TRUE(client_.calls.empty());
  EXPECT_EQ(client_.bindings.at("ns/p"), 1);
}

TEST_F(ReconcilerTest, AlreadyBoundPodOnlyGetsItsStatus) {
  api::Pod p = Pod("ns", "p");
  p.spec.node_name = "n1";
  client_.AddPod(p);
  client_.AddBindRequest(BindRequest("ns", "p", "n1"));
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kAlreadyBound);
  EXPECT_TRUE(client_.CallsOf("CreateBinding").empty());
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.phase, "Succeeded");
}

TEST_F(ReconcilerTest, MissingBindRequestPodOrNode) {
  EXPECT_EQ(r_.Reconcile("ns", "none").outcome, Outcome::kNothingToDo);

  client_.AddBindRequest(BindRequest("ns", "ghost", "n1"));
  ReconcileResult res = r_.Reconcile("ns", "ghost");
  EXPECT_EQ(res.outcome, Outcome::kFailed);
  EXPECT_EQ(client_.bind_requests.at("ns/ghost").status.phase, "Failed");
  EXPECT_EQ(client_.bind_requests.at("ns/ghost").status.reason, "pods \"ghost\" not found");
  EXPECT_TRUE(client_.events.empty());

  client_.AddPod(Pod("ns", "p"));
  client_.AddBindRequest(BindRequest("ns", "p", "gone"));
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kFailed);
  EXPECT_EQ(client_.pods.at("ns/p").status.conditions.at(0).message,
            "Failed to bind pod ns/p to node gone: nodes \"gone\" not found");
  EXPECT_EQ(client_.events.at(0).reason, "BindingError");
  EXPECT_EQ(client_.events.at(0).type, "Warning");
  // Failed without backoffLimit is final: the scheduler deletes it and decides again.
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kNothingToDo);
}

TEST_F(ReconcilerTest, ReadErrorsAreRetriedWithoutTouchingTheStatus) {
  client_.AddPod(Pod("ns", "p"));
  client_.AddBindRequest(BindRequest("ns", "p", "n1"));
  client_.FailReads("GetPod", UnavailableError("cache not synced"));
  ReconcileResult res = r_.Reconcile("ns", "p");
  EXPECT_EQ(res.outcome, Outcome::kError);
  EXPECT_TRUE(client_.calls.empty());
  client_.ClearReadFailures();
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kBound);
}

// A pod deleted and created again under its name before the garbage collector removed its
// BindRequest: the node and GPUs were chosen for the old pod, so the new one is not bound by it;
// the reconcile is retried (the pod cache may be the one behind) until the BindRequest goes.
TEST_F(ReconcilerTest, BindRequestOfAnEarlierPodOfTheSameNameBindsNothing) {
  client_.AddPod(Pod("ns", "p"));  // uid-p
  api::BindRequest br = BindRequest("ns", "p", "n1");
  br.metadata.owner_references.push_back(
      {.api_version = "v1", .kind = "Pod", .name = "p", .uid = "uid-of-the-deleted-p"});
  client_.AddBindRequest(br);
  ReconcileResult res = r_.Reconcile("ns", "p");
  EXPECT_EQ(res.outcome, Outcome::kError);
  EXPECT_NE(res.error.message().find("made for another pod"), std::string::npos) << res.error;
  EXPECT_TRUE(client_.calls.empty()) << "no write at all";
  EXPECT_TRUE(client_.pods.at("ns/p").spec.node_name.empty());
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.phase, "");
  // The BindRequest of this pod binds it.
  br.metadata.owner_references[0].uid = "uid-p";
  client_.AddBindRequest(br);
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kBound);
  EXPECT_EQ(client_.pods.at("ns/p").spec.node_name, "n1");
}

TEST_F(ReconcilerTest, BackoffLimitRetriesWithExponentialDelay) {
  client_.AddPod(Pod("ns", "p"));
  auto br = BindRequest("ns", "p", "n1");
  br.spec.backoff_limit = 2;
  client_.AddBindRequest(br);
  client_.FailNext("CreateBinding", InternalError("etcd timeout"));
  ReconcileResult res = r_.Reconcile("ns", "p");
  EXPECT_EQ(res.outcome, Outcome::kRetrying);
  EXPECT_EQ(res.requeue_after, std::optional<Duration>(std::chrono::seconds(1)));
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.failed_attempts, 1);
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.reason,
            "failed to bind pod <ns/p> to node <n1>: etcd timeout");

  client_.FailNext("CreateBinding", InternalError("etcd timeout"));
  res = r_.Reconcile("ns", "p");
  EXPECT_EQ(res.outcome, Outcome::kRetrying);
  EXPECT_EQ(res.requeue_after, std::optional<Duration>(std::chrono::seconds(2)));
  // Unlike KAI, every attempt is persisted (KAI only patches on a phase change).
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.failed_attempts, 2);
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kNothingToDo);  // limit reached
  EXPECT_EQ(client_.pods.at("ns/p").spec.node_name, "");
  // The annotation travels with the binding, so failed bindings leave none behind.
  EXPECT_EQ(client_.pods.at("ns/p").metadata.annotations.count("received-resource-type"), 0u);
}

TEST_F(ReconcilerTest, RetryAfterAFailureSucceeds) {
  client_.AddPod(Pod("ns", "p"));
  auto br = BindRequest("ns", "p", "n1");
  br.spec.backoff_limit = 3;
  client_.AddBindRequest(br);
  client_.FailNext("CreateBinding", InternalError("boom"));
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kRetrying);
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kBound);
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.phase, "Succeeded");
}

TEST_F(ReconcilerTest, FractionalPodWaitsForItsReservationThenIsBound) {
  client_.AddPod(Pod("ns", "f", true));
  client_.AddBindRequest(BindRequest("ns", "f", "n1", {"g1"}, "0.50"));
  ReconcileResult res = r_.Reconcile("ns", "f");
  EXPECT_EQ(res.outcome, Outcome::kWaitingForReservation);
  EXPECT_EQ(res.requeue_after, std::optional<Duration>(std::chrono::milliseconds(200)));
  ASSERT_EQ(ReservationPods(client_).size(), 1u);
  EXPECT_EQ(client_.bind_requests.at("ns/f").status.phase, "");  // untouched while waiting
  EXPECT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kWaitingForReservation);
  EXPECT_EQ(client_.CallsOf("CreatePod").size(), 1u);

  client_.ReportReservedGpus("kai-resource-reservation");
  client_.calls.clear();
  res = r_.Reconcile("ns", "f");
  EXPECT_EQ(res.outcome, Outcome::kBound) << res.error;
  EXPECT_EQ(Verbs(),
            (std::vector<std::string>{"MergePatchPod",        // runai-gpu-group label
                                      "CreateConfigMap",      // capabilities
                                      "CreateConfigMap",      // -evar
                                      "MergePatchConfigMap",  // NVIDIA_VISIBLE_DEVICES
                                      "MergePatchConfigMap",  // GPU_PORTION, RUNAI_NUM_OF_GPUS
                                      "CreateBinding",        // with received-resource-type
                                      "UpdateBindRequestStatus", "PatchPodStatus"}));
  const api::Pod& pod = client_.pods.at("ns/f");
  EXPECT_EQ(pod.spec.node_name, "n1");
  EXPECT_EQ(pod.metadata.labels.at("runai-gpu-group"), "g1");
  EXPECT_EQ(pod.metadata.annotations.at("received-resource-type"), "Fraction");
  EXPECT_EQ(client_.config_maps.at("ns/f-abcdefg-shared-gpu-0").data.at("NVIDIA_VISIBLE_DEVICES"),
            "GPU-n1-0");
  EXPECT_EQ(client_.config_maps.at("ns/f-abcdefg-shared-gpu-0").data.at("GPU_PORTION"), "0.50");
}

TEST_F(ReconcilerTest, TwoPodsOpeningTheSameGroupShareOneReservationPod) {
  client_.AddPod(Pod("ns", "a", true));
  client_.AddPod(Pod("ns", "b", true));
  client_.AddBindRequest(BindRequest("ns", "a", "n1", {"g1"}, "0.50"));
  client_.AddBindRequest(BindRequest("ns", "b", "n1", {"g1"}, "0.50"));
  EXPECT_EQ(r_.Reconcile("ns", "a").outcome, Outcome::kWaitingForReservation);
  EXPECT_EQ(r_.Reconcile("ns", "b").outcome, Outcome::kWaitingForReservation);
  client_.ReportReservedGpus("kai-resource-reservation");
  EXPECT_EQ(r_.Reconcile("ns", "a").outcome, Outcome::kBound);
  EXPECT_EQ(r_.Reconcile("ns", "b").outcome, Outcome::kBound);
  EXPECT_EQ(ReservationPods(client_).size(), 1u);
  EXPECT_EQ(client_.config_maps.at("ns/b-abcdefg-shared-gpu-0").data.at("NVIDIA_VISIBLE_DEVICES"),
            "GPU-n1-0");
}

TEST_F(ReconcilerTest, MultiDeviceFractionReservesEveryGroup) {
  client_.AddPod(Pod("ns", "m", true, 2));
  client_.AddBindRequest(BindRequest("ns", "m", "n1", {"g1", "g2"}, "0.50"));
  EXPECT_EQ(r_.Reconcile("ns", "m").outcome, Outcome::kWaitingForReservation);
  EXPECT_EQ(ReservationPods(client_).size(), 2u);  // both started at once
  client_.ReportReservedGpus("kai-resource-reservation");
  EXPECT_EQ(r_.Reconcile("ns", "m").outcome, Outcome::kBound);
  const api::Pod& pod = client_.pods.at("ns/m");
  EXPECT_EQ(pod.metadata.labels.at("runai-gpu-group/g1"), "g1");
  EXPECT_EQ(pod.metadata.labels.at("runai-gpu-group/g2"), "g2");
  EXPECT_EQ(pod.metadata.labels.count("runai-gpu-group"), 0u);
  std::string devices =
      client_.config_maps.at("ns/m-abcdefg-shared-gpu-0").data.at("NVIDIA_VISIBLE_DEVICES");
  EXPECT_TRUE(devices == "GPU-n1-0,GPU-n1-1" || devices == "GPU-n1-1,GPU-n1-0") << devices;
}

TEST_F(ReconcilerTest, ReservationTimeoutFailsAndCleansUp) {
  client_.AddPod(Pod("ns", "f", true));
  client_.AddBindRequest(BindRequest("ns", "f", "n1", {"g1"}, "0.50"));
  EXPECT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kWaitingForReservation);
  clock_.Advance(std::chrono::seconds(40));
  ReconcileResult res = r_.Reconcile("ns", "f");
  EXPECT_EQ(res.outcome, Outcome::kFailed);
  EXPECT_EQ(client_.bind_requests.at("ns/f").status.reason,
            "failed to reserve GPUs for pod <ns/f> in gpu group <g1>: failed waiting for GPU "
            "reservation pod to allocate: kai-resource-reservation/" +
                ResourceReservation::ReservationPodName("n1", "g1"));
  EXPECT_TRUE(ReservationPods(client_).empty());
  EXPECT_TRUE(client_.config_maps.empty());
}

TEST_F(ReconcilerTest, BindingFailureRollsBackEverythingNobodyElseNeeds) {
  client_.AddPod(Pod("ns", "f", true));
  client_.AddBindRequest(BindRequest("ns", "f", "n1", {"g1"}, "0.50"));
  EXPECT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kWaitingForReservation);
  client_.ReportReservedGpus("kai-resource-reservation");
  client_.FailNext("CreateBinding", InternalError("boom"));
  EXPECT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kFailed);
  EXPECT_TRUE(client_.config_maps.empty());
  EXPECT_EQ(client_.pods.at("ns/f").metadata.labels.count("runai-gpu-group"), 0u);
  EXPECT_TRUE(ReservationPods(client_).empty());
  EXPECT_EQ(client_.pods.at("ns/f").status.conditions.at(0).reason, "BindingError");
}

TEST_F(ReconcilerTest, RollbackKeepsAReservationAnotherBindRequestNeeds) {
  client_.AddPod(Pod("ns", "a", true));
  client_.AddPod(Pod("ns", "b", true));
  client_.AddBindRequest(BindRequest("ns", "a", "n1", {"g1"}, "0.50"));
  client_.AddBindRequest(BindRequest("ns", "b", "n1", {"g1"}, "0.50"));
  EXPECT_EQ(r_.Reconcile("ns", "a").outcome, Outcome::kWaitingForReservation);
  client_.ReportReservedGpus("kai-resource-reservation");
  client_.FailNext("CreateBinding", InternalError("boom"));
  EXPECT_EQ(r_.Reconcile("ns", "a").outcome, Outcome::kFailed);
  EXPECT_EQ(ReservationPods(client_).size(), 1u);  // b still needs it
  EXPECT_EQ(r_.Reconcile("ns", "b").outcome, Outcome::kBound);
}

TEST_F(ReconcilerTest, FractionWithoutGroupsIsDeleted) {
  client_.AddPod(Pod("ns", "f", true));
  auto br = BindRequest("ns", "f", "n1", {}, "0.50");
  client_.AddBindRequest(br);
  EXPECT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kInvalidDeleted);
  EXPECT_EQ(client_.bind_requests.count("ns/f"), 0u);
}

// The invalid BindRequest is deleted with its uid as a precondition; when the scheduler already
// replaced it (409), there is nothing left to delete and nothing to retry.
TEST_F(ReconcilerTest, InvalidBindRequestIsDeletedOnlyWhileTheNameHoldsIt) {
  client_.AddPod(Pod("ns", "f", true));
  auto br = BindRequest("ns", "f", "n1", {}, "0.50");
  br.metadata.uid = "br-1";
  client_.AddBindRequest(br);
  EXPECT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kInvalidDeleted);
  ASSERT_FALSE(client_.calls.empty());
  EXPECT_EQ(client_.calls.back().verb, "DeleteBindRequest");
  EXPECT_EQ(client_.calls.back().body, "br-1");

  client_.AddBindRequest(br);
  client_.FailNext("DeleteBindRequest",
                   AbortedError("Precondition failed: UID in precondition: br-1, UID in object "
                                "meta: br-2")
                       .SetReason("Conflict")
                       .SetHttpCode(409));
  EXPECT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kInvalidDeleted);
}

// The scheduler replaced the BindRequest while it was being handled: the outcome of the old one
// is not written onto its successor, and that is not an error to retry.
TEST_F(ReconcilerTest, ReplacedBindRequestDoesNotGetItsPredecessorsStatus) {
  client_.AddNode(Node("n2"));
  client_.AddPod(Pod("ns", "p"));
  auto br = BindRequest("ns", "p", "n1");
  br.metadata.uid = "br-1";
  client_.AddBindRequest(br);
  client_.before_write = [&](const std::string& verb) {
    if (verb != "CreateBinding") return;
    auto successor = BindRequest("ns", "p", "n2");
    successor.metadata.uid = "br-2";
    client_.bind_requests["ns/p"] = successor;
  };
  ReconcileResult res = r_.Reconcile("ns", "p");
  EXPECT_EQ(res.outcome, Outcome::kBound) << res.error;
  EXPECT_TRUE(res.error.ok()) << res.error;
  EXPECT_TRUE(client_.CallsOf("UpdateBindRequestStatus").empty());
  EXPECT_EQ(client_.bind_requests.at("ns/p").metadata.uid, "br-2");
  EXPECT_EQ(client_.bind_requests.at("ns/p").status.phase, "");
}

// The pod was deleted and created again under its name after it was bound: its successor does
// not get the bound pod's PodBound condition (the patch carries the uid, which is immutable).
TEST_F(ReconcilerTest, RecreatedPodDoesNotGetItsPredecessorsCondition) {
  client_.AddPod(Pod("ns", "p"));
  client_.AddBindRequest(BindRequest("ns", "p", "n1"));
  client_.before_write = [&](const std::string& verb) {
    if (verb != "UpdateBindRequestStatus") return;
    api::Pod successor = Pod("ns", "p");
    successor.metadata.uid = "uid-p-2";
    client_.pods["ns/p"] = successor;
  };
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kBound);
  EXPECT_TRUE(client_.CallsOf("PatchPodStatus").empty());
  EXPECT_TRUE(client_.pods.at("ns/p").status.conditions.empty());
  EXPECT_EQ(client_.pods.at("ns/p").spec.node_name, "");
}

TEST_F(ReconcilerTest, DeletedBindRequestAndFinishedPodReleaseTheGroup) {
  client_.AddPod(Pod("ns", "f", true));
  client_.AddBindRequest(BindRequest("ns", "f", "n1", {"g1"}, "0.50"));
  r_.Reconcile("ns", "f");
  client_.ReportReservedGpus("kai-resource-reservation");
  ASSERT_EQ(r_.Reconcile("ns", "f").outcome, Outcome::kBound);
  // The pod finishes: its group's reservation pod goes (the BindRequest is Succeeded and its
  // pod is done, so it no longer protects the group).
  client_.pods.at("ns/f").status.phase = "Succeeded";
  r_.OnPodCompletedOrDeleted(client_.pods.at("ns/f"));
  EXPECT_TRUE(ReservationPods(client_).empty());

  // A pending BindRequest deleted by the scheduler releases its group too.
  client_.AddPod(Pod("ns", "g", true));
  client_.AddBindRequest(BindRequest("ns", "g", "n1", {"g2"}, "0.50"));
  EXPECT_EQ(r_.Reconcile("ns", "g").outcome, Outcome::kWaitingForReservation);
  api::BindRequest gone = client_.bind_requests.at("ns/g");
  client_.bind_requests.erase("ns/g");
  r_.OnBindRequestDeleted(gone);
  EXPECT_TRUE(ReservationPods(client_).empty());
}

TEST_F(ReconcilerTest, BindingAnsweredWithConflictAfterItHappenedCountsAsSuccess) {
  client_.AddPod(Pod("ns", "p"));
  client_.AddBindRequest(BindRequest("ns", "p", "n1"));
  // The binding is applied but its answer is a conflict (e.g. a retried POST).
  client_.FailNext("CreateBinding",
                   AbortedError("already assigned").SetReason("Conflict").SetHttpCode(409),
                   FakeBinderClient::When::kAfter);
  EXPECT_EQ(r_.Reconcile("ns", "p").outcome, Outcome::kBound);
  EXPECT_EQ(client_.bindings.at("ns/p"), 1);
}

// The scheduler's side of a failed BindRequest: it deletes it and makes a new one (with a new
// GPU group for fractional pods, as it would when the old group is no longer on its node).
void SchedulerReplaces(FakeBinderClient* c, BindRequestReconciler* r, const std::string& key,
                       int generation) {
  api::BindRequest old = c->bind_requests.at(key);
  c->bind_requests.erase(key);
  r->OnBindRequestDeleted(old);
  api::BindRequest fresh = old;
  fresh.status = {};
  fresh.metadata.uid.clear();
  fresh.metadata.creation_timestamp.reset();
  for (auto& g : fresh.spec.selected_gpu_groups) g = "g-gen" + std::to_string(generation);
  c->AddBindRequest(fresh);
}

struct FaultCase {
  bool fractional;
  int write;  // 1-based write attempt that fails
  FakeBinderClient::When when;
};

class ConvergenceTest : public ::testing::TestWithParam<FaultCase> {};

// Fails one write (before it happens, or after with the answer lost), then keeps reconciling
// with a fresh reconciler each time (a binder restart), the simulated kubelet reporting GPUs and
// the scheduler replacing failed BindRequests. It must end bound exactly once, with exactly the
// reservation pod it uses and consistent ConfigMaps.
TEST_P(ConvergenceTest, OneFailedWriteAnywhereConverges) {
  const FaultCase& fc = GetParam();
  FakeClock clock;
  FakeBinderClient client(&clock);
  client.AddNode(Node("n1"));
  client.AddPod(Pod("ns", "p", fc.fractional));
  client.AddBindRequest(fc.fractional ? BindRequest("ns", "p", "n1", {"g-gen0"}, "0.50")
                                      : BindRequest("ns", "p", "n1"));
  client.FailWriteNumber(fc.write, InternalError("injected"), fc.when);
  int generation = 0;
  bool done = false;
  for (int i = 0; i < 30 && !done; ++i) {
    BindRequestReconciler r(&client, Options(), &clock);  // a restarted binder
    if (i == 0) {
      ASSERT_TRUE(r.SyncAll().ok());
    }
    ReconcileResult res = r.Reconcile("ns", "p");
    switch (res.outcome) {
      case Outcome::kBound:
      case Outcome::kAlreadyBound:
        done = true;
        break;
      case Outcome::kWaitingForReservation:
        client.ReportReservedGpus("kai-resource-reservation");
        break;
      case Outcome::kFailed:
        SchedulerReplaces(&client, &r, "ns/p", ++generation);
        break;
      case Outcome::kNothingToDo:
        if (client.bind_requests.at("ns/p").status.phase == "Failed") {
          SchedulerReplaces(&client, &r, "ns/p", ++generation);
        } else {
          done = client.bind_requests.at("ns/p").status.phase == "Succeeded";
        }
        break;
      default:
        clock.Advance(std::chrono::seconds(1));
    }
  }
  ASSERT_TRUE(done) << "did not converge";
  // Status written (a lost answer on the status patch is repaired by a later reconcile).
  BindRequestReconciler(&client, Options(), &clock).Reconcile("ns", "p");
  const api::Pod& pod = client.pods.at("ns/p");
  EXPECT_EQ(pod.spec.node_name, "n1");
  EXPECT_EQ(client.bindings.at("ns/p"), 1);
  EXPECT_EQ(client.bind_requests.at("ns/p").status.phase, "Succeeded");
  auto reservations = ReservationPods(client);
  if (!fc.fractional) {
    EXPECT_TRUE(reservations.empty());
    return;
  }
  std::string group = client.bind_requests.at("ns/p").spec.selected_gpu_groups.at(0);
  ASSERT_EQ(reservations.size(), 1u) << "leaked or missing reservation pods";
  EXPECT_EQ(reservations[0].metadata.labels.at("runai-gpu-group"), group);
  EXPECT_EQ(pod.metadata.labels.at("runai-gpu-group"), group);
  const auto& cm = client.config_maps.at("ns/p-abcdefg-shared-gpu-0");
  EXPECT_EQ(cm.data.at("NVIDIA_VISIBLE_DEVICES"),
            reservations[0].metadata.annotations.at("run.ai/reserve_for_gpu_index"));
  EXPECT_EQ(cm.data.at("GPU_PORTION"), "0.50");
  EXPECT_EQ(client.config_maps.count("ns/p-abcdefg-shared-gpu-0-evar"), 1u);
}

std::vector<FaultCase> AllFaults() {
  std::vector<FaultCase> out;
  // Whole GPU: 3 writes; fractional: 1 (reservation pod) + 8 (see the test above).
  for (int w = 1; w <= 3; ++w) {
    for (auto when : {FakeBinderClient::When::kBefore, FakeBinderClient::When::kAfter}) {
      out.push_back({false, w, when});
    }
  }
  for (int w = 1; w <= 9; ++w) {
    for (auto when : {FakeBinderClient::When::kBefore, FakeBinderClient::When::kAfter}) {
      out.push_back({true, w, when});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryWrite, ConvergenceTest, ::testing::ValuesIn(AllFaults()),
                         [](const ::testing::TestParamInfo<FaultCase>& info) {
                           return std::string(info.param.fractional ? "Fraction" : "Whole") +
                                  "Write" + std::to_string(info.param.write) +
                                  (info.param.when == FakeBinderClient::When::kBefore ? "Before"
                                                                                      : "After");
                         });

}  // namespace
}  // namespace kai::binder
