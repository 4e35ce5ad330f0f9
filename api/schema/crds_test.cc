// The shipped manifests: every CRD in crds/ passes the API server's CRD validation and keeps the
// shape KAI users rely on; every sample in config/samples validates against its CRD without a
// pruned field; malformed samples are rejected with a message naming the field.
// Tests run from the source directory (kai_test sets WORKING_DIRECTORY).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/rapidjson_util.h"
#include "api/schema/schema.h"
#include "api/schema/structural_schema.h"
#include "api/yaml_json.h"
#include "kube/base/file.h"

namespace kai::api::schema {
namespace {

using ::testing::HasSubstr;

struct CrdShape {
  std::string file;
  std::string name;
  std::string group;
  std::string version;
  std::string kind;
  std::string scope;
  std::vector<std::string> short_names;
  bool status_subresource;
  std::vector<std::string> columns;
};

const std::vector<CrdShape>& Shapes() {
  static const std::vector<CrdShape>* const kShapes = new std::vector<CrdShape>{
      {"crds/scheduling.run.ai_queues.yaml",
       "queues.scheduling.run.ai",
       "scheduling.run.ai",
       "v2",
       "Queue",
       "Cluster",
       {},
       true,
       {"Priority", "Parent", "Children", "DisplayName", "Age"}},
      {"crds/scheduling.run.ai_podgroups.yaml",
       "podgroups.scheduling.run.ai",
       "scheduling.run.ai",
       "v2alpha2",
       "PodGroup",
       "Namespaced",
       {"pg"},
       true,
       {}},
      {"crds/scheduling.run.ai_bindrequests.yaml",
       "bindrequests.scheduling.run.ai",
       "scheduling.run.ai",
       "v1alpha2",
       "BindRequest",
       "Namespaced",
       {},
       true,
       {}},
      {"crds/kai.scheduler_configs.yaml",
       "configs.kai.scheduler",
       "kai.scheduler",
       "v1",
       "Config",
       "Cluster",
       {},
       true,
       {}},
      {"crds/kai.scheduler_schedulingshards.yaml",
       "schedulingshards.kai.scheduler",
       "kai.scheduler",
       "v1",
       "SchedulingShard",
       "Cluster",
       {},
       true,
       {}},
      {"crds/kai.scheduler_topologies.yaml",
       "topologies.kai.scheduler",
       "kai.scheduler",
       "v1alpha1",
       "Topology",
       "Cluster",
       {},
       false,
       {}},
  };
  return *kShapes;
}

std::string Read(const std::string& path) {
  auto text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path << ": " << text.status();
  return text.ok() ? *text : "";
}

std::string CrdJson(const std::string& path) {
  auto json = YamlToJson(Read(path));
  EXPECT_TRUE(json.ok()) << path << ": " << json.status();
  return json.ok() ? *json : "{}";
}

// group/version/kind -> compiled schema of every shipped CRD.
const std::map<std::string, CustomResourceSchema>& Schemas() {
  static const auto* const kSchemas = [] {
    auto* m = new std::map<std::string, CustomResourceSchema>();
    for (const CrdShape& s : Shapes()) {
      auto schema = CustomResourceSchema::FromCrdJson(CrdJson(s.file), s.version);
      EXPECT_TRUE(schema.ok()) << s.file << ": " << schema.status();
      if (schema.ok()) m->emplace(s.group + "/" + s.version + "/" + s.kind, *schema);
    }
    return m;
  }();
  return *kSchemas;
}

TEST(CrdsTest, ExactlyTheSixCrdsAreShipped) {
  std::set<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator("crds")) {
    files.insert("crds/" + e.path().filename().string());
  }
  std::set<std::string> want;
  for (const CrdShape& s : Shapes()) want.insert(s.file);
  EXPECT_EQ(files, want);
}

TEST(CrdsTest, EveryCrdPassesApiServerValidation) {
  for (const CrdShape& s : Shapes()) {
    Status st = ValidateCrdYaml(Read(s.file));
    EXPECT_TRUE(st.ok()) << s.file << ": " << st;
  }
}

TEST(CrdsTest, CrdsHaveTheShapeKaiUsersRelyOn) {
  for (const CrdShape& s : Shapes()) {
    auto doc = ParseJsonDocument(CrdJson(s.file));
    ASSERT_TRUE(doc.ok());
    const rapidjson::Value& crd = *doc;
    EXPECT_EQ(std::string(crd["apiVersion"].GetString()), "apiextensions.k8s.io/v1");
    EXPECT_EQ(std::string(crd["metadata"]["name"].GetString()), s.name) << s.file;
    const rapidjson::Value& spec = crd["spec"];
    EXPECT_EQ(std::string(spec["group"].GetString()), s.group) << s.file;
    EXPECT_EQ(std::string(spec["scope"].GetString()), s.scope) << s.file;
    EXPECT_EQ(std::string(spec["names"]["kind"].GetString()), s.kind) << s.file;
    EXPECT_EQ(std::string(spec["names"]["listKind"].GetString()), s.kind + "List") << s.file;
    std::vector<std::string> short_names;
    if (spec["names"].HasMember("shortNames")) {
      for (const auto& n : spec["names"]["shortNames"].GetArray()) {
        short_names.emplace_back(n.GetString());
      }
    }
    EXPECT_EQ(short_names, s.short_names) << s.file;
    ASSERT_EQ(spec["versions"].Size(), 1u) << s.file;
    const rapidjson::Value& v = spec["versions"][0];
    EXPECT_EQ(std::string(v["name"].GetString()), s.version) << s.file;
    EXPECT_TRUE(v["served"].GetBool() && v["storage"].GetBool()) << s.file;
    EXPECT_EQ(v.HasMember("subresources") && v["subresources"].HasMember("status"),
              s.status_subresource)
        << s.file;
    std::vector<std::string> columns;
    if (v.HasMember("additionalPrinterColumns")) {
      for (const auto& c : v["additionalPrinterColumns"].GetArray()) {
        columns.emplace_back(c["name"].GetString());
      }
    }
    EXPECT_EQ(columns, s.columns) << s.file;
  }
}

TEST(CrdsTest, CrdsInstallOnKubernetes121AndKubectlApplyCanStoreThem) {
  for (const CrdShape& s : Shapes()) {
    std::string json = CrdJson(s.file);
    // No CEL (x-kubernetes-validations) and no selectable fields: both are newer than 1.21.
    EXPECT_EQ(json.find("x-kubernetes-validations"), std::string::npos) << s.file;
    EXPECT_EQ(json.find("selectableFields"), std::string::npos) << s.file;
    // Client-side `kubectl apply` keeps the whole object in an annotation limited to 256 KiB.
    auto doc = ParseJsonDocument(json);
    ASSERT_TRUE(doc.ok());
    EXPECT_LT(ToJsonString(*doc).size(), 200u * 1024) << s.file;
  }
}

// Field sets of reference section 2 that KAI users' objects carry: each must survive pruning.
TEST(CrdsTest, ReferenceFieldsAreNotPruned) {
  struct Probe {
    std::string gvk;
    std::string object;
  };
  std::vector<Probe> probes = {
      {"scheduling.run.ai/v2/Queue",
       R"({"spec":{"displayName":"d","parentQueue":"p","priority":1,"preemptMinRuntime":"1m",
          "reclaimMinRuntime":"2h","resources":{"gpu":{"quota":1,"overQuotaWeight":1,"limit":-1},
          "cpu":{"quota":1},"memory":{"limit":5}}},
          "status":{"childQueues":["a"],"allocated":{"cpu":"1"},"allocatedNonPreemptible":{},
          "requested":{"nvidia.com/gpu":2},"conditions":[{"type":"Orphan","status":"True",
          "lastTransitionTime":"2025-01-01T00:00:00Z","lastProbeTime":"2025-01-01T00:00:00Z",
          "reason":"r","message":"m"}]}})"},
      {"scheduling.run.ai/v2alpha2/PodGroup",
       R"({"spec":{"minMember":1,"queue":"q","priorityClassName":"train",
          "preemptibility":"preemptible","parallelism":2,"completions":2,"backoffLimit":1,
          "markUnschedulable":true,"schedulingBackoff":-1,"topologyConstraint":{"topology":"t",
          "requiredTopologyLevel":"a","preferredTopologyLevel":"b"},"subGroups":[{"name":"s",
          "minMember":1,"parent":"p","topologyConstraint":{"topology":"t"}}]},
          "status":{"phase":"Running","running":1,"succeeded":0,"failed":0,"pending":0,
          "conditions":[{"type":"t","status":"True","transitionID":"1",
          "lastTransitionTime":"2025-01-01T00:00:00Z","reason":"r","message":"m"}],
          "resourcesStatus":{"allocated":{"cpu":"1"},"allocatedNonPreemptible":{"cpu":"1"},
          "requested":{"cpu":"1"}},"schedulingConditions":[{"type":"UnschedulableOnNodePool",
          "nodePool":"default","reason":"Unschedulable","message":"m","transitionID":"3",
          "lastTransitionTime":"2025-01-01T00:00:00Z","status":"True","reasons":[{"reason":
          "OverLimit","message":"m","details":{"queueDetails":{"name":"q",
          "queueRequestedResources":{"cpu":"1"},"queueDeservedResources":{"cpu":"1"},
          "queueAllocatedResources":{"cpu":"1"},"queueAllocatedNonPreemptibleResources":{},
          "queueResourceLimits":{},"podGroupRequestedResources":{},
          "podGroupRequestedNonPreemptibleResources":{}}}}]}]}})"},
      {"scheduling.run.ai/v1alpha2/BindRequest",
       R"({"spec":{"podName":"p","selectedNode":"n","receivedResourceType":"Fraction",
          "receivedGPU":{"count":1,"portion":"0.50"},"selectedGPUGroups":["g"],"backoffLimit":1,
          "resourceClaimAllocations":[{"name":"c","allocation":{"allocationTimestamp":
          "2025-01-01T00:00:00Z","devices":{"results":[{"request":"r","driver":"d","pool":"p",
          "device":"x","adminAccess":false,"shareID":"s","tolerations":[{"key":"k",
          "operator":"Exists","effect":"NoSchedule","tolerationSeconds":5}]}],"config":[{
          "source":"FromClaim","requests":["r"],"opaque":{"driver":"d","parameters":{"any":
          {"thing":1}}}}]},"nodeSelector":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k",
          "operator":"In","values":["v"]}]}]}}}]},
          "status":{"phase":"Failed","reason":"r","failedAttempts":1}})"},
      {"kai.scheduler/v1/SchedulingShard",
       R"({"spec":{"args":{"a":"b"},"placementStrategy":{"gpu":"spread","cpu":"binpack"},
          "partitionLabelValue":"p","queueDepthPerAction":{"allocate":5},"minRuntime":{
          "preemptMinRuntime":"1m","reclaimMinRuntime":"2m"},"kValue":1.5,"usageDBConfig":{
          "clientType":"prometheus","connectionString":"http://x","connectionStringEnvVar":"E",
          "usageParams":{"windowSize":"1w","windowType":"cron","tumblingWindowStartTime":
          "2025-01-01T00:00:00Z","cronString":"0 0 * * *","halfLifePeriod":"24h",
          "fetchInterval":"1m","stalenessPeriod":"5m","waitTimeout":"1m","extraParams":{"a":"b"}}},
          "plugins":{"proportion":{"enabled":true,"priority":1,"arguments":{"kValue":"2"}}},
          "actions":{"reclaim":{"enabled":false,"priority":2}}},
          "status":{"conditions":[{"type":"Ready","status":"True","reason":"ready","message":"",
          "lastTransitionTime":"2025-01-01T00:00:00Z","observedGeneration":1}]}})"},
      {"kai.scheduler/v1alpha1/Topology",
       R"({"spec":{"levels":[{"nodeLabel":"topology.kubernetes.io/zone"},
          {"nodeLabel":"kubernetes.io/hostname"}]}})"},
      {"kai.scheduler/v1/Config",
       R"({"spec":{"namespace":"kai","global":{"openshift":false,"affinity":{"nodeAffinity":{
          "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{
          "matchExpressions":[{"key":"k","operator":"In","values":["v"]}]}]}},"podAntiAffinity":{
          "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{
          "topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"app":"x"}}}}]}},
          "requireDefaultPodAntiAffinityTerm":true,"securityContext":{"runAsUser":10000,
          "capabilities":{"drop":["ALL"]},"seccompProfile":{"type":"RuntimeDefault"}},
          "imagesPullSecret":"s","additionalImagePullSecrets":["s2"],"nodeSelector":{"a":"b"},
          "tolerations":[{"key":"k","operator":"Exists"}],"daemonsetsTolerations":[{"key":"d"}],
          "replicaCount":2,"queueLabelKey":"q","schedulerName":"s","nodePoolLabelKey":"n",
          "namespaceLabelSelector":{"a":"b"},"podLabelSelector":{"c":"d"}},
          "podGrouper":{"service":{"enabled":true,"image":{"repository":"r","name":"n","tag":"t",
          "pullPolicy":"Always"},"resources":{"requests":{"cpu":"50m"},"limits":{"memory":"1Gi"}},
          "k8sClientConfig":{"burst":100,"qps":20},"affinity":{}},"args":{"gangScheduleKnative":
          true,"defaultPrioritiesConfigMapName":"m","defaultPrioritiesConfigMapNamespace":"n"},
          "maxConcurrentReconciles":10,"replicas":1},
          "binder":{"service":{"enabled":true},"resourceReservation":{"image":{"name":"rr"},
          "allocationTimeout":60,"namespace":"n","serviceAccountName":"s","appLabel":"a",
          "runtimeClassName":"nvidia","podResources":{"requests":{"cpu":"1m"}}},"replicas":1,
          "maxConcurrentReconciles":5,"volumeBindingTimeoutSeconds":120,"probePort":8081,
          "metricsPort":8080,"cdiEnabled":true},
          "admission":{"service":{},"webhook":{"port":443,"targetPort":9443,"probePort":8081,
          "metricsPort":8080},"replicas":1,"gpuSharing":true,"queueLabelSelector":false,
          "validatingWebhookConfigurationName":"v","mutatingWebhookConfigurationName":"m",
          "gpuPodRuntimeClassName":"nvidia"},
          "scheduler":{"service":{},"GOGC":400,"schedulerService":{"type":"ClusterIP","port":8080,
          "targetPort":8080},"replicas":1},
          "queueController":{"service":{},"controllerService":{"metrics":{"port":8080,
          "targetPort":8080,"name":"metrics"},"webhook":{"port":443,"targetPort":9443,
          "name":"webhook"}},"webhooks":{"enableValidation":true,
          "webhookConfigurationNamePrefix":"p"},"replicas":1,"metricsNamespace":"m",
          "queueLabelToMetricLabel":"a=b","queueLabelToDefaultMetricValue":"a=c"},
          "podGroupController":{"service":{},"controllerService":{"webhook":{"port":443}},
          "maxConcurrentReconciles":3,"webhooks":{"enableValidation":true},"replicas":1},
          "nodeScaleAdjuster":{"service":{"enabled":false},"args":{"scalingPodImage":{"name":
          "scalingpod"},"nodeScaleNamespace":"n","nodeScaleServiceAccount":"s",
          "gpuMemoryToFractionRatio":0.1}},
          "prometheus":{"enabled":false,"instanceName":"prometheus","retentionPeriod":"2w",
          "sampleInterval":"1m","storageClassName":"standard","storageSize":"50Gi",
          "enablePersistentStorage":true,"serviceMonitor":{"enabled":true,"interval":"30s",
          "scrapeTimeout":"10s","bearerTokenFile":"/t"},"externalPrometheusUrl":"http://p",
          "externalPrometheusHealthProbe":{"interval":30,"timeout":10,"maxRetries":5},
          "accountingLabelKey":"k","accountingLabelValue":"v"}},
          "status":{"conditions":[{"type":"Available","status":"False","reason":"not_ready",
          "message":"m","lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"},
  };
  for (const Probe& p : probes) {
    auto it = Schemas().find(p.gvk);
    ASSERT_NE(it, Schemas().end()) << p.gvk;
    auto admitted = it->second.Admit(p.object);
    ASSERT_TRUE(admitted.ok()) << p.gvk << ": " << admitted.status();
    EXPECT_THAT(admitted->unknown_fields, ::testing::IsEmpty()) << p.gvk;
  }
}

