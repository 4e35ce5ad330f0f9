// The snapshot reader: the api codec's objects plus what the scheduler derives from them, from
// YAML or JSON, with errors that name the document, the object and the field.
#include "scheduler/cache/object_loader.h"

#include <gtest/gtest.h>

#include <string>

namespace kai::scheduler {
namespace {

constexpr const char* kYaml = R"(apiVersion: v1
kind: Node
metadata: {name: n1, labels: {nvidia.com/gpu.count: "8"}}
status:
  allocatable: {cpu: "7500m", memory: 64Gi, nvidia.com/gpu: "8", pods: "110"}
  capacity: {cpu: "8", memory: 64Gi, nvidia.com/gpu: "8", pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: p, annotations: {pod-group-name: pg}}
spec:
  overhead: {cpu: 250m}
  initContainers:
  - {name: sidecar, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
  - {name: init, resources: {requests: {cpu: "1m", memory: 2Gi}}}
  containers:
  - {name: a, resources: {requests: {cpu: "0.5m", memory: 1Gi, nvidia.com/gpu: "1"}}}
  - {name: b, resources: {requests: {cpu: "0.5m"}}}
)";

// The same objects as `kubectl get -o json` prints them: one List.
constexpr const char* kJson = R"({"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"nvidia.com/gpu.count":"8"}},
 "status":{"allocatable":{"cpu":"7500m","memory":"64Gi","nvidia.com/gpu":"8","pods":"110"},
           "capacity":{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"8","pods":"110"}}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"pod-group-name":"pg"}},
 "spec":{"overhead":{"cpu":"250m"},
  "initContainers":[{"name":"sidecar","restartPolicy":"Always","resources":{"requests":{"cpu":"1"}}},
                    {"name":"init","resources":{"requests":{"cpu":"1m","memory":"2Gi"}}}],
  "containers":[{"name":"a","resources":{"requests":{"cpu":"0.5m","memory":"1Gi","nvidia.com/gpu":"1"}}},
                {"name":"b","resources":{"requests":{"cpu":"0.5m"}}}]}}]})";

void ExpectTheObjects(const LoadedObjects& o) {
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].node->metadata.name, "n1");
  EXPECT_EQ(
      o.nodes[0].allocatable,
      (ResourceAmounts{
          {"cpu", 7500}, {"memory", 64.0 * (1 << 30)}, {"nvidia.com/gpu", 8}, {"pods", 110}}));
  EXPECT_EQ(o.nodes[0].capacity.at("cpu"), 8000);
  ASSERT_EQ(o.pods.size(), 1u);
  EXPECT_EQ(o.pods[0].pod->metadata.namespace_, "default");
  // Kubernetes' PodRequests: max(containers + sidecar, sidecar + init) + overhead, per resource;
  // the two 0.5m requests add up before rounding (1001m, not 1002m), as Kubernetes sums
  // Quantities.
  EXPECT_EQ(o.pods[0].requests,
            (ResourceAmounts{{"cpu", 1251}, {"memory", 2.0 * (1 << 30)}, {"nvidia.com/gpu", 1}}));
}

TEST(ObjectLoaderTest, YamlDocumentsAndAJsonListReadTheSame) {
  auto yaml = LoadObjects(kYaml);
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  ExpectTheObjects(*yaml);
  auto json = LoadObjects(kJson);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectTheObjects(*json);
}

TEST(ObjectLoaderTest, SeveralFlowMappingDocumentsAreReadAsYaml) {
  // Starts like JSON but is not one JSON document.
  auto o = LoadObjects(
      "{apiVersion: v1, kind: Node, metadata: {name: n1}}\n---\n"
      "{apiVersion: v1, kind: Node, metadata: {name: n2}}\n");
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->nodes.size(), 2u);
  EXPECT_EQ(o->nodes[1].node->metadata.name, "n2");
}

TEST(ObjectLoaderTest, JsonErrorsNameTheDocumentObjectAndField) {
  auto o = LoadObjects(
      R"({"apiVersion":"v1","kind":"List","items":[{"kind":"Node","metadata":{"name":"n1"}},)"
      R"({"kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"containers":)"
      R"([{"name":"m","resources":{"limits":{"memory":"1Gb"}}}]}}]})");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message().substr(0, 31), "document 1 items[1]: Pod ns/p: ");
  EXPECT_NE(o.status().message().find("spec.containers[0].resources.limits.memory"),
            std::string::npos)
      << o.status();
}

// Text that starts like JSON may be a YAML flow mapping: when neither reader takes it, the error
// has both readers' messages (the YAML one has the line).
TEST(ObjectLoaderTest, MalformedJsonIsReportedByBothReaders) {
  auto o = LoadObjects("{\"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}\n");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message().find("invalid JSON at offset"), 0u) << o.status();
  EXPECT_NE(o.status().message().find("; read as YAML: "), std::string::npos) << o.status();
  EXPECT_NE(o.status().message().find("line"), std::string::npos) << o.status();
  // JSON nested too deeply for either reader says so first (it used to show only the YAML
  // reader's complaint about a document that was never YAML).
  const std::string deep =
      "{\"kind\":\"Pod\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  o = LoadObjects(deep);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message().find("invalid JSON at offset"), 0u) << o.status();
  EXPECT_NE(o.status().message().find("nesting deeper than"), std::string::npos) << o.status();
}

TEST(ObjectLoaderTest, AWatchObjectIsReadWithItsWhere) {
  auto o = LoadObjectJson(R"({"kind":"Queue","metadata":{"name":"q"},"spec":{"priority":"x"}})",
                          "rawObjects.queues[0]");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message().substr(0, 30), "rawObjects.queues[0]: Queue q:") << o.status();
  auto ok = LoadObjectJson(R"({"kind":"Queue","metadata":{"name":"q"},"spec":{"priority":7}})");
  ASSERT_TRUE(ok.ok()) << ok.status();
  ASSERT_EQ(ok->queues.size(), 1u);
  EXPECT_EQ(ok->queues[0]->spec.priority, 7);
}

}  // namespace
}  // namespace kai::scheduler
