#include "kube/cache/store.h"

#include <gtest/gtest.h>

#include "api/pod.h"
#include "kube/cache/typed.h"

namespace kai::kube {
namespace {

ObjectPtr Obj(std::string_view ns, std::string_view name, std::string rv = "1") {
  return std::make_shared<const Object>(ns, name, std::move(rv), "", nullptr, nullptr, nullptr);
}

std::vector<std::string> Keys(const std::vector<ObjectPtr>& objs) {
  std::vector<std::string> out;
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

TEST(IndexerTest, NamespaceAndCustomIndexes) {
  Indexer store;
  ASSERT_TRUE(store
                  .AddIndex("node",
                            [](const Object& o) -> std::vector<std::string> {
                              // Encode the node in the uid for the test.
                              if (o.uid().empty()) return {};
                              return {o.uid()};
                            })
                  .ok());
  EXPECT_FALSE(store.AddIndex("node", nullptr).ok());
  auto on = [](std::string_view ns, std::string_view name, std::string node, std::string rv) {
    return std::make_shared<const Object>(ns, name, rv, node, nullptr, nullptr, nullptr);
  };
  EXPECT_EQ(store.Upsert(on("b", "p2", "n1", "1")), nullptr);
  store.Upsert(on("a", "p1", "n1", "1"));
  store.Upsert(on("a", "p3", "n2", "1"));
  store.Upsert(on("a", "p4", "", "1"));
  EXPECT_EQ(store.size(), 4u);
  EXPECT_EQ(Keys(store.List()), (std::vector<std::string>{"a/p1", "a/p3", "a/p4", "b/p2"}));
  EXPECT_EQ(Keys(store.ByIndex(kNamespaceIndex, "a")),
            (std::vector<std::string>{"a/p1", "a/p3", "a/p4"}));
  EXPECT_EQ(Keys(store.ByIndex("node", "n1")), (std::vector<std::string>{"a/p1", "b/p2"}));
  EXPECT_EQ(store.IndexValues("node"), (std::vector<std::string>{"n1", "n2"}));

  // Moving p1 to n2 re-indexes it.
  ObjectPtr old = store.Upsert(on("a", "p1", "n2", "2"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->resource_version(), "1");
  EXPECT_EQ(Keys(store.ByIndex("node", "n1")), (std::vector<std::string>{"b/p2"}));
  EXPECT_EQ(Keys(store.ByIndex("node", "n2")), (std::vector<std::string>{"a/p1", "a/p3"}));
  EXPECT_NE(store.Remove("a/p3"), nullptr);
  EXPECT_EQ(store.Remove("a/p3"), nullptr);
  EXPECT_EQ(Keys(store.ByIndex("node", "n2")), (std::vector<std::string>{"a/p1"}));
  EXPECT_TRUE(store.ByIndex("nope", "x").empty());

  // Replace returns the previous contents and rebuilds the indexes.
  auto prev = store.Replace({on("c", "q", "n9", "5")});
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

}  // namespace
}  // namespace kai::kube
