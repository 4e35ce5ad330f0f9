// The scheduler's writes through the REST client land on the API objects as intended
// (kube::FakeClient applies the patches with the API server's semantics).
#include "scheduler/outputs/rest_scheduler_writer.h"

#include <gtest/gtest.h>

#include "api/pod.h"
#include "api/podgroup.h"
#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/rest/errors.h"
#include "kube/rest/fake_client.h"
#include "scheduler/outputs/test_cluster.h"

namespace kai::scheduler {
namespace {

using outputs_testing::NodeYaml;
using outputs_testing::PodGroupYaml;
using outputs_testing::PodOptions;
using outputs_testing::PodYaml;
using outputs_testing::QueueYaml;

// The model and the fake API server hold the same objects; the cycle writes through REST.
class RestCycle {
 public:
  explicit RestCycle(const std::string& yaml, SchedulerParams params = {})
      : params_(std::move(params)),
        clock_(ParseRfc3339("2025-01-01T12:00:00Z").value()),
        fake_({.clock = &clock_}),
        writer_(&fake_, [this](const EventRecord& e) { events_.push_back(e); }),
        sink_(params_, &writer_, &updates_, &clock_),
        random_(3) {
    auto objects = LoadObjects(yaml);
    EXPECT_TRUE(objects.ok()) << objects.status();
    model_.AddAll(*objects);
    auto docs = api::YamlToJsonDocuments(yaml);
    EXPECT_TRUE(docs.ok());
    for (const auto& d : *docs) {
      auto doc = api::ParseJsonDocument(d);
      std::string kind = (*doc)["kind"].GetString();
      kube::GroupVersionResource gvr;
      if (kind == "Pod") gvr = {"", "v1", "pods"};
      if (kind == "Node") gvr = {"", "v1", "nodes"};
      if (kind == "PodGroup") gvr = kube::GvrOf<api::PodGroup>();
      if (kind == "Queue") gvr = {"scheduling.run.ai", "v2", "queues"};
      if (kind == "PriorityClass") gvr = {"scheduling.k8s.io", "v1", "priorityclasses"};
      EXPECT_TRUE(fake_.Seed(gvr, d).ok()) << kind;
    }
    sink_.set_on_bind_request_created([this](const api::BindRequest& br) {
      model_.UpsertBindRequest(std::make_shared<const api::BindRequest>(br));
    });
  }

  void Cycle() {
    SchedulingCycle cycle(DefaultSchedulerConfiguration(), params_, &sink_, &clock_, &random_);
    std::vector<std::string> warnings;
    cycle.Run(model_.Snapshot(params_, &warnings));
    updates_.Drain(&writer_);
  }

  template <class T>
  T Get(const kube::GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    auto json = fake_.Get(gvr, ns, name);
    EXPECT_TRUE(json.ok()) << json.status();
    auto obj = api::Decode<T>(json.ok() ? *json : "{}");
    EXPECT_TRUE(obj.ok()) << obj.status();
    return obj.ok() ? *obj : T{};
  }

  kube::FakeClient& fake() { return fake_; }
  std::vector<EventRecord>& events() { return events_; }

 private:
  SchedulerParams params_;
  FakeClock clock_;
  kube::FakeClient fake_;
  std::vector<EventRecord> events_;
  RestSchedulerWriter writer_;
  StatusUpdateQueue updates_;
  OutputSink sink_;
  ClusterModel model_;
  SeededRandom random_;
};

const kube::GroupVersionResource kPods{"", "v1", "pods"};

TEST(RestSchedulerWriter, BindRequestIsCreatedAndTheStartTimeAnnotated) {
  RestCycle c(NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
              PodYaml("ns", "p1", "pg", 1));
  c.Cycle();
  auto br = c.Get<api::BindRequest>(kube::GvrOf<api::BindRequest>(), "ns", "p1");
  EXPECT_EQ(br.spec.selected_node, "n1");
  EXPECT_EQ(br.metadata.owner_references.at(0).uid, "uid-p1");
  EXPECT_FALSE(br.metadata.uid.empty());  // server-assigned
  auto pg = c.Get<api::PodGroup>(kube::GvrOf<api::PodGroup>(), "ns", "pg");
  EXPECT_EQ(pg.metadata.annotations.at("kai.scheduler/last-start-timestamp"),
            "2025-01-01T12:00:00Z");
  ASSERT_EQ(c.events().size(), 1u);
  EXPECT_EQ(c.events()[0].reason, "Scheduled");
}

TEST(RestSchedulerWriter, PendingPodAndPodGroupGetTheirConditions) {
  RestCycle c(NodeYaml("n1", 1) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
              PodYaml("ns", "p1", "pg", 4));
  c.Cycle();
  auto pod = c.Get<api::Pod>(kPods, "ns", "p1");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].type, "PodScheduled");
  EXPECT_EQ(pod.status.conditions[0].status, "False");
  EXPECT_EQ(pod.status.conditions[0].reason, "Unschedulable");
  EXPECT_EQ(pod.status.phase, "Pending");  // the rest of the status is untouched
  auto pg = c.Get<api::PodGroup>(kube::GvrOf<api::PodGroup>(), "ns", "pg");
  ASSERT_EQ(pg.status.scheduling_conditions.size(), 1u);
  EXPECT_EQ(pg.status.scheduling_conditions[0].type, "UnschedulableOnNodePool");
  EXPECT_EQ(pg.status.scheduling_conditions[0].transition_id, "1");
  EXPECT_EQ(pg.status.scheduling_conditions[0].reasons.at(0).reason, "PodSchedulingErrors");
  EXPECT_EQ(pg.spec.queue, "q");  // the status patch did not touch the spec
}