struct SampleDoc {
  std::string file;
  int index;
  std::string json;
};

std::vector<SampleDoc> Samples() {
  std::vector<SampleDoc> out;
  std::vector<std::string> files;
  // snapshots/ holds `kai-scheduler simulate` inputs (Lists), checked by the simulate tests.
  for (const auto& e : std::filesystem::recursive_directory_iterator("config/samples")) {
    if (e.is_regular_file() && e.path().extension() == ".yaml" &&
        e.path().filename() != "kustomization.yaml" &&
        e.path().parent_path().filename() != "snapshots") {
      files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    auto docs = YamlToJsonDocuments(Read(f));
    EXPECT_TRUE(docs.ok()) << f << ": " << docs.status();
    if (!docs.ok()) continue;
    for (size_t i = 0; i < docs->size(); ++i) {
      out.push_back({f, static_cast<int>(i), (*docs)[i]});
    }
  }
  return out;
}

std::string Gvk(const rapidjson::Value& obj) {
  return std::string(obj["apiVersion"].GetString()) + "/" + obj["kind"].GetString();
}

TEST(SamplesTest, SamplesCoverTheQuickstart) {
  std::map<std::string, std::set<std::string>> names;  // gvk -> names
  for (const SampleDoc& d : Samples()) {
    auto doc = ParseJsonDocument(d.json);
    ASSERT_TRUE(doc.ok()) << d.file;
    names[Gvk(*doc)].insert((*doc)["metadata"]["name"].GetString());
  }
  EXPECT_EQ(names["scheduling.run.ai/v2/Queue"],
            (std::set<std::string>{"default-parent-queue", "default-queue"}));
  EXPECT_EQ(names["scheduling.k8s.io/v1/PriorityClass"],
            (std::set<std::string>{"train", "build-preemptible", "build", "inference"}));
  EXPECT_EQ(names["kai.scheduler/v1/Config"], (std::set<std::string>{"kai-config"}));
  EXPECT_EQ(names["kai.scheduler/v1/SchedulingShard"], (std::set<std::string>{"default"}));
  EXPECT_GE(names["v1/Pod"].size(), 10u);
  EXPECT_GE(names["scheduling.run.ai/v2alpha2/PodGroup"].size(), 3u);
}

TEST(SamplesTest, EveryCustomResourceSampleValidatesWithoutPrunedFields) {
  std::set<std::string> kinds;
  for (const SampleDoc& d : Samples()) {
    auto doc = ParseJsonDocument(d.json);
    ASSERT_TRUE(doc.ok());
    auto it = Schemas().find(Gvk(*doc));
    if (it == Schemas().end()) continue;
    auto admitted = it->second.Admit(d.json);
    ASSERT_TRUE(admitted.ok()) << d.file << " #" << d.index << ": " << admitted.status();
    EXPECT_THAT(admitted->unknown_fields, ::testing::IsEmpty()) << d.file << " #" << d.index;
    kinds.insert((*doc)["kind"].GetString());
  }
  // Every shipped CRD has at least one sample.
  EXPECT_EQ(kinds, (std::set<std::string>{"Queue", "PodGroup", "BindRequest", "Config",
                                          "SchedulingShard", "Topology"}));
}

TEST(SamplesTest, PriorityClassesMatchTheHelmChart) {
  std::map<std::string, int> values;
  for (const SampleDoc& d : Samples()) {
    auto doc = ParseJsonDocument(d.json);
    if (Gvk(*doc) != "scheduling.k8s.io/v1/PriorityClass") continue;
    values[(*doc)["metadata"]["name"].GetString()] = (*doc)["value"].GetInt();
    EXPECT_FALSE((*doc)["globalDefault"].GetBool());
  }
  EXPECT_EQ(values,
            (std::map<std::string, int>{
                {"train", 50}, {"build-preemptible", 75}, {"build", 100}, {"inference", 125}}));
}

TEST(SamplesTest, DefaultQueuesAreUnlimitedWithEqualWeights) {
  for (const SampleDoc& d : Samples()) {
    auto doc = ParseJsonDocument(d.json);
    if (Gvk(*doc) != "scheduling.run.ai/v2/Queue") continue;
    const rapidjson::Value& res = (*doc)["spec"]["resources"];
    for (const char* r : {"gpu", "cpu", "memory"}) {
      EXPECT_EQ(res[r]["quota"].GetDouble(), 0) << r;
      EXPECT_EQ(res[r]["limit"].GetDouble(), -1) << r;
      EXPECT_EQ(res[r]["overQuotaWeight"].GetDouble(), 1) << r;
    }
  }
}

TEST(SamplesTest, WorkloadsUseKaiAndAQueue) {
  int pods = 0;
  for (const SampleDoc& d : Samples()) {
    auto doc = ParseJsonDocument(d.json);
    const rapidjson::Value& obj = *doc;
    std::string gvk = Gvk(obj);
    if (gvk == "v1/Pod") {
      ++pods;
      EXPECT_EQ(std::string(obj["spec"]["schedulerName"].GetString()), "kai-scheduler") << d.file;
      EXPECT_EQ(std::string(obj["metadata"]["labels"]["kai.scheduler/queue"].GetString()),
                "default-queue")
          << d.file;
    } else if (gvk == "scheduling.run.ai/v2alpha2/PodGroup") {
      EXPECT_EQ(std::string(obj["spec"]["queue"].GetString()), "default-queue") << d.file;
    }
  }
  EXPECT_GE(pods, 10);
}

TEST(SamplesTest, KustomizationsListExistingFiles) {
  for (const char* dir : {"config/samples", "config/samples/workloads"}) {
    auto json = YamlToJson(Read(std::string(dir) + "/kustomization.yaml"));
    ASSERT_TRUE(json.ok());
    auto doc = ParseJsonDocument(*json);
    ASSERT_TRUE(doc.ok() && (*doc)["resources"].IsArray());
    for (const auto& r : (*doc)["resources"].GetArray()) {
      EXPECT_TRUE(std::filesystem::exists(std::string(dir) + "/" + r.GetString()))
          << dir << "/" << r.GetString();
    }
  }
}

// A sample, changed by replacing `from` with `to` in its YAML, must be rejected with exactly
// the field error `want` (a "field: body" string).
struct Malformed {
  std::string file;
  int index;
  std::string from;
  std::string to;
  std::string want;
};

TEST(SamplesTest, MalformedSamplesAreRejectedNamingTheField) {
  const std::string pg = "config/samples/scheduling.run.ai_v2alpha2_podgroup.yaml";
  const std::string queue = "config/samples/scheduling.run.ai_v2_queue.yaml";
  const std::string shard = "config/samples/kai.scheduler_v1_schedulingshard.yaml";
  const std::string topo = "config/samples/kai.scheduler_v1alpha1_topology.yaml";
  const std::string config = "config/samples/kai.scheduler_v1_config.yaml";
  const std::string br = "config/samples/scheduling.run.ai_v1alpha2_bindrequest.yaml";
  const std::string gang = "config/samples/workloads/gang-podgroup.yaml";
  std::vector<Malformed> cases = {
      {gang, 0, "minMember: 3", "minMember: 0",
       "spec.minMember: Invalid value: 0: spec.minMember in body should be greater than or equal "
       "to 1"},
      {gang, 0, "minMember: 3", "minMember: three",
       "spec.minMember: Invalid value: \"string\": spec.minMember in body must be of type "
       "integer: \"string\""},
      {gang, 0, "minMember: 3", "minMember: 2.5",
       "spec.minMember: Invalid value: \"float64\": spec.minMember in body must be of type "
       "int32: \"float64\""},
      {gang, 0, "priorityClassName: train", "preemptibility: sometimes",
       "spec.preemptibility: Unsupported value: \"sometimes\": supported values: "
       "\"preemptible\", \"non-preemptible\""},
      {pg, 0, "  - name: leader\n", "  - parent: workers\n",
       "spec.subGroups[0].name: Required value"},
      {pg, 0, "  - name: leader\n", "  - name: \"\"\n",
       "spec.subGroups[0].name: Invalid value: \"\": spec.subGroups[0].name in body should be at "
       "least 1 chars long"},
      {pg, 0, "    minMember: 1\n", "    minMember: -1\n",
       "spec.subGroups[0].minMember: Invalid value: -1: spec.subGroups[0].minMember in body "
       "should be greater than or equal to 0"},
      {queue, 1, "parentQueue: default-parent-queue", "parentQueue: [default-parent-queue]",
       "spec.parentQueue: Invalid value: \"array\": spec.parentQueue in body must be of type "
       "string: \"array\""},
      {queue, 1, "parentQueue: default-parent-queue",
       "parentQueue: default-parent-queue\n  priority: high",
       "spec.priority: Invalid value: \"string\": spec.priority in body must be of type integer: "
       "\"string\""},
      {queue, 1, "parentQueue: default-parent-queue",
       "parentQueue: default-parent-queue\n  preemptMinRuntime: 5 minutes",
       "spec.preemptMinRuntime: Invalid value: \"5 minutes\": spec.preemptMinRuntime in body "
       "should match '^[-+]?(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|\xC2\xB5s|\xCE\xBCs|ms|s|m|"
       "h))+)$'"},
      {queue, 0, "quota: 0\n      limit: -1\n      overQuotaWeight: 1\n    gpu",
       "quota: \"0\"\n      limit: -1\n      overQuotaWeight: 1\n    gpu",
       "spec.resources.cpu.quota: Invalid value: \"string\": spec.resources.cpu.quota in body "
       "must be of type number: \"string\""},
      {shard, 0, "gpu: binpack", "gpu: pack",
       "spec.placementStrategy.gpu: Unsupported value: \"pack\": supported values: \"binpack\", "
       "\"spread\""},
      {shard, 0, "partitionLabelValue: \"\"",
       "partitionLabelValue: \"\"\n  usageDBConfig:\n    connectionString: http://prom:9090",
       "spec.usageDBConfig.clientType: Required value"},
      {shard, 0, "partitionLabelValue: \"\"",
       "partitionLabelValue: \"\"\n  usageDBConfig:\n    clientType: prometheus\n    "
       "usageParams:\n      windowType: hourly",
       "spec.usageDBConfig.usageParams.windowType: Unsupported value: \"hourly\": supported "
       "values: \"sliding\", \"tumbling\", \"cron\""},
      {topo, 0, "  - nodeLabel: cloud.provider.com/topology-rack\n",
       "  - nodeLabel: cloud.provider.com/topology-block\n",
       "spec.levels[2]: Duplicate value: map[string]interface {}{\"nodeLabel\":"
       "\"cloud.provider.com/topology-block\"}"},
      {topo, 0, "  - nodeLabel: topology.kubernetes.io/zone\n", "  - nodeLabel: not a label!\n",
       "spec.levels[0].nodeLabel: Invalid value: \"not a label!\": spec.levels[0].nodeLabel in "
       "body should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
       "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'"},
      {topo, 0,
       "spec:\n  levels:\n  - nodeLabel: topology.kubernetes.io/zone\n  - nodeLabel: "
       "cloud.provider.com/topology-block\n  - nodeLabel: cloud.provider.com/topology-rack\n  - "
       "nodeLabel: kubernetes.io/hostname\n",
       "spec:\n  levels: []\n",
       "spec.levels: Invalid value: 0: spec.levels in body should have at least 1 items"},
      {topo, 0, "spec:\n", "notspec:\n", "spec: Required value"},
      {config, 0, "replicaCount: 1", "replicaCount: -1",
       "spec.global.replicaCount: Invalid value: -1: spec.global.replicaCount in body should be "
       "greater than or equal to 0"},
      {config, 0, "port: 8080", "port: 70000",
       "spec.scheduler.schedulerService.port: Invalid value: 70000: "
       "spec.scheduler.schedulerService.port in body should be less than or equal to 65535"},
      {config, 0, "gpuSharing: true", "gpuSharing: \"yes\"",
       "spec.admission.gpuSharing: Invalid value: \"string\": spec.admission.gpuSharing in body "
       "must be of type boolean: \"string\""},
      {config, 0, "requests: {cpu: 50m, memory: 200Mi}", "requests: {cpu: lots}",
       "spec.binder.service.resources.requests.cpu: Invalid value: \"lots\": "
       "spec.binder.service.resources.requests.cpu in body should match '^(\\+|-)?(([0-9]+(\\."
       "[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\."
       "[0-9]+))))?$'"},
      {br, 0, "count: 1", "count: \"1\"",
       "spec.receivedGPU.count: Invalid value: \"string\": spec.receivedGPU.count in body must "
       "be of type integer: \"string\""},
  };
  for (const Malformed& c : cases) {
    std::string yaml = Read(c.file);
    size_t pos = yaml.find(c.from);
    ASSERT_NE(pos, std::string::npos) << c.file << ": " << c.from;
    yaml.replace(pos, c.from.size(), c.to);
    auto docs = YamlToJsonDocuments(yaml);
    ASSERT_TRUE(docs.ok()) << docs.status();
    ASSERT_LT(static_cast<size_t>(c.index), docs->size());
    const std::string& json = (*docs)[static_cast<size_t>(c.index)];
    auto doc = ParseJsonDocument(json);
    auto it = Schemas().find(Gvk(*doc));
    ASSERT_NE(it, Schemas().end());
    auto admitted = it->second.Admit(json);
    ASSERT_FALSE(admitted.ok()) << c.want;
    EXPECT_EQ(admitted.status().reason(), "Invalid");
    std::vector<std::string> got;
    for (const StatusCause& cause : admitted.status().causes()) {
      got.push_back(cause.field + ": " + cause.message);
    }
    EXPECT_THAT(got, ::testing::ElementsAre(c.want)) << c.file << " " << c.from << " -> " << c.to;
    EXPECT_THAT(std::string(admitted.status().message()), HasSubstr(" is invalid: "));
  }
}

}  // namespace
}  // namespace kai::api::schema
