#include <gtest/gtest.h>

#include <random>
#include <string>

#include "api/codec_internal.h"
#include "api/kinds.h"
#include "kube/base/time.h"

namespace kai::api {
namespace {

// What `kubectl get pod -o json` returns, plus fields no Kubernetes version has ("x-*") at
// every level: top-level, nested struct, inside list items and inside map-of-struct values.
constexpr std::string_view kPodJson = R"({
  "apiVersion": "v1",
  "kind": "Pod",
  "x-top": {"keep": [1, 2.50, "three"]},
  "metadata": {
    "name": "train-0",
    "namespace": "team-a",
    "uid": "0b6f2a9c-1c1e-4c55-9d0e-6a7f1f1c2d3e",
    "resourceVersion": "123456",
    "generation": 1,
    "creationTimestamp": "2026-01-02T15:04:05Z",
    "labels": {"app": "train", "kai.scheduler/queue": "team-a"},
    "annotations": {"pod-group-name": "pg-train", "gpu-fraction": "0.5"},
    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train",
                         "uid": "u-1", "controller": true, "blockOwnerDeletion": true,
                         "x-owner": "kept"}],
    "finalizers": ["kai.scheduler/cleanup"],
    "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update",
                       "apiVersion": "v1", "time": "2026-01-02T15:04:05Z",
                       "fieldsType": "FieldsV1",
                       "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}]
  },
  "spec": {
    "schedulerName": "kai-scheduler",
    "priorityClassName": "train",
    "priority": 50,
    "x-spec": true,
    "initContainers": [{"name": "sidecar", "image": "busybox", "restartPolicy": "Always",
                        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
    "containers": [{
      "name": "main",
      "image": "nvcr.io/nvidia/pytorch:24.01-py3",
      "command": ["python", "train.py"],
      "env": [{"name": "A", "value": "1"},
              {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}],
      "resources": {"requests": {"cpu": "1.500", "memory": "2Gi", "nvidia.com/gpu": "1"},
                    "limits": {"nvidia.com/gpu": 1, "memory": "2Gi"}},
      "securityContext": {"runAsUser": 1000, "capabilities": {"drop": ["ALL"]}},
      "terminationMessagePath": "/dev/termination-log",
      "x-container": {"z": 1}
    }, {
      "name": "logger",
      "image": "fluent-bit",
      "resources": {}
    }],
    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "kube-api-access", "projected": {"sources": [{"serviceAccountToken":
                  {"expirationSeconds": 3607, "path": "token"}}]}}],
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                    {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                     "effect": "NoExecute", "tolerationSeconds": 300}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [{"key": "gpu", "operator": "In",
                                                      "values": ["a100", "h100"]}]}]}}},
    "nodeSelector": {"kai.scheduler/node-pool": "pool-a"},
    "schedulingGates": [{"name": "gate"}],
    "overhead": {"cpu": "250m"},
    "hostNetwork": false,
    "dnsPolicy": "ClusterFirst"
  },
  "status": {
    "phase": "Pending",
    "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                    "lastProbeTime": null, "lastTransitionTime": "2026-01-02T15:04:06Z",
                    "x-cond": 7}],
    "qosClass": "Burstable"
  }
})";

Pod DecodePod(std::string_view json = kPodJson) {
  Pod pod;
  Status s = DecodeJson(json, &pod);
  EXPECT_TRUE(s.ok()) << s;
  return pod;
}

rapidjson::Document Parse(std::string_view json) {
  rapidjson::Document doc;
  EXPECT_TRUE(ParseJson(json, &doc).ok()) << json;
  return doc;
}

const rapidjson::Value& At(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const rapidjson::Value* cur = &v;
  for (const char* p : path) {
    if (p[0] == '#') {
      cur = &(*cur)[static_cast<rapidjson::SizeType>(std::stoi(p + 1))];
    } else {
      EXPECT_TRUE(cur->IsObject() && cur->HasMember(p)) << p;
      cur = &(*cur)[p];
    }
  }
  return *cur;
}

