#include "kube/cache/store.h"

#include <gtest/gtest.h>

#include <thread>

#include "api/node.h"
#include "api/pod.h"
#include "kube/cache/typed.h"

namespace kai::kube {
namespace {

ObjectPtr Obj(std::string_view ns, std::string_view name, std::string rv = "1") {
  return std::make_shared<const Object>(ns, name, std::move(rv), "", nullptr, nullptr, nullptr);
}

// The index tests encode a pod's node in its uid: an index "node" over it, and objects on a node.
Status AddNodeIndex(Indexer* store) {
  return store->AddIndex("node", [](const Object& o) -> std::vector<std::string> {
    if (o.uid().empty()) return {};
    return {o.uid()};
  });
}

ObjectPtr On(std::string_view ns, std::string_view name, std::string node, std::string rv) {
  return std::make_shared<const Object>(ns, name, std::move(rv), std::move(node), nullptr, nullptr,
                                        nullptr);
}

std::vector<std::string> Keys(const std::vector<ObjectPtr>& objs) {
  std::vector<std::string> out;
  out.reserve(objs.size());
  for (const auto& o : objs) out.push_back(o->key());
  return out;
}

TEST(ObjectTest, KeysAndDecoders) {
  ObjectPtr a = Obj("ns", "a");
  EXPECT_EQ(a->key(), "ns/a");
  EXPECT_EQ(a->namespace_(), "ns");
  EXPECT_EQ(a->name(), "a");
  ObjectPtr node = Obj("", "n1");
  EXPECT_EQ(node->key(), "n1");
  EXPECT_EQ(node->namespace_(), "");
  EXPECT_EQ(node->name(), "n1");

  const std::string json =
      R"({"kind":"Pod","apiVersion":"v1","spec":{"nodeName":"x"},"metadata":{"labels":{"name":"no"},"name":"p","namespace":"ns","uid":"u1","resourceVersion":"7"}})";
  auto raw = RawDecoder()(json);
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ((*raw)->key(), "ns/p");
  EXPECT_EQ((*raw)->resource_version(), "7");
  EXPECT_EQ((*raw)->uid(), "u1");
  EXPECT_EQ(*(*raw)->json(), json);
  EXPECT_EQ((*raw)->As<api::Pod>(), nullptr);
  EXPECT_FALSE(RawDecoder()(R"({"metadata":{}})").ok());
  EXPECT_FALSE(RawDecoder()("{").ok());

  auto typed = TypedDecoder<api::Pod>()(json);
  ASSERT_TRUE(typed.ok()) << typed.status();
  ASSERT_NE((*typed)->As<api::Pod>(), nullptr);
  EXPECT_EQ((*typed)->As<api::Pod>()->spec.node_name, "x");
  // One buffer: the Object's JSON is the typed object's raw document.
  EXPECT_EQ((*typed)->json().get(), (*typed)->As<api::Pod>()->raw.json.get());
  auto lean = TypedDecoder<api::Pod>(/*keep_json=*/false)(json);
  ASSERT_TRUE(lean.ok());
  EXPECT_EQ((*lean)->json(), nullptr);
  EXPECT_EQ((*lean)->As<api::Pod>()->raw.json, nullptr);
  EXPECT_FALSE(TypedDecoder<api::Pod>()(
                   R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"priority":"high"}})")
                   .ok());
}

