#include <gtest/gtest.h>

#include "api/rapidjson_util.h"
#include "kube/base/random.h"
#include "kube/patch/json_patch.h"
#include "kube/patch/merge_patch.h"
#include "kube/patch/strategic_merge_patch.h"

namespace kai::kube {
namespace {

// Canonical form for comparisons (parse + serialize).
std::string Canon(std::string_view json) {
  auto doc = api::ParseJsonDocument(json);
  EXPECT_TRUE(doc.ok()) << doc.status() << " in " << json;
  return doc.ok() ? api::ToJsonString(*doc) : "";
}

bool JsonEqual(std::string_view a, std::string_view b) {
  auto da = api::ParseJsonDocument(a);
  auto db = api::ParseJsonDocument(b);
  return da.ok() && db.ok() && *da == *db;
}

// Random JSON with a small alphabet of keys so documents overlap.
std::string RandomJson(Random& r, int depth) {
  const uint64_t kind = depth <= 0 ? r.Uniform(4) : r.Uniform(6);
  switch (kind) {
    case 0:
      return std::to_string(r.Uniform(5));
    case 1:
      return "\"" + std::string(1, static_cast<char>('a' + r.Uniform(3))) + "\"";
    case 2:
      return r.Uniform(2) ? "true" : "null";
    case 3:
      return "false";
    case 4: {
      std::string s = "[";
      const uint64_t n = r.Uniform(4);
      for (uint64_t i = 0; i < n; ++i) s += (i ? "," : "") + RandomJson(r, depth - 1);
      return s + "]";
    }
    default: {
      std::string s = "{";
      const uint64_t n = r.Uniform(4);
      bool used[5] = {};
      bool first = true;
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t k = r.Uniform(5);
        if (used[k]) continue;
        used[k] = true;
        const char* names[] = {"a", "b", "c/d", "e~f", "g"};
        s += std::string(first ? "" : ",") + "\"" + names[k] + "\":" + RandomJson(r, depth - 1);
        first = false;
      }
      return s + "}";
    }
  }
}

TEST(MergePatchTest, Rfc7386Examples) {
  struct Case {
    const char* target;
    const char* patch;
    const char* want;
  };
  const Case cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", "null", "null"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const Case& c : cases) {
    auto got = ApplyMergePatch(c.target, c.patch);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(JsonEqual(*got, c.want)) << c.target << " + " << c.patch << " = " << *got;
  }
}

TEST(MergePatchTest, CreateIsMinimalAndRoundTrips) {
  auto p = CreateMergePatch(
      R"({"metadata":{"name":"x","labels":{"a":"1","b":"2"}},"status":{"phase":"Pending","conditions":[1]}})",
      R"({"metadata":{"name":"x","labels":{"a":"1","c":"3"}},"status":{"phase":"Running","conditions":[1,2]}})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(
      *p,
      R"({"metadata":{"labels":{"b":null,"c":"3"}},"status":{"phase":"Running","conditions":[1,2]}})");
  EXPECT_EQ(*CreateMergePatch(R"({"a":1})", R"({"a":1})"), "{}");
  EXPECT_FALSE(CreateMergePatch("[1]", "{}").ok());
  EXPECT_FALSE(ApplyMergePatch("{", "{}").ok());

  // Property: apply(create(a, b), a) == b whenever b holds no null members (merge patches
  // cannot express "set to null").
  SeededRandom r(7);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string a = "{\"x\":" + RandomJson(r, 3) + "}";
    const std::string b = "{\"x\":" + RandomJson(r, 3) + "}";
    if (b.find("null") != std::string::npos) continue;
    auto patch = CreateMergePatch(a, b);
    ASSERT_TRUE(patch.ok());
    auto applied = ApplyMergePatch(a, *patch);
    ASSERT_TRUE(applied.ok());
    EXPECT_TRUE(JsonEqual(*applied, b)) << a << " -> " << b << " via " << *patch;
    ++checked;
  }
  EXPECT_GT(checked, 500);
}