TEST(CodecTest, DecodesARealisticPod) {
  Pod pod = DecodePod();
  EXPECT_EQ(pod.metadata.name, "train-0");
  EXPECT_EQ(pod.metadata.namespace_, "team-a");
  EXPECT_EQ(pod.metadata.Key(), "team-a/train-0");
  EXPECT_EQ(pod.metadata.generation, 1);
  ASSERT_TRUE(pod.metadata.creation_timestamp.has_value());
  EXPECT_EQ(FormatRfc3339(*pod.metadata.creation_timestamp), "2026-01-02T15:04:05Z");
  EXPECT_EQ(pod.metadata.annotations.at("pod-group-name"), "pg-train");
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  EXPECT_EQ(pod.metadata.owner_references[0].controller, true);
  EXPECT_EQ(pod.spec.priority, 50);
  ASSERT_EQ(pod.spec.containers.size(), 2u);
  const Container& c = pod.spec.containers[0];
  EXPECT_EQ(c.resources.requests.at("cpu").MilliValue(), 1500);
  EXPECT_EQ(c.resources.requests.at("memory").Value(), 2LL << 30);
  EXPECT_EQ(c.resources.limits.at("nvidia.com/gpu").Value(), 1);  // JSON number accepted
  EXPECT_EQ(c.security_context.json, R"({"runAsUser":1000,"capabilities":{"drop":["ALL"]}})");
  ASSERT_TRUE(c.env[1].value_from.has_value());
  EXPECT_EQ(c.env[1].value_from->config_map_key_ref->key, "k");
  EXPECT_EQ(pod.spec.init_containers[0].restart_policy, "Always");
  EXPECT_EQ(pod.spec.volumes[0].persistent_volume_claim->claim_name, "data");
  EXPECT_EQ(pod.spec.tolerations[1].toleration_seconds, 300);
  EXPECT_EQ(pod.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution
                ->node_selector_terms[0]
                .match_expressions[0]
                .values[1],
            "h100");
  EXPECT_EQ(pod.spec.overhead.at("cpu").MilliValue(), 250);
  EXPECT_EQ(pod.status.phase, "Pending");
  EXPECT_FALSE(pod.status.conditions[0].last_probe_time.has_value());
  ASSERT_NE(pod.raw.json, nullptr);
}

TEST(CodecTest, UnchangedObjectEncodesToTheSameDocument) {
  Pod pod = DecodePod();
  const std::string out = EncodeJson(pod);
  rapidjson::Document a = Parse(out);
  rapidjson::Document b = Parse(kPodJson);
  EXPECT_TRUE(a == b) << out;
  // Quantity text is kept as written ("1.500", not "1500m"; a number stays a number).
  EXPECT_STREQ(At(a, {"spec", "containers", "#0", "resources", "requests", "cpu"}).GetString(),
               "1.500");
  EXPECT_TRUE(
      At(a, {"spec", "containers", "#0", "resources", "limits", "nvidia.com/gpu"}).IsNumber());
}

TEST(CodecTest, ChangesAreWrittenIntoTheOriginalKeepingUnknownFields) {
  Pod pod = DecodePod();
  pod.spec.node_name = "node-7";                                             // added
  pod.metadata.labels["new"] = "label";                                      // map entry added
  pod.metadata.annotations.erase("gpu-fraction");                            // map entry removed
  pod.spec.containers[0].resources.requests["cpu"] = *Quantity::Parse("2");  // changed
  pod.spec.containers[0].image = "pytorch:25";                               // changed in list item
  pod.status.conditions[0].status = "True";                                  // changed in list item
  pod.spec.scheduling_gates.clear();                                         // removed (omitempty)
  pod.spec.priority_class_name.clear();                                      // removed
  const std::string out = EncodeJson(pod);
  rapidjson::Document d = Parse(out);

  EXPECT_STREQ(At(d, {"spec", "nodeName"}).GetString(), "node-7");
  EXPECT_STREQ(At(d, {"metadata", "labels", "new"}).GetString(), "label");
  EXPECT_FALSE(At(d, {"metadata", "annotations"}).HasMember("gpu-fraction"));
  EXPECT_STREQ(At(d, {"spec", "containers", "#0", "resources", "requests", "cpu"}).GetString(),
               "2");
  EXPECT_STREQ(At(d, {"spec", "containers", "#0", "image"}).GetString(), "pytorch:25");
  EXPECT_FALSE(At(d, {"spec"}).HasMember("schedulingGates"));
  EXPECT_FALSE(At(d, {"spec"}).HasMember("priorityClassName"));
  EXPECT_STREQ(At(d, {"status", "conditions", "#0", "status"}).GetString(), "True");

  // Unknown fields survive at every level.
  EXPECT_TRUE(At(d, {"x-top"}) == At(Parse(kPodJson), {"x-top"}));
  EXPECT_EQ(At(d, {"metadata", "managedFields"}).Size(), 1u);
  EXPECT_STREQ(At(d, {"metadata", "ownerReferences", "#0", "x-owner"}).GetString(), "kept");
  EXPECT_TRUE(At(d, {"spec", "x-spec"}).GetBool());
  EXPECT_EQ(At(d, {"spec", "containers", "#0", "x-container", "z"}).GetInt(), 1);
  EXPECT_STREQ(At(d, {"spec", "containers", "#0", "terminationMessagePath"}).GetString(),
               "/dev/termination-log");
  EXPECT_EQ(At(d, {"status", "conditions", "#0", "x-cond"}).GetInt(), 7);
  EXPECT_TRUE(At(d, {"spec", "volumes", "#1"}).HasMember("projected"));
  EXPECT_STREQ(At(d, {"status", "qosClass"}).GetString(), "Burstable");
  EXPECT_FALSE(At(d, {"spec", "hostNetwork"}).GetBool());  // zero but present: kept

  // Round trip: decode(encode(x)) == x.
  Pod again;
  ASSERT_TRUE(DecodeJson(out, &again).ok());
  EXPECT_EQ(again, pod);
}