// A lazy object decodes on first use to exactly what the eager decoder builds; its scanned
// fields and labels are there before any decode.
TEST(ObjectTest, LazyTypedDecoderEqualsEagerDecode) {
  const std::string json =
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","uid":"u1",)"
      R"("resourceVersion":"7","generation":3,"labels":{"runai-gpu-group":"g1","q\"x":"a\u0062",)"
      R"("n":"1"},"annotations":{"a":"b"}},"spec":{"nodeName":"node-\u0031","schedulerName":)"
      R"("kai-scheduler","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}],)"
      R"("priority":5},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})";
  const std::vector<FieldPath> paths = {{"spec", "nodeName"},   {"spec", "schedulerName"},
                                        {"status", "phase"},    {"metadata", "generation"},
                                        {"spec", "priority"},   {"spec", "containers"},
                                        {"status", "nominated"}};
  auto lazy = LazyTypedDecoder<api::Pod>(paths, /*labels=*/true)(json);
  ASSERT_TRUE(lazy.ok()) << lazy.status();
  const Object& o = **lazy;
  EXPECT_EQ(o.key(), "ns/p");
  EXPECT_EQ(o.resource_version(), "7");
  EXPECT_EQ(o.uid(), "u1");
  EXPECT_EQ(*o.json(), json);
  EXPECT_FALSE(o.decoded());
  EXPECT_EQ(o.field(0), "node-1");  // unescaped
  EXPECT_EQ(o.field(1), "kai-scheduler");
  EXPECT_EQ(o.field(2), "Running");
  EXPECT_EQ(o.field(3), "3");  // a number's text
  EXPECT_EQ(o.field(4), "5");
  EXPECT_EQ(o.field(5), "");   // not a scalar
  EXPECT_EQ(o.field(6), "");   // absent
  EXPECT_EQ(o.field(99), "");  // no such path
  const ObjectLabels want_labels = {{"runai-gpu-group", "g1"}, {"q\"x", "ab"}, {"n", "1"}};
  EXPECT_EQ(o.labels(), want_labels);
  ASSERT_NE(o.label("q\"x"), nullptr);
  EXPECT_EQ(*o.label("q\"x"), "ab");
  EXPECT_EQ(o.label("missing"), nullptr);
  EXPECT_FALSE(o.decoded());
  EXPECT_EQ(o.As<api::Node>(), nullptr);  // another type: no decode
  EXPECT_FALSE(o.decoded());

  auto eager = TypedDecoder<api::Pod>()(json);
  ASSERT_TRUE(eager.ok()) << eager.status();
  const api::Pod* pod = o.As<api::Pod>();
  ASSERT_NE(pod, nullptr);
  EXPECT_TRUE(o.decoded());
  EXPECT_EQ(*pod, *(*eager)->As<api::Pod>());
  EXPECT_EQ(api::EncodeJson(*pod), api::EncodeJson(*(*eager)->As<api::Pod>()));
  EXPECT_EQ(pod->spec.node_name, "node-1");
  EXPECT_EQ(pod->raw.json.get(), o.json().get());  // the object's buffer, not a copy
  EXPECT_EQ(o.As<api::Pod>(), pod);                // decoded once

  // Decoded once even when several threads ask at the same time.
  auto shared = LazyTypedDecoder<api::Pod>()(json);
  ASSERT_TRUE(shared.ok());
  std::vector<const api::Pod*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] { seen[i] = (*shared)->As<api::Pod>(); });
  }
  for (auto& t : threads) t.join();
  ASSERT_NE(seen[0], nullptr);
  for (const api::Pod* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_TRUE((*shared)->labels().empty());  // labels only when asked for

  // Structure and identity are checked at once; a value the type rejects is found on use.
  EXPECT_FALSE(LazyTypedDecoder<api::Pod>()(R"({"metadata":{}})").ok());
  EXPECT_FALSE(LazyTypedDecoder<api::Pod>()(R"({"metadata":{"name":"p"},"spec":{)").ok());
  auto bad = LazyTypedDecoder<api::Pod>({{"spec", "priority"}})(
      R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"priority":"high"}})");
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ((*bad)->field(0), "high");
  EXPECT_EQ((*bad)->As<api::Pod>(), nullptr);
  EXPECT_TRUE((*bad)->decoded());
}

