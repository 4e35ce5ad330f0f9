#include "kube/rest/fake_client.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/pod.h"
#include "kube/base/fake_clock.h"
#include "kube/rest/errors.h"

namespace kai::kube {
namespace {

const GroupVersionResource kPods{"", "v1", "pods"};

std::string Pod(std::string_view name, std::string_view labels = "{}",
                std::string_view extra = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"(","namespace":"ns","labels":)" + std::string(labels) + "}" + std::string(extra) + "}";
}

api::Pod Decode(const StatusOr<std::string>& json) {
  EXPECT_TRUE(json.ok()) << json.status();
  auto pod = api::Decode<api::Pod>(json.value_or("{}"));
  EXPECT_TRUE(pod.ok()) << pod.status();
  return pod.ok() ? *pod : api::Pod();
}

TEST(FakeClientTest, CrudWithServerSemantics) {
  FakeClock clock;
  FakeClient fake({.clock = &clock});
  auto created = fake.Create(
      kPods, "ns", Pod("a", R"({"app":"x"})", R"(,"spec":{"containers":[{"name":"c"}]})"));
  api::Pod a = Decode(created);
  EXPECT_FALSE(a.metadata.uid.empty());
  EXPECT_EQ(a.metadata.generation, 1);
  EXPECT_EQ(a.metadata.creation_timestamp, clock.Now());
  EXPECT_TRUE(IsAlreadyExists(fake.Create(kPods, "ns", Pod("a")).status()));
  EXPECT_TRUE(IsNotFound(fake.Get(kPods, "ns", "zz").status()));
  EXPECT_EQ(Decode(fake.Get(kPods, "ns", "a")).metadata.resource_version,
            a.metadata.resource_version);

  // Optimistic concurrency.
  api::Pod stale = a;
  a.metadata.labels["v"] = "2";
  api::Pod updated = Decode(fake.Update(kPods, "ns", "a", api::EncodeJson(a)));
  EXPECT_NE(updated.metadata.resource_version, a.metadata.resource_version);
  EXPECT_EQ(updated.metadata.generation, 1);  // metadata only
  stale.metadata.labels["v"] = "3";
  EXPECT_TRUE(IsConflict(fake.Update(kPods, "ns", "a", api::EncodeJson(stale)).status()));

  // Status subresource: main writes keep status, /status writes change only status.
  updated.status.phase = "Running";
  updated.spec.node_name = "ignored";
  api::Pod st = Decode(fake.UpdateStatus(kPods, "ns", "a", api::EncodeJson(updated)));
  EXPECT_EQ(st.status.phase, "Running");
  EXPECT_EQ(st.spec.node_name, "");
  st.status.phase = "Failed";
  st.spec.priority_class_name = "high";
  api::Pod main = Decode(fake.Update(kPods, "ns", "a", api::EncodeJson(st)));
  EXPECT_EQ(main.status.phase, "Running");
  EXPECT_EQ(main.spec.priority_class_name, "high");
  EXPECT_EQ(main.metadata.generation, 2);

  // A no-op write keeps the resourceVersion.
  api::Pod same = Decode(fake.Update(kPods, "ns", "a", api::EncodeJson(main)));
  EXPECT_EQ(same.metadata.resource_version, main.metadata.resource_version);

  // generateName.
  api::Pod gen = Decode(
      fake.Create(kPods, "ns", R"({"metadata":{"generateName":"job-"},"spec":{"containers":[]}})"));
  EXPECT_EQ(gen.metadata.name.rfind("job-", 0), 0u);
  EXPECT_GT(gen.metadata.name.size(), 4u);
}