TEST(JsonPatchTest, Rfc6902Operations) {
  struct Case {
    const char* doc;
    const char* patch;
    const char* want;  // nullptr: error
  };
  const Case cases[] = {
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
       R"({"foo":"bar","baz":"qux"})"},
      {R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
       R"({"foo":["bar","qux","baz"]})"},
      {R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":"x"}])",
       R"({"foo":["bar","x"]})"},
      {R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
      {R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
       R"({"foo":["bar","baz"]})"},
      {R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
       R"({"baz":"boo","foo":"bar"})"},
      {R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
       R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
       R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
      {R"({"foo":["all","grass","cows","eat"]})",
       R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
       R"({"foo":["all","cows","eat","grass"]})"},
      {R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])",
       R"({"a":{"b":1},"c":{"b":1}})"},
      {R"({"baz":"qux","foo":["a",2,"c"]})",
       R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
       R"({"baz":"qux","foo":["a",2,"c"]})"},
      {R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])", nullptr},
      {R"({"/":1,"~":2})",
       R"([{"op":"replace","path":"/~1","value":3},{"op":"remove","path":"/~0"}])", R"({"/":3})"},
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])", nullptr},
      {R"({"foo":[1]})", R"([{"op":"add","path":"/foo/5","value":2}])", nullptr},
      {R"({"foo":[1]})", R"([{"op":"remove","path":"/foo/01"}])", nullptr},
      {R"({"foo":1})", R"([{"op":"replace","path":"/bar","value":2}])", nullptr},
      {R"({"foo":1})", R"([{"op":"frobnicate","path":"/foo"}])", nullptr},
      {R"({"foo":1})", R"([{"op":"add","path":"/x"}])", nullptr},
      {R"({"foo":1})", R"({"op":"add"})", nullptr},
      {R"({"foo":1})", R"([{"op":"replace","path":"","value":[2]}])", R"([2])"},
  };
  for (const Case& c : cases) {
    auto got = ApplyJsonPatch(c.doc, c.patch);
    if (c.want == nullptr) {
      EXPECT_FALSE(got.ok()) << c.doc << " + " << c.patch << " = " << got.value_or("");
      continue;
    }
    ASSERT_TRUE(got.ok()) << c.patch << ": " << got.status();
    EXPECT_TRUE(JsonEqual(*got, c.want)) << c.doc << " + " << c.patch << " = " << *got;
  }
  auto err = ApplyJsonPatch(
      R"({"status":{}})",
      R"([{"op":"add","path":"/a","value":1},{"op":"replace","path":"/status/phase","value":"x"}])");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("op 1 (replace /status/phase)"), std::string::npos)
      << err.status();
}

TEST(JsonPatchTest, DiffOfPodGroupStatus) {
  auto p = CreateJsonPatch(
      R"({"status":{"phase":"Pending","schedulingConditions":[{"type":"A"}],"resourcesStatus":{"allocated":{"cpu":"1"}}}})",
      R"({"status":{"phase":"Running","schedulingConditions":[],"resourcesStatus":{"allocated":{"cpu":"2","nvidia.com/gpu":"1"}}}})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(
      *p,
      R"([{"op":"replace","path":"/status/phase","value":"Running"},)"
      R"({"op":"remove","path":"/status/schedulingConditions/0"},)"
      R"({"op":"replace","path":"/status/resourcesStatus/allocated/cpu","value":"2"},)"
      R"({"op":"add","path":"/status/resourcesStatus/allocated/nvidia.com~1gpu","value":"1"}])");
  EXPECT_EQ(*CreateJsonPatch(R"({"a":[1,2]})", R"({"a":[1,2]})"), "[]");
}

TEST(JsonPatchTest, DiffRoundTripsOnRandomDocuments) {
  SeededRandom r(11);
  for (int i = 0; i < 5000; ++i) {
    const std::string a = RandomJson(r, 4);
    const std::string b = RandomJson(r, 4);
    auto patch = CreateJsonPatch(a, b);
    ASSERT_TRUE(patch.ok());
    auto applied = ApplyJsonPatch(a, *patch);
    ASSERT_TRUE(applied.ok()) << a << " -> " << b << " via " << *patch << ": " << applied.status();
    EXPECT_TRUE(JsonEqual(*applied, b)) << a << " -> " << b << " via " << *patch;
  }
}