TEST(CodecTest, ListItemsAreMatchedConservatively) {
  // Reordered unchanged items keep their unknown fields.
  Pod pod = DecodePod();
  std::swap(pod.spec.containers[0], pod.spec.containers[1]);
  rapidjson::Document d = Parse(EncodeJson(pod));
  EXPECT_STREQ(At(d, {"spec", "containers", "#0", "name"}).GetString(), "logger");
  EXPECT_EQ(At(d, {"spec", "containers", "#1", "x-container", "z"}).GetInt(), 1);

  // Removing an item never attaches its unknown fields to a neighbour.
  Pod removed = DecodePod();
  removed.spec.containers.erase(removed.spec.containers.begin());
  removed.spec.containers[0].image = "fluent-bit:2";
  d = Parse(EncodeJson(removed));
  ASSERT_EQ(At(d, {"spec", "containers"}).Size(), 1u);
  EXPECT_FALSE(At(d, {"spec", "containers", "#0"}).HasMember("x-container"));
  EXPECT_FALSE(At(d, {"spec", "containers", "#0"}).HasMember("terminationMessagePath"));
  EXPECT_STREQ(At(d, {"spec", "containers", "#0", "image"}).GetString(), "fluent-bit:2");

  // Appending keeps every existing item verbatim.
  Pod appended = DecodePod();
  appended.status.conditions.push_back({.type = "Ready", .status = "False"});
  d = Parse(EncodeJson(appended));
  EXPECT_EQ(At(d, {"status", "conditions", "#0", "x-cond"}).GetInt(), 7);
  EXPECT_STREQ(At(d, {"status", "conditions", "#1", "type"}).GetString(), "Ready");
}

TEST(CodecTest, FreshObjectsGetTypeMetaAndOmitEmpty) {
  Queue q;
  q.metadata.name = "team-a";
  q.spec.parent_queue = "root";
  q.spec.priority = 0;  // set to zero: emitted (pointer in Go)
  q.spec.resources = QueueResources{};
  q.spec.resources->gpu = {.quota = 2, .over_quota_weight = 1, .limit = -1};
  q.spec.resources->cpu = {.quota = 0.5};
  const std::string out = EncodeJson(q);
  EXPECT_EQ(out,
            R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"team-a"},)"
            R"("spec":{"parentQueue":"root","resources":{"gpu":{"quota":2,"overQuotaWeight":1,)"
            R"("limit":-1},"cpu":{"quota":0.5}},"priority":0}})");
  Queue back;
  ASSERT_TRUE(DecodeJson(out, &back).ok());
  EXPECT_EQ(back, q);
}

TEST(CodecTest, TypeMetaIsChecked) {
  Pod pod;
  Status s = DecodeJson(R"({"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"p"}})", &pod);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), R"(Pod p: apiVersion: expected "v1", got "apps/v1")");
  s = DecodeJson(R"({"kind":"Node","metadata":{"name":"n1"}})", &pod);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), R"(Pod n1: kind: expected "Pod", got "Node")");
  // Absent apiVersion/kind (list items of built-in kinds) are fine.
  EXPECT_TRUE(DecodeJson(R"({"metadata":{"name":"p"}})", &pod).ok());
  PodGroup pg;
  EXPECT_FALSE(
      DecodeJson(R"({"apiVersion":"scheduling.run.ai/v2alpha1","kind":"PodGroup"})", &pg).ok());
}

