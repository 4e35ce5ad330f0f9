// Every sample decodes into its C++ type (api/ codecs) with the values the YAML spells out, also
// after going through its CRD's admission (pruning and defaulting change nothing a sample sets).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/bind_request.h"
#include "api/kai_config.h"
#include "api/pod.h"
#include "api/podgroup.h"
#include "api/priority_class.h"
#include "api/queue.h"
#include "api/rapidjson_util.h"
#include "api/scheduling_shard.h"
#include "api/schema/schema.h"
#include "api/topology.h"
#include "api/yaml_json.h"
#include "kube/base/file.h"

namespace kai::api::schema {
namespace {

struct Doc {
  std::string file;
  std::string kind;
  std::string json;
};

// The YAML documents of the files directly in `dir` (kustomization.yaml excepted).
std::vector<Doc> DocsIn(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml" &&
        e.path().filename() != "kustomization.yaml") {
      files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Doc> out;
  for (const std::string& f : files) {
    auto text = ReadFile(f);
    EXPECT_TRUE(text.ok()) << f;
    auto docs = YamlToJsonDocuments(text.ok() ? *text : "");
    EXPECT_TRUE(docs.ok()) << f;
    if (!docs.ok()) continue;
    for (const std::string& json : *docs) {
      auto doc = ParseJsonDocument(json);
      EXPECT_TRUE(doc.ok()) << f;
      out.push_back({f, (*doc)["kind"].GetString(), json});
    }
  }
  return out;
}

// One sample per kind at the top of config/samples; workloads/ and snapshots/ are checked by
// their own tests.
std::vector<Doc> SampleDocs() { return DocsIn("config/samples"); }

// The CRD version schema of each custom kind, to admit samples before decoding them.
const std::map<std::string, CustomResourceSchema>& SchemasByKind() {
  static const auto* const kSchemas = [] {
    struct Crd {
      const char* kind;
      const char* file;
      const char* version;
    };
    auto* m = new std::map<std::string, CustomResourceSchema>();
    for (const Crd& c : {Crd{"Queue", "crds/scheduling.run.ai_queues.yaml", "v2"},
                         Crd{"PodGroup", "crds/scheduling.run.ai_podgroups.yaml", "v2alpha2"},
                         Crd{"BindRequest", "crds/scheduling.run.ai_bindrequests.yaml", "v1alpha2"},
                         Crd{"Config", "crds/kai.scheduler_configs.yaml", "v1"},
                         Crd{"SchedulingShard", "crds/kai.scheduler_schedulingshards.yaml", "v1"},
                         Crd{"Topology", "crds/kai.scheduler_topologies.yaml", "v1alpha1"}}) {
      auto yaml = ReadFile(c.file);
      auto json = YamlToJson(yaml.ok() ? *yaml : "");
      auto s = CustomResourceSchema::FromCrdJson(json.ok() ? *json : "{}", c.version);
      EXPECT_TRUE(s.ok()) << c.file;
      if (s.ok()) m->emplace(c.kind, *s);
    }
    return m;
  }();
  return *kSchemas;
}

// Decodes `json` as `kind` and checks what every sample of that kind must carry.
void CheckDecodes(const Doc& d, const std::string& json) {
  SCOPED_TRACE(d.file + " (" + d.kind + ")");
  if (d.kind == "Queue") {
    auto q = Decode<Queue>(json);
    ASSERT_TRUE(q.ok()) << q.status();
    ASSERT_TRUE(q->spec.resources.has_value());
    for (const QueueResource* r :
         {&q->spec.resources->gpu, &q->spec.resources->cpu, &q->spec.resources->memory}) {
      EXPECT_EQ(r->quota, 0);
      EXPECT_EQ(r->limit, -1);
      EXPECT_EQ(r->over_quota_weight, 1);
    }
    if (q->metadata.name == "default-queue") {
      EXPECT_EQ(q->spec.parent_queue, "default-parent-queue");
    } else {
      EXPECT_EQ(q->metadata.name, "default-parent-queue");
      EXPECT_EQ(q->spec.parent_queue, "");
    }
  } else if (d.kind == "PriorityClass") {
    auto pc = Decode<PriorityClass>(json);
    ASSERT_TRUE(pc.ok()) << pc.status();
    static const std::map<std::string, int> kValues = {
        {"train", 50}, {"build-preemptible", 75}, {"build", 100}, {"inference", 125}};
    ASSERT_TRUE(kValues.count(pc->metadata.name)) << pc->metadata.name;
    EXPECT_EQ(pc->value, kValues.at(pc->metadata.name));
    EXPECT_FALSE(pc->global_default);
  } else if (d.kind == "Config") {
    auto c = Decode<Config>(json);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->metadata.name, kConfigName);
    EXPECT_EQ(c->spec.namespace_, "kai-scheduler");
    ASSERT_TRUE(c->spec.global.has_value());
    EXPECT_EQ(c->spec.global->scheduler_name, "kai-scheduler");
    EXPECT_EQ(c->spec.global->queue_label_key, "kai.scheduler/queue");
    ASSERT_TRUE(c->spec.admission.has_value());
    EXPECT_EQ(c->spec.admission->gpu_sharing, true);
    ASSERT_TRUE(c->spec.scheduler.has_value() && c->spec.scheduler->scheduler_service.has_value());
    EXPECT_EQ(c->spec.scheduler->scheduler_service->port, 8080);
  } else if (d.kind == "SchedulingShard") {
    auto s = Decode<SchedulingShard>(json);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->metadata.name, "default");
    EXPECT_EQ(s->spec.partition_label_value, "");
    ASSERT_TRUE(s->spec.placement_strategy.has_value());
    EXPECT_EQ(s->spec.placement_strategy->gpu, "binpack");
    EXPECT_EQ(s->spec.placement_strategy->cpu, "binpack");
  } else if (d.kind == "Topology") {
    auto t = Decode<Topology>(json);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_EQ(t->spec.levels.size(), 4u);
    EXPECT_EQ(t->spec.levels.front().node_label, "topology.kubernetes.io/zone");
    EXPECT_EQ(t->spec.levels.back().node_label, "kubernetes.io/hostname");
  } else if (d.kind == "PodGroup") {
    auto pg = Decode<PodGroup>(json);
    ASSERT_TRUE(pg.ok()) << pg.status();
    EXPECT_EQ(pg->spec.queue, "default-queue");
    ASSERT_TRUE(pg->spec.min_member.has_value());
    EXPECT_GE(*pg->spec.min_member, 2);
    if (pg->metadata.name == "llm-pretrain") {
      ASSERT_EQ(pg->spec.sub_groups.size(), 4u);
      EXPECT_EQ(pg->spec.sub_groups[2].name, "workers-0");
      ASSERT_TRUE(pg->spec.sub_groups[2].parent.has_value());
      EXPECT_EQ(*pg->spec.sub_groups[2].parent, "workers");
    }
  } else if (d.kind == "BindRequest") {
    auto br = Decode<BindRequest>(json);
    ASSERT_TRUE(br.ok()) << br.status();
    EXPECT_EQ(br->spec.received_resource_type, "Fraction");
    ASSERT_TRUE(br->spec.received_gpu.has_value());
    EXPECT_EQ(br->spec.received_gpu->count, 1);
    EXPECT_EQ(br->spec.received_gpu->portion, "0.50");
  } else if (d.kind == "Pod") {
    auto p = Decode<Pod>(json);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->spec.scheduler_name, "kai-scheduler");
    EXPECT_EQ(p->metadata.labels.at("kai.scheduler/queue"), "default-queue");
    EXPECT_FALSE(p->spec.containers.empty());
  } else {
    ADD_FAILURE() << "no decode check for kind " << d.kind;
  }
}