TEST(RestSchedulerWriter, PreemptionDeletesTheVictim) {
  RestCycle c(
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 50\n"
      "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
      "value: 200\n---\n" +
      NodeYaml("n1", 1) + QueueYaml("q") +
      PodGroupYaml("ns", "pg-low", "q", 1, "  priorityClassName: low\n") +
      PodYaml("ns", "low-0", "pg-low", 1, PodOptions{.node = "n1", .phase = "Running"}) +
      PodGroupYaml("ns", "pg-high", "q", 1, "  priorityClassName: high\n") +
      PodYaml("ns", "high-0", "pg-high", 1));
  c.Cycle();
  EXPECT_TRUE(IsNotFound(c.fake().Get(kPods, "ns", "low-0").status()));
  EXPECT_TRUE(IsNotFound(
      c.fake().Get(kube::GvrOf<api::BindRequest>(), "ns", "high-0").status()));  // pipelined
}

TEST(RestSchedulerWriter, ErrorsComeBackAsApiErrors) {
  kube::FakeClient fake;
  RestSchedulerWriter w(&fake, nullptr);
  EXPECT_TRUE(IsNotFound(w.DeletePod("ns", "missing", "uid-missing")));
  // The uid is a precondition: another pod of the victim's name is not deleted.
  ASSERT_TRUE(fake.Create(kPods, "ns", R"({"metadata":{"name":"p"}})").ok());
  auto created = fake.Get(kPods, "ns", "p");
  ASSERT_TRUE(created.ok());
  auto uid = api::Decode<api::Pod>(*created);
  ASSERT_TRUE(uid.ok());
  EXPECT_TRUE(kube::IsConflict(w.DeletePod("ns", "p", "uid-of-an-earlier-p")));
  EXPECT_TRUE(fake.Get(kPods, "ns", "p").ok());
  EXPECT_TRUE(w.DeletePod("ns", "p", uid->metadata.uid).ok());
  EXPECT_TRUE(IsNotFound(fake.Get(kPods, "ns", "p").status()));
  EXPECT_TRUE(IsNotFound(w.PatchPodGroupStatus("ns", "missing", "uid-missing", "[]").status()));
  // A PodGroup's patches carry its uid: a namesake created since is not patched.
  const auto pgs = kube::GvrOf<api::PodGroup>();
  ASSERT_TRUE(fake.Create(pgs, "ns", R"({"metadata":{"name":"pg"},"spec":{"queue":"q"}})").ok());
  const std::string pg_uid = api::Decode<api::PodGroup>(*fake.Get(pgs, "ns", "pg"))->metadata.uid;
  const std::string ops = R"([{"op":"add","path":"/status","value":{"phase":"Running"}}])";
  EXPECT_TRUE(
      kube::IsConflict(w.PatchPodGroupStatus("ns", "pg", "uid-of-an-earlier-pg", ops).status()));
  EXPECT_TRUE(kube::IsConflict(w.PatchPodGroup("ns", "pg", "uid-of-an-earlier-pg", "[]").status()));
  EXPECT_EQ(api::Decode<api::PodGroup>(*fake.Get(pgs, "ns", "pg"))->status.phase, "");
  ASSERT_TRUE(w.PatchPodGroupStatus("ns", "pg", pg_uid, ops).ok());
  EXPECT_EQ(api::Decode<api::PodGroup>(*fake.Get(pgs, "ns", "pg"))->status.phase, "Running");
  api::BindRequest br;
  br.metadata.namespace_ = "ns";
  br.metadata.name = "p";
  br.spec.pod_name = "p";
  auto stored = w.CreateBindRequest(br);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_TRUE(IsAlreadyExists(w.CreateBindRequest(br).status()));
  // So is a stale BindRequest's: a newer one under its name stays.
  EXPECT_TRUE(kube::IsConflict(w.DeleteBindRequest("ns", "p", "uid-of-an-earlier-br")));
  EXPECT_TRUE(w.GetBindRequest("ns", "p").ok());
  EXPECT_TRUE(w.DeleteBindRequest("ns", "p", stored->metadata.uid).ok());
  EXPECT_TRUE(IsNotFound(w.GetBindRequest("ns", "p").status()));
  w.RecordEvent(EventRecord{});  // no sink: dropped
}

}  // namespace
}  // namespace kai::scheduler