TEST(CodecTest, ErrorsNameTheObjectAndThePath) {
  struct Case {
    std::string_view json;
    std::string_view message;
  };
  const Case kCases[] = {
      {R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"containers":[{"name":"c",
          "resources":{"requests":{"cpu":"1.5mi"}}}]}})",
       R"(Pod ns/p: spec.containers[0].resources.requests.cpu: invalid quantity "1.5mi": )"
       R"(unable to parse quantity's suffix)"},
      {R"({"metadata":{"name":"p"},"spec":{"containers":[{},{"resources":{"limits":
          {"nvidia.com/gpu":"abc"}}}]}})",
       R"(Pod p: spec.containers[1].resources.limits[nvidia.com/gpu]: invalid quantity "abc": )"
       R"(quantities must match the regular expression )"
       R"('^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')"},
      {R"({"spec":{"nodeName":5}})", R"(Pod: spec.nodeName: expected string, got number 5)"},
      {R"({"spec":{"priority":1.5}})", R"(Pod: spec.priority: expected int32, got number 1.5)"},
      {R"({"spec":{"priority":3000000000}})",
       R"(Pod: spec.priority: expected int32, got number 3000000000)"},
      {R"({"spec":{"hostNetwork":"true"}})",
       R"(Pod: spec.hostNetwork: expected boolean, got string "true")"},
      {R"({"spec":{"containers":{}}})", R"(Pod: spec.containers: expected array, got object)"},
      {R"({"spec":[]})", R"(Pod: spec: expected object, got array)"},
      {R"({"metadata":{"name":"p","creationTimestamp":"yesterday"}})",
       R"(Pod p: metadata.creationTimestamp: invalid RFC 3339 time "yesterday")"},
      {R"({"metadata":{"labels":{"a":1}}})",
       R"(Pod: metadata.labels.a: expected string, got number 1)"},
      {R"({"spec":{"tolerations":[{"tolerationSeconds":"300"}]}})",
       R"(Pod: spec.tolerations[0].tolerationSeconds: expected int64, got string "300")"},
  };
  for (const Case& c : kCases) {
    Pod pod;
    Status s = DecodeJson(c.json, &pod);
    ASSERT_FALSE(s.ok()) << c.json;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message);
  }
  Queue q;
  Status s =
      DecodeJson(R"({"metadata":{"name":"q"},"spec":{"preemptMinRuntime":"5 minutes"}})", &q);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Queue q: spec.preemptMinRuntime: "), std::string_view::npos)
      << s.message();
  Lease lease;
  s = DecodeJson("[1,2]", &lease);
  EXPECT_EQ(s.message(), "Lease: expected a JSON object, got array");
  s = DecodeJson("{\"spec\":", &lease);
  EXPECT_NE(s.message().find("Lease: invalid JSON at offset"), std::string_view::npos);
}

TEST(CodecTest, NullMeansZeroValue) {
  Pod pod;
  ASSERT_TRUE(DecodeJson(R"({"metadata":null,"spec":{"containers":null,"priority":null,
      "nodeSelector":{"a":null},"tolerations":[null]}})",
                         &pod)
                  .ok());
  EXPECT_FALSE(pod.spec.priority.has_value());
  EXPECT_EQ(pod.spec.node_selector.at("a"), "");
  EXPECT_EQ(pod.spec.tolerations.size(), 1u);
}

TEST(CodecTest, QuantityFromJsonNumbersAndPaddedStrings) {
  Node node;
  ASSERT_TRUE(DecodeJson(R"({"status":{"capacity":{"cpu":64,"memory":" 512Gi ","a":1.5,
      "b":1e3,"c":18446744073709551615}}})",
                         &node)
                  .ok());
  EXPECT_EQ(node.status.capacity.at("cpu").Value(), 64);
  EXPECT_EQ(node.status.capacity.at("memory").ToString(), "512Gi");
  EXPECT_EQ(node.status.capacity.at("a").ToString(), "1500m");
  EXPECT_EQ(node.status.capacity.at("b").ToString(), "1k");
  EXPECT_EQ(node.status.capacity.at("c").ToString(), "18446744073709551615");
}