TEST(FakeClientTest, PatchesDeletesBindingEviction) {
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("p")).ok());
  api::Pod merged = Decode(
      fake.Patch(kPods, "ns", "p", PatchType::kMerge, R"({"metadata":{"labels":{"a":"1"}}})"));
  EXPECT_EQ(merged.metadata.labels.at("a"), "1");
  api::Pod json = Decode(fake.Patch(kPods, "ns", "p", PatchType::kJson,
                                    R"([{"op":"add","path":"/metadata/labels/b","value":"2"}])"));
  EXPECT_EQ(json.metadata.labels.at("b"), "2");
  api::Pod smp =
      Decode(fake.Patch(kPods, "ns", "p", PatchType::kStrategicMerge,
                        R"({"status":{"conditions":[{"type":"PodScheduled","status":"False"}]}})",
                        {{.subresource = "status"}}));
  ASSERT_EQ(smp.status.conditions.size(), 1u);
  EXPECT_TRUE(IsInvalid(
      fake.Patch(kPods, "ns", "p", PatchType::kJson, R"([{"op":"test","path":"/x","value":1}])")
          .status()));
  // A patch carrying a stale resourceVersion conflicts.
  EXPECT_TRUE(IsConflict(
      fake.Patch(kPods, "ns", "p", PatchType::kMerge, R"({"metadata":{"resourceVersion":"1"}})")
          .status()));
  EXPECT_FALSE(fake.Patch(kPods, "ns", "p", PatchType::kApply, "{}").ok());  // no fieldManager

  // Binding: the uid is a precondition, the annotations land with the node.
  const api::Pod before = Decode(fake.Get(kPods, "ns", "p"));
  EXPECT_TRUE(IsConflict(fake.Bind("ns", "p", "node-1", "another-pods-uid")));
  ASSERT_TRUE(fake.Bind("ns", "p", "node-1", before.metadata.uid, {{"granted", "Regular"}}).ok());
  const api::Pod bound = Decode(fake.Get(kPods, "ns", "p"));
  EXPECT_EQ(bound.spec.node_name, "node-1");
  EXPECT_EQ(bound.metadata.annotations.at("granted"), "Regular");
  EXPECT_TRUE(IsConflict(fake.Bind("ns", "p", "node-2")));

  // Delete preconditions and finalizers.
  EXPECT_TRUE(IsConflict(fake.Delete(kPods, "ns", "p", {.precondition_uid = "other"}).status()));
  ASSERT_TRUE(
      fake.Patch(kPods, "ns", "p", PatchType::kMerge, R"({"metadata":{"finalizers":["kai/x"]}})")
          .ok());
  api::Pod deleting = Decode(fake.Delete(kPods, "ns", "p"));
  EXPECT_TRUE(deleting.metadata.deletion_timestamp.has_value());
  EXPECT_TRUE(fake.Get(kPods, "ns", "p").ok());
  ASSERT_TRUE(
      fake.Patch(kPods, "ns", "p", PatchType::kMerge, R"({"metadata":{"finalizers":null}})").ok());
  EXPECT_TRUE(IsNotFound(fake.Get(kPods, "ns", "p").status()));

  // Eviction deletes.
  ASSERT_TRUE(fake.Seed(kPods, Pod("e")).ok());
  ASSERT_TRUE(fake.Evict("ns", "e").ok());
  EXPECT_TRUE(IsNotFound(fake.Get(kPods, "ns", "e").status()));
}

TEST(FakeClientTest, ListSelectorsAndPaging) {
  FakeClient fake;
  for (const char* n : {"a", "b", "c", "d"}) {
    ASSERT_TRUE(fake.Seed(kPods, Pod(n, std::string(n) < "c" ? R"({"tier":"web"})" : "{}")).ok());
  }
  ASSERT_TRUE(fake.Seed(kPods, R"({"metadata":{"name":"x","namespace":"other"}})").ok());
  auto all = ListAll(fake, kPods, "", {}, 2);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->items.size(), 5u);
  EXPECT_EQ(all->kind, "PodList");
  auto ns = fake.List(kPods, "ns");
  EXPECT_EQ(ns->items.size(), 4u);
  auto web = fake.List(kPods, "", {.label_selector = "tier=web"});
  EXPECT_EQ(web->items.size(), 2u);
  auto field = fake.List(kPods, "", {.field_selector = "metadata.name!=a,metadata.namespace=ns"});
  EXPECT_EQ(field->items.size(), 3u);
  EXPECT_FALSE(fake.List(kPods, "", {.label_selector = "a in (("}).ok());
}