TEST(SamplesDecodeTest, EverySampleDecodesIntoItsType) {
  std::vector<Doc> docs = SampleDocs();
  std::set<std::string> kinds;
  for (const Doc& d : docs) {
    kinds.insert(d.kind);
    CheckDecodes(d, d.json);
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"BindRequest", "Config", "PodGroup", "PriorityClass",
                                          "Queue", "SchedulingShard", "Topology"}));
}

TEST(SamplesDecodeTest, AdmittedSamplesStillDecode) {
  for (const Doc& d : SampleDocs()) {
    auto it = SchemasByKind().find(d.kind);
    if (it == SchemasByKind().end()) continue;
    auto admitted = it->second.Admit(d.json);
    ASSERT_TRUE(admitted.ok()) << d.file << ": " << admitted.status();
    CheckDecodes(d, admitted->json);
  }
}

TEST(SamplesDecodeTest, WorkloadSamplesDecodeAndPassAdmission) {
  // What the quickstart applies: pods for kai-scheduler and gang PodGroups.
  std::vector<Doc> docs = DocsIn("config/samples/workloads");
  ASSERT_GE(docs.size(), 6u);
  for (const Doc& d : docs) {
    SCOPED_TRACE(d.file);
    if (d.kind == "Pod") {
      auto p = Decode<Pod>(d.json);
      ASSERT_TRUE(p.ok()) << p.status();
      EXPECT_EQ(p->spec.scheduler_name, "kai-scheduler");
      EXPECT_FALSE(p->spec.containers.empty());
    } else if (d.kind == "PodGroup") {
      auto admitted = SchemasByKind().at("PodGroup").Admit(d.json);
      ASSERT_TRUE(admitted.ok()) << admitted.status();
      auto pg = Decode<PodGroup>(admitted->json);
      ASSERT_TRUE(pg.ok()) << pg.status();
      EXPECT_FALSE(pg->spec.queue.empty());
    } else {
      ADD_FAILURE() << "unexpected kind " << d.kind;
    }
  }
}

TEST(SamplesDecodeTest, TypedDecodeAlsoRejectsMalformedSamples) {
  // The schema and the typed decoder agree on what a wrong type is, and both name the field.
  std::string json = R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup",)"
                     R"("metadata":{"name":"pg"},"spec":{"queue":"q","minMember":"three"}})";
  auto decoded = Decode<PodGroup>(json);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(std::string(decoded.status().message()), ::testing::HasSubstr("minMember"));
  auto admitted = SchemasByKind().at("PodGroup").Admit(json);
  ASSERT_FALSE(admitted.ok());
  EXPECT_EQ(admitted.status().causes().at(0).field, "spec.minMember");
}

TEST(SamplesDecodeTest, DurationPatternMatchesTheTypedDecoder) {
  // A duration the CRD accepts must decode (metav1.Duration); otherwise one bad Queue would
  // break every informer that decodes queues.
  for (const char* d : {"0", "0s", "1m", "1h30m", "1.5h", "300ms", "2us", "-5m", "+1s", ".5s",
                        "1h0m0s", "5 minutes", "1d", "", "m", "1", "1.5", "10x", "1h 30m"}) {
    std::string json = std::string(R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue",)") +
                       R"("metadata":{"name":"q"},"spec":{"preemptMinRuntime":")" + d + R"("}})";
    bool schema_ok = SchemasByKind().at("Queue").Admit(json).ok();
    bool decode_ok = Decode<Queue>(json).ok();
    EXPECT_EQ(schema_ok, decode_ok)
        << "\"" << d << "\": schema " << schema_ok << ", decoder " << decode_ok;
  }
}

}  // namespace
}  // namespace kai::api::schema
