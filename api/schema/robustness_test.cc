// No input crashes the engine: random mutations of the shipped CRDs and samples (wrong types,
// dropped and duplicated members, nulls, deep nesting) either pass or fail with a Status that
// carries a reason, and the same input always gives the same answer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/rapidjson_util.h"
#include "api/schema/schema.h"
#include "api/schema/structural_schema.h"
#include "api/yaml_json.h"
#include "kube/base/file.h"
#include "kube/base/random.h"

namespace kai::api::schema {
namespace {

std::string JsonOf(const std::string& path) {
  auto text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  auto json = YamlToJson(text.ok() ? *text : "{}");
  EXPECT_TRUE(json.ok()) << path;
  return json.ok() ? *json : "{}";
}

// Collects pointers to every value of the document.
void Collect(rapidjson::Value* v, std::vector<rapidjson::Value*>* out) {
  out->push_back(v);
  if (v->IsObject()) {
    for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) Collect(&it->value, out);
  } else if (v->IsArray()) {
    for (auto& e : v->GetArray()) Collect(&e, out);
  }
}

// Applies one random mutation to a random node.
void Mutate(rapidjson::Document* doc, Random* rnd) {
  std::vector<rapidjson::Value*> nodes;
  Collect(doc, &nodes);
  rapidjson::Value* v = nodes[rnd->Uniform(nodes.size())];
  auto& a = doc->GetAllocator();
  switch (rnd->Uniform(9)) {
    case 0:
      v->SetNull();
      break;
    case 1:
      v->SetString("x\xff\"y", a);
      break;
    case 2:
      v->SetInt64(static_cast<int64_t>(rnd->Uniform(5)) - 2);
      break;
    case 3:
      v->SetDouble(rnd->UniformDouble() * 1e300);
      break;
    case 4:
      v->SetBool(rnd->Uniform(2) == 0);
      break;
    case 5:
      v->SetArray();
      v->PushBack(rapidjson::Value("a", a), a).PushBack(rapidjson::Value("a", a), a);
      break;
    case 6:
      v->SetObject();
      v->AddMember("unknown", rapidjson::Value(1), a);
      break;
    case 7:
      if (v->IsObject() && v->MemberCount() > 0) {
        v->EraseMember(v->MemberBegin() + static_cast<long>(rnd->Uniform(v->MemberCount())));
      }
      break;
    default: {
      // Deep nesting.
      rapidjson::Value deep(rapidjson::kArrayType);
      for (int i = 0; i < 300; ++i) {
        rapidjson::Value outer(rapidjson::kArrayType);
        outer.PushBack(deep, a);
        deep = std::move(outer);
      }
      *v = std::move(deep);
    }
  }
}

TEST(RobustnessTest, MutatedCrdsNeverCrash) {
  SeededRandom rnd(42);
  for (const char* file :
       {"crds/scheduling.run.ai_podgroups.yaml", "crds/kai.scheduler_topologies.yaml",
        "crds/scheduling.run.ai_queues.yaml"}) {
    std::string base = JsonOf(file);
    for (int i = 0; i < 150; ++i) {
      auto doc = ParseJsonDocument(base);
      ASSERT_TRUE(doc.ok());
      for (uint64_t m = 0, n = 1 + rnd.Uniform(3); m < n; ++m) Mutate(&*doc, &rnd);
      std::string json = ToJsonString(*doc);
      Status a = ValidateCrdJson(json);
      Status b = ValidateCrdJson(json);
      EXPECT_EQ(a, b);
      if (!a.ok()) {
        EXPECT_FALSE(a.reason().empty()) << a;
      }
      // Whatever compiles must also admit objects without crashing.
      for (const char* version : {"v2alpha2", "v1alpha1", "v2"}) {
        auto schema = CustomResourceSchema::FromCrdJson(json, version);
        if (!schema.ok()) continue;
        auto r =
            schema->Admit(R"({"apiVersion":"a/b","kind":"K","metadata":{"name":"n"},)"
                          R"("spec":{"minMember":0,"levels":[{"nodeLabel":"x"}],"queue":"q"}})");
        if (!r.ok()) {
          EXPECT_FALSE(r.status().reason().empty());
        }
      }
    }
  }
}

TEST(RobustnessTest, MutatedObjectsNeverCrash) {
  SeededRandom rnd(7);
  struct Input {
    const char* crd;
    const char* version;
    const char* sample;
  };
  for (const Input& in : {Input{"crds/scheduling.run.ai_podgroups.yaml", "v2alpha2",
                                "config/samples/scheduling.run.ai_v2alpha2_podgroup.yaml"},
                          Input{"crds/kai.scheduler_configs.yaml", "v1",
                                "config/samples/kai.scheduler_v1_config.yaml"},
                          Input{"crds/kai.scheduler_schedulingshards.yaml", "v1",
                                "config/samples/kai.scheduler_v1_schedulingshard.yaml"},
                          Input{"crds/kai.scheduler_topologies.yaml", "v1alpha1",
                                "config/samples/kai.scheduler_v1alpha1_topology.yaml"}}) {
    auto schema = CustomResourceSchema::FromCrdJson(JsonOf(in.crd), in.version);
    ASSERT_TRUE(schema.ok()) << in.crd;
    std::string base = JsonOf(in.sample);
    for (int i = 0; i < 300; ++i) {
      auto doc = ParseJsonDocument(base);
      ASSERT_TRUE(doc.ok());
      for (uint64_t m = 0, n = 1 + rnd.Uniform(4); m < n; ++m) Mutate(&*doc, &rnd);
      std::string json = ToJsonString(*doc);
      auto a = schema->Admit(json);
      auto b = schema->Admit(json);
      ASSERT_EQ(a.ok(), b.ok());
      if (a.ok()) {
        EXPECT_EQ(a->json, b->json);
        // Admission is idempotent: admitting the result again changes nothing.
        auto again = schema->Admit(a->json);
        ASSERT_TRUE(again.ok()) << again.status();
        EXPECT_EQ(again->json, a->json);
      } else {
        EXPECT_EQ(a.status(), b.status());
        EXPECT_FALSE(a.status().reason().empty());
      }
      EXPECT_TRUE(schema->NormalizeStored(json).ok() || !ParseJsonDocument(json).ok());
    }
  }
}

}  // namespace
}  // namespace kai::api::schema