TEST(IndexerTest, NamespaceAndCustomIndexes) {
  Indexer store;
  ASSERT_TRUE(AddNodeIndex(&store).ok());
  EXPECT_FALSE(store.AddIndex("node", nullptr).ok());
  EXPECT_EQ(store.Upsert(On("b", "p2", "n1", "1")), nullptr);
  store.Upsert(On("a", "p1", "n1", "1"));
  store.Upsert(On("a", "p3", "n2", "1"));
  store.Upsert(On("a", "p4", "", "1"));
  EXPECT_EQ(store.size(), 4u);
  EXPECT_EQ(Keys(store.List()), (std::vector<std::string>{"a/p1", "a/p3", "a/p4", "b/p2"}));
  EXPECT_EQ(Keys(store.ByIndex(kNamespaceIndex, "a")),
            (std::vector<std::string>{"a/p1", "a/p3", "a/p4"}));
  EXPECT_EQ(Keys(store.ByIndex("node", "n1")), (std::vector<std::string>{"a/p1", "b/p2"}));
  EXPECT_EQ(store.IndexValues("node"), (std::vector<std::string>{"n1", "n2"}));

  // Moving p1 to n2 re-indexes it.
  ObjectPtr old = store.Upsert(On("a", "p1", "n2", "2"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->resource_version(), "1");
  EXPECT_EQ(Keys(store.ByIndex("node", "n1")), (std::vector<std::string>{"b/p2"}));
  EXPECT_EQ(Keys(store.ByIndex("node", "n2")), (std::vector<std::string>{"a/p1", "a/p3"}));
  EXPECT_NE(store.Remove("a/p3"), nullptr);
  EXPECT_EQ(store.Remove("a/p3"), nullptr);
  EXPECT_EQ(Keys(store.ByIndex("node", "n2")), (std::vector<std::string>{"a/p1"}));
  EXPECT_TRUE(store.ByIndex("nope", "x").empty());

  // Replace returns the previous contents and rebuilds the indexes.
  auto prev = store.Replace({On("c", "q", "n9", "5")});
  EXPECT_EQ(prev.size(), 3u);
  EXPECT_EQ(Keys(store.List()), (std::vector<std::string>{"c/q"}));
  EXPECT_EQ(store.IndexValues("node"), (std::vector<std::string>{"n9"}));
  EXPECT_EQ(store.IndexValues(kNamespaceIndex), (std::vector<std::string>{"c"}));

  // An index added later covers what is already stored.
  ASSERT_TRUE(store
                  .AddIndex("rv",
                            [](const Object& o) -> std::vector<std::string> {
                              return {o.resource_version()};
                            })
                  .ok());
  EXPECT_EQ(Keys(store.ByIndex("rv", "5")), (std::vector<std::string>{"c/q"}));
  EXPECT_EQ(store.Get("c/q")->resource_version(), "5");
  EXPECT_EQ(store.Get("c/none"), nullptr);
}

// The informer's per-event path: a duplicate resourceVersion changes nothing; updates that keep
// their index values keep the indexes exact (the old objects are gone: a stale pointer left in an
// index would be read after free, which the sanitizer build reports).
TEST(IndexerTest, UpsertIfChangedKeepsIndexesExact) {
  Indexer store;
  ASSERT_TRUE(AddNodeIndex(&store).ok());
  bool stored = false;
  EXPECT_EQ(store.UpsertIfChanged(On("a", "p2", "n1", "1"), &stored), nullptr);
  EXPECT_TRUE(stored);
  store.Upsert(On("a", "p1", "n1", "1"));
  store.Upsert(On("a", "p3", "n1", "1"));
  ObjectPtr dup = On("a", "p2", "n1", "1");
  ObjectPtr current = store.UpsertIfChanged(dup, &stored);
  EXPECT_FALSE(stored);
  ASSERT_NE(current, nullptr);
  EXPECT_NE(current, dup);
  EXPECT_EQ(store.Get("a/p2"), current);

  for (int rv = 2; rv < 6; ++rv) {
    ObjectPtr old = store.UpsertIfChanged(On("a", "p2", "n1", std::to_string(rv)), &stored);
    EXPECT_TRUE(stored);
    EXPECT_EQ(old->resource_version(), std::to_string(rv - 1));
  }
  current.reset();
  EXPECT_EQ(Keys(store.ByIndex("node", "n1")), (std::vector<std::string>{"a/p1", "a/p2", "a/p3"}));
  EXPECT_EQ(store.ByIndex("node", "n1")[1]->resource_version(), "5");
  EXPECT_EQ(store.ByIndex(kNamespaceIndex, "a")[1]->resource_version(), "5");
  // Neighbours come and go around the swapped entry; a move and a removal still find it.
  store.Upsert(On("a", "p25", "n1", "1"));
  EXPECT_NE(store.Remove("a/p1"), nullptr);
  store.Upsert(On("a", "p2", "n2", "6"));
  EXPECT_EQ(Keys(store.ByIndex("node", "n1")), (std::vector<std::string>{"a/p25", "a/p3"}));
  EXPECT_EQ(Keys(store.ByIndex("node", "n2")), (std::vector<std::string>{"a/p2"}));
  store.Upsert(On("a", "p2", "", "7"));  // no longer indexed
  EXPECT_EQ(store.IndexValues("node"), (std::vector<std::string>{"n1"}));
  EXPECT_NE(store.Remove("a/p2"), nullptr);
  EXPECT_EQ(Keys(store.ByIndex(kNamespaceIndex, "a")), (std::vector<std::string>{"a/p25", "a/p3"}));
}

}  // namespace
}  // namespace kai::kube