TEST(FakeClientTest, ReactorsAndActions) {
  FakeClient fake;
  fake.InjectError("update", "pods", NewConflict("pods", "p", "injected"), 1);
  fake.InjectError("create", "pods/binding", NewInternalError("boom"), -1);
  ASSERT_TRUE(fake.Seed(kPods, Pod("p")).ok());
  auto got = fake.Get(kPods, "ns", "p");
  EXPECT_TRUE(IsConflict(fake.Update(kPods, "ns", "p", *got).status()));
  EXPECT_TRUE(fake.Update(kPods, "ns", "p", *got).ok());
  EXPECT_TRUE(fake.Bind("ns", "p", "n").ok());  // verb is "create-subresource"
  fake.InjectError("create-subresource", "pods/binding", NewInternalError("boom"), -1);
  EXPECT_TRUE(IsInternalError(fake.Bind("ns", "p", "n")));
  EXPECT_TRUE(IsInternalError(fake.Bind("ns", "p", "n")));
  fake.PrependReactor("get", "pods",
                      [](const FakeAction& a) -> std::optional<StatusOr<std::string>> {
                        if (a.name == "virtual") return StatusOr<std::string>(std::string("{}"));
                        return std::nullopt;
                      });
  EXPECT_EQ(*fake.Get(kPods, "ns", "virtual"), "{}");
  const auto actions = fake.actions();
  ASSERT_EQ(actions.size(), 7u);
  EXPECT_EQ(actions[0].verb, "get");
  EXPECT_EQ(actions[1].verb, "update");
  EXPECT_EQ(actions[3].verb, "create-subresource");
  EXPECT_EQ(actions[3].subresource, "binding");
  fake.ClearActions();
  EXPECT_TRUE(fake.actions().empty());
}

std::vector<std::string> Drain(Watcher& w, int n) {
  std::vector<std::string> out;
  WatchEvent e;
  while (static_cast<int>(out.size()) < n && w.Next(&e)) {
    std::string name;
    if (e.type != WatchEventType::kBookmark && e.type != WatchEventType::kError) {
      auto pod = api::Decode<api::Pod>(e.object);
      name = pod.ok() ? pod->metadata.name : "?";
    }
    out.push_back(std::string(WatchEventTypeName(e.type)) + " " + name);
  }
  return out;
}

TEST(FakeClientTest, WatchFromListSelectorsDropsAndCompaction) {
  FakeClient fake({.watch_history = 100});
  ASSERT_TRUE(fake.Seed(kPods, Pod("a", R"({"x":"1"})")).ok());
  auto list = fake.List(kPods, "");
  auto w =
      fake.Watch(kPods, "", {.label_selector = "x=1", .resource_version = list->resource_version});
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("b", R"({"x":"1"})")).ok());
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("c", R"({"x":"2"})")).ok());  // filtered out
  ASSERT_TRUE(
      fake.Patch(kPods, "ns", "c", PatchType::kMerge, R"({"metadata":{"labels":{"x":"1"}}})").ok());
  ASSERT_TRUE(
      fake.Patch(kPods, "ns", "a", PatchType::kMerge, R"({"metadata":{"labels":{"x":"9"}}})").ok());
  ASSERT_TRUE(fake.Delete(kPods, "ns", "b").ok());
  fake.Bookmark();
  EXPECT_EQ(Drain(**w, 5), (std::vector<std::string>{"ADDED b", "ADDED c", "DELETED a", "DELETED b",
                                                     "BOOKMARK "}));
  // A dropped watch ends cleanly.
  fake.DropWatches();
  WatchEvent e;
  EXPECT_FALSE((*w)->Next(&e));
  EXPECT_TRUE((*w)->Result().ok());
  w->reset();

  // RV "" starts with the current state as ADDED.
  auto fresh = fake.Watch(kPods, "ns");
  EXPECT_EQ(Drain(**fresh, 2), (std::vector<std::string>{"ADDED a", "ADDED c"}));
  EXPECT_EQ(fake.open_watches(), 1);
  fresh->reset();
  EXPECT_EQ(fake.open_watches(), 0);

  // Compaction: a watch from an old RV gets 410 Expired.
  fake.CompactHistory();
  auto old = fake.Watch(kPods, "", {.resource_version = list->resource_version});
  ASSERT_TRUE((*old)->Next(&e));
  EXPECT_EQ(e.type, WatchEventType::kError);
  EXPECT_TRUE(IsResourceExpired(e.error));
  EXPECT_FALSE((*old)->Next(&e));

  // Stop() unblocks a waiting Next().
  auto idle = fake.Watch(kPods, "", {.resource_version = fake.resource_version()});
  std::thread t([&] { (*idle)->Stop(); });
  EXPECT_FALSE((*idle)->Next(&e));
  t.join();
  EXPECT_EQ((*idle)->Result().code(), StatusCode::kCancelled);
}

}  // namespace
}  // namespace kai::kube