TEST(StrategicMergePatchTest, ConditionsMergeByType) {
  const std::string old_pod =
      R"({"metadata":{"name":"p"},"status":{"phase":"Pending","conditions":[)"
      R"({"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"no nodes"},)"
      R"({"type":"Ready","status":"False"}]}})";
  const std::string new_pod =
      R"({"metadata":{"name":"p"},"status":{"phase":"Pending","conditions":[)"
      R"({"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/3 nodes"},)"
      R"({"type":"Ready","status":"False"},{"type":"Custom","status":"True"}]}})";
  auto p = CreateStrategicMergePatch(old_pod, new_pod);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p,
            R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"},{"type":"Ready"},)"
            R"({"type":"Custom"}],"conditions":[{"type":"PodScheduled","message":"0/3 nodes"},)"
            R"({"type":"Custom","status":"True"}]}})");
  auto applied = ApplyStrategicMergePatch(old_pod, *p);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_TRUE(JsonEqual(*applied, new_pod)) << *applied;

  // A removed condition becomes $patch: delete; reordering is kept.
  const std::string fewer = R"({"metadata":{"name":"p"},"status":{"phase":"Pending","conditions":[)"
                            R"({"type":"Ready","status":"True"}]}})";
  auto del = CreateStrategicMergePatch(old_pod, fewer);
  ASSERT_TRUE(del.ok());
  EXPECT_NE(del->find(R"({"type":"PodScheduled","$patch":"delete"})"), std::string::npos) << *del;
  auto applied_del = ApplyStrategicMergePatch(old_pod, *del);
  ASSERT_TRUE(applied_del.ok());
  EXPECT_TRUE(JsonEqual(*applied_del, fewer)) << *applied_del;

  EXPECT_EQ(*CreateStrategicMergePatch(old_pod, old_pod), "{}");
}

TEST(StrategicMergePatchTest, ContainersEnvFinalizersAndPlainLists) {
  const std::string a =
      R"({"metadata":{"finalizers":["a","b"],"labels":{"x":"1"}},"spec":{"containers":[)"
      R"({"name":"main","image":"i:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},)"
      R"({"name":"side","image":"s:1"}],"tolerations":[{"key":"k"}]}})";
  const std::string b =
      R"({"metadata":{"finalizers":["b","c"],"labels":{"y":"2"}},"spec":{"containers":[)"
      R"({"name":"main","image":"i:2","env":[{"name":"B","value":"3"},{"name":"A","value":"1"}]},)"
      R"({"name":"side","image":"s:1"}],"tolerations":[{"key":"k2"}]}})";
  auto p = CreateStrategicMergePatch(a, b);
  ASSERT_TRUE(p.ok()) << p.status();
  auto applied = ApplyStrategicMergePatch(a, *p);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_TRUE(JsonEqual(*applied, b)) << *p << "\n=> " << *applied;
  EXPECT_NE(p->find(R"("$deleteFromPrimitiveList/finalizers":["a"])"), std::string::npos) << *p;
  // Tolerations have no merge key: replaced.
  EXPECT_NE(p->find(R"("tolerations":[{"key":"k2"}])"), std::string::npos) << *p;

  // $patch: replace on a map, apply of a condition patch onto a pod without conditions.
  auto r = ApplyStrategicMergePatch(R"({"spec":{"nodeSelector":{"a":"1","b":"2"}}})",
                                    R"({"spec":{"nodeSelector":{"$patch":"replace","c":"3"}}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Canon(*r), Canon(R"({"spec":{"nodeSelector":{"c":"3"}}})"));
  auto cond = PodConditionPatch(R"({"type":"PodScheduled","status":"True"})");
  ASSERT_TRUE(cond.ok());
  auto c = ApplyStrategicMergePatch(R"({"status":{"phase":"Pending"}})", *cond);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(
      Canon(*c),
      Canon(
          R"({"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True"}]}})"));
  EXPECT_FALSE(PodConditionPatch(R"({"status":"True"})").ok());
}

}  // namespace
}  // namespace kai::kube