TEST(CodecTest, DecodeValueFromParsedDocument) {
  rapidjson::Document doc = Parse(R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},
      "spec":{"unschedulable":true}}]})");
  std::vector<Node> nodes;
  for (const auto& item : doc["items"].GetArray()) {
    Node n;
    ASSERT_TRUE(DecodeValue(item, &n).ok());
    EXPECT_EQ(n.raw.json, nullptr);
    nodes.push_back(std::move(n));
  }
  EXPECT_TRUE(nodes[1].spec.unschedulable);
  Node kept;
  ASSERT_TRUE(DecodeValue(doc["items"][1], &kept, {.keep_raw = true}).ok());
  ASSERT_NE(kept.raw.json, nullptr);
  kept.spec.unschedulable = false;
  EXPECT_EQ(EncodeJson(kept), R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"b"}})");
}

TEST(CodecTest, RawJsonAndTimesRoundTrip) {
  Lease lease;
  lease.metadata.name = "kai-scheduler";
  lease.metadata.namespace_ = "kai";
  lease.spec.holder_identity = "pod-1";
  lease.spec.lease_duration_seconds = 15;
  lease.spec.renew_time = MicroTime{*ParseRfc3339("2026-01-02T15:04:05.123456Z")};
  const std::string out = EncodeJson(lease);
  EXPECT_NE(out.find(R"("renewTime":"2026-01-02T15:04:05.123456Z")"), std::string::npos) << out;
  Lease back;
  ASSERT_TRUE(DecodeJson(out, &back).ok());
  EXPECT_EQ(back, lease);

  Eviction ev;
  ev.metadata.name = "p";
  ev.delete_options.json = R"({"gracePeriodSeconds":0})";
  EXPECT_EQ(EncodeJson(ev),
            R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},)"
            R"("deleteOptions":{"gracePeriodSeconds":0}})");
}

TEST(CodecTest, GarbageNeverCrashes) {
  // Mutations of a valid document: truncations, byte flips, random type swaps.
  const std::string base(kPodJson);
  std::mt19937 rng(1234);
  for (size_t cut = 0; cut < base.size(); cut += 7) {
    Pod pod;
    (void)DecodeJson(base.substr(0, cut), &pod);
  }
  const std::string noise = "{}[]\",:0123456789.-eEtrufalsn \\x";
  for (int i = 0; i < 3000; ++i) {
    std::string s = base;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) s[rng() % s.size()] = noise[rng() % noise.size()];
    Pod pod;
    if (DecodeJson(s, &pod).ok()) {
      Pod again;
      ASSERT_TRUE(DecodeJson(EncodeJson(pod), &again).ok()) << s;
      EXPECT_EQ(again, pod);
    }
  }
  // Deep nesting: rejected or handled, never a stack overflow.
  for (int depth : {100, 5000, 20000, 200000}) {
    std::string deep = R"({"spec":{"containers":[{"securityContext":)";
    deep += std::string(depth, '[') + std::string(depth, ']') + "}]}}";
    Pod pod;
    Status s = DecodeJson(deep, &pod);
    if (s.ok()) (void)EncodeJson(pod);
  }
  std::string deep_unknown = R"({"x":)" + std::string(9000, '[') + std::string(9000, ']') + "}";
  Pod pod;
  ASSERT_TRUE(DecodeJson(deep_unknown, &pod).ok());
  pod.spec.node_name = "n";
  EXPECT_FALSE(EncodeJson(pod).empty());
}

TEST(KindsTest, LooksUpEveryTypedKind) {
  EXPECT_EQ(AllKinds().size(), 14u);
  for (const TypeInfo& t : AllKinds()) {
    EXPECT_EQ(FindKind(t.ApiVersion(), t.kind), &t) << t.kind;
    EXPECT_EQ(FindResource(t.group, t.plural), &t) << t.plural;
    EXPECT_EQ(FindResource(t.group, t.plural, t.version), &t) << t.plural;
  }
  const TypeInfo* pg = FindKind("scheduling.run.ai/v2alpha2", "PodGroup");
  ASSERT_NE(pg, nullptr);
  EXPECT_EQ(pg->plural, "podgroups");
  EXPECT_TRUE(pg->namespaced);
  EXPECT_EQ(FindKind("scheduling.run.ai/v2", "PodGroup"), nullptr);
  EXPECT_EQ(FindResource("", "pods")->kind, "Pod");
  EXPECT_EQ(FindResource("scheduling.run.ai", "queues", "v1"), nullptr);
  EXPECT_FALSE(FindResource("kai.scheduler", "configs")->namespaced);
}

}  // namespace
}  // namespace kai::api
