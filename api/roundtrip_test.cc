// Round trip of every top-level type: decode -> encode -> decode is the identity, an unmodified
// object encodes to the same JSON document (unknown fields included), and a fresh encode (no
// raw document) decodes back to the same value.
#include <gtest/gtest.h>

#include "api/codec_internal.h"

namespace kai::api {
namespace {

template <class T>
void CheckRoundTrip(std::string_view json) {
  SCOPED_TRACE(std::string(T::kTypeInfo.kind));
  T obj;
  Status s = DecodeJson(json, &obj);
  ASSERT_TRUE(s.ok()) << s;
  // Unmodified: the same document comes back.
  const std::string merged = EncodeJson(obj);
  rapidjson::Document a, b;
  ASSERT_TRUE(ParseJson(merged, &a).ok());
  ASSERT_TRUE(ParseJson(json, &b).ok());
  EXPECT_TRUE(a == b) << merged;
  // decode(encode(x)) == x, with and without the raw document.
  T again;
  ASSERT_TRUE(DecodeJson(merged, &again).ok());
  EXPECT_EQ(again, obj);
  T fresh = obj;
  fresh.raw = {};
  const std::string fresh_json = EncodeJson(fresh);
  T from_fresh;
  s = DecodeJson(fresh_json, &from_fresh);
  ASSERT_TRUE(s.ok()) << s << " " << fresh_json;
  EXPECT_EQ(from_fresh, obj) << fresh_json;
  EXPECT_EQ(fresh_json.find("\"x-"), std::string::npos);  // unknown fields live only in raw
}

TEST(RoundTripTest, Node) {
  CheckRoundTrip<Node>(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-1",
    "labels":{"nvidia.com/gpu.count":"8","kai.scheduler/node-pool":"a"},"x-m":1},
    "spec":{"unschedulable":true,"taints":[{"key":"k","value":"v","effect":"NoSchedule",
      "timeAdded":"2026-01-01T00:00:00Z","x-t":2}],"podCIDR":"10.0.0.0/24"},
    "status":{"capacity":{"cpu":"64","memory":"512Gi","nvidia.com/gpu":"8","pods":"110"},
      "allocatable":{"cpu":"63500m","memory":"500Gi","nvidia.com/gpu":"8"},
      "conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-02T00:00:00Z"}],
      "addresses":[{"type":"InternalIP","address":"10.0.0.1"}],"nodeInfo":{"kubeletVersion":"v1.31"}}})");
}

TEST(RoundTripTest, PriorityClass) {
  CheckRoundTrip<PriorityClass>(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",
    "metadata":{"name":"train"},"value":50,"globalDefault":false,"description":"training",
    "preemptionPolicy":"PreemptLowerPriority","x-p":[1]})");
}

TEST(RoundTripTest, Lease) {
  CheckRoundTrip<Lease>(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
    "metadata":{"name":"kai-scheduler","namespace":"kai-scheduler","resourceVersion":"7"},
    "spec":{"holderIdentity":"kai-scheduler-0_abc","leaseDurationSeconds":15,
      "acquireTime":"2026-01-02T15:04:05.000000Z","renewTime":"2026-01-02T15:05:05.123456Z",
      "leaseTransitions":3,"x-s":"keep"}})");
}

TEST(RoundTripTest, Event) {
  CheckRoundTrip<Event>(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"pg.1",
    "namespace":"ns"},"involvedObject":{"kind":"PodGroup","namespace":"ns","name":"pg",
    "uid":"u","apiVersion":"scheduling.run.ai/v2alpha2"},"reason":"Unschedulable",
    "message":"no nodes","source":{"component":"kai-scheduler"},
    "firstTimestamp":"2026-01-02T15:04:05Z","lastTimestamp":"2026-01-02T15:04:06Z","count":2,
    "type":"Warning","eventTime":null,"reportingComponent":"kai-scheduler","x-e":{}})");
}

TEST(RoundTripTest, ConfigMap) {
  CheckRoundTrip<ConfigMap>(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c",
    "namespace":"n"},"data":{"config.yaml":"actions: allocate\n","empty":""},
    "binaryData":{"b":"AAEC"},"immutable":true})");
}

TEST(RoundTripTest, BindingAndEviction) {
  CheckRoundTrip<Binding>(R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p",
    "namespace":"n"},"target":{"kind":"Node","name":"node-1","apiVersion":"v1"}})");
  CheckRoundTrip<Eviction>(R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p",
    "namespace":"n"},"deleteOptions":{"gracePeriodSeconds":30,"preconditions":{"uid":"u"}}})");
}

TEST(RoundTripTest, Queue) {
  CheckRoundTrip<Queue>(R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue",
    "metadata":{"name":"team-a","generation":3},
    "spec":{"displayName":"Team A","parentQueue":"default-parent-queue","priority":150,
      "preemptMinRuntime":"10m0s","reclaimMinRuntime":"1h30m0s",
      "resources":{"gpu":{"quota":2,"overQuotaWeight":1,"limit":-1},
        "cpu":{"quota":8000,"overQuotaWeight":1.5,"limit":-1},
        "memory":{"quota":-1,"overQuotaWeight":1,"limit":-1,"x-r":true}}},
    "status":{"childQueues":["a1","a2"],"allocated":{"nvidia.com/gpu":"2","cpu":"4"},
      "conditions":[{"type":"OverQuota","status":"False"}]}})");
}

TEST(RoundTripTest, PodGroup) {
  CheckRoundTrip<PodGroup>(R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup",
    "metadata":{"name":"pg-train","namespace":"team-a","annotations":{
      "kai.scheduler/top-owner-metadata":"name: train\nkind: Job\n"},
      "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"train","uid":"u"}]},
    "spec":{"minMember":4,"queue":"team-a","priorityClassName":"train",
      "preemptibility":"preemptible","markUnschedulable":false,"schedulingBackoff":1,
      "topologyConstraint":{"topology":"dc","requiredTopologyLevel":"rack"},
      "subGroups":[{"name":"workers","minMember":3,"topologyConstraint":{"topology":"dc",
        "preferredTopologyLevel":"kubernetes.io/hostname"}},{"name":"leader","minMember":1,
        "parent":"workers","x-sg":1}]},
    "status":{"schedulingConditions":[{"type":"UnschedulableOnNodePool","nodePool":"default",
      "reason":"Unschedulable","message":"queue over limit","transitionID":"3",
      "lastTransitionTime":"2026-01-02T15:04:05Z","status":"True",
      "reasons":[{"reason":"OverLimit","message":"m","details":{"queueDetails":{"name":"team-a",
        "queueResourceLimits":{"nvidia.com/gpu":"4"},"podGroupRequestedResources":
        {"nvidia.com/gpu":"8"}}}}]}],
      "resourcesStatus":{"allocated":{"cpu":"2"},"requested":{"nvidia.com/gpu":"8"}}}})");
}

TEST(RoundTripTest, BindRequest) {
  CheckRoundTrip<BindRequest>(R"({"apiVersion":"scheduling.run.ai/v1alpha2","kind":"BindRequest",
    "metadata":{"name":"p","namespace":"n","labels":{"selected-node":"node-1"}},
    "spec":{"podName":"p","selectedNode":"node-1","receivedResourceType":"Fraction",
      "receivedGPU":{"count":2,"portion":"0.50"},"selectedGPUGroups":["g1","g2"],
      "resourceClaimAllocations":[{"name":"gpu","allocation":{"devices":{"results":[
        {"request":"r","driver":"gpu.nvidia.com","pool":"p","device":"gpu-0"}]}}}],
      "backoffLimit":3},
    "status":{"phase":"Failed","reason":"node gone","failedAttempts":1}})");
}

TEST(RoundTripTest, Topology) {
  CheckRoundTrip<Topology>(R"({"apiVersion":"kai.scheduler/v1alpha1","kind":"Topology",
    "metadata":{"name":"dc"},"spec":{"levels":[{"nodeLabel":"topology.kubernetes.io/zone"},
      {"nodeLabel":"rack"},{"nodeLabel":"kubernetes.io/hostname"}]}})");
}

TEST(RoundTripTest, SchedulingShard) {
  CheckRoundTrip<SchedulingShard>(R"({"apiVersion":"kai.scheduler/v1","kind":"SchedulingShard",
    "metadata":{"name":"default","annotations":{"helm.sh/resource-policy":"keep"}},
    "spec":{"partitionLabelValue":"","args":{"v":"4"},"placementStrategy":{"gpu":"spread",
      "cpu":"binpack"},"queueDepthPerAction":{"allocate":100},"minRuntime":{
      "preemptMinRuntime":"5m"},"kValue":1.5,"usageDBConfig":{"clientType":"prometheus",
      "connectionString":"http://prom:9090","usageParams":{"windowSize":"168h0m0s",
      "windowType":"sliding","halfLifePeriod":"10m0s","extraParams":{"a":"b"}}},
      "plugins":{"taskorder":{"enabled":false},"proportion":{"arguments":{"kValue":"2"}}},
      "actions":{"consolidation":{"enabled":false,"priority":1}}},
    "status":{"conditions":[{"type":"Ready","status":"True","observedGeneration":2,
      "lastTransitionTime":"2026-01-02T15:04:05Z","reason":"ready","message":""}]}})");
}

TEST(RoundTripTest, Config) {
  CheckRoundTrip<Config>(R"({"apiVersion":"kai.scheduler/v1","kind":"Config",
    "metadata":{"name":"kai-config"},
    "spec":{"namespace":"kai-scheduler","global":{"openshift":false,
      "securityContext":{"runAsNonRoot":true},"additionalImagePullSecrets":["s"],
      "tolerations":[{"key":"k","operator":"Exists"}],"replicaCount":2,
      "nodeSelector":{"role":"infra"},"affinity":{"podAntiAffinity":{
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{
          "labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["x"]}]},
          "topologyKey":"kubernetes.io/hostname"}}]}}},
      "scheduler":{"service":{"resources":{"requests":{"cpu":"1"}},"image":{"tag":"v1"}},
        "GOGC":200,"schedulerService":{"port":9090}},
      "binder":{"cdiEnabled":true,"resourceReservation":{"allocationTimeout":40,
        "podResources":{"limits":{"cpu":"10m"}}}},
      "admission":{"gpuSharing":true,"webhook":{"port":8443}},
      "queueController":{"controllerService":{"metrics":{"port":9000,"name":"m"}},
        "webhooks":{"enableValidation":false}},
      "nodeScaleAdjuster":{"args":{"gpuMemoryToFractionRatio":0.1}},
      "prometheus":{"enabled":true,"externalPrometheusHealthProbe":{"interval":5}},
      "x-future":{"anything":true}},
    "status":{"conditions":[{"type":"Deployed","status":"True","reason":"deployed"}]}})");
}

TEST(RoundTripTest, PodWithEveryModelledSection) {
  CheckRoundTrip<Pod>(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n",
    "deletionTimestamp":"2026-01-02T15:04:05Z","deletionGracePeriodSeconds":30,
    "generateName":"p-"},
    "spec":{"runtimeClassName":"nvidia","preemptionPolicy":"Never","hostNetwork":true,
      "terminationGracePeriodSeconds":0,"serviceAccountName":"sa","restartPolicy":"Never",
      "containers":[{"name":"c","ports":[{"containerPort":80,"protocol":"TCP"}],
        "volumeMounts":[{"name":"v","mountPath":"/v","readOnly":true}],
        "envFrom":[{"configMapRef":{"name":"cm","optional":true}}],"imagePullPolicy":"Always",
        "args":["--a"]}],
      "volumes":[{"name":"v","configMap":{"name":"cm"}},{"name":"e","emptyDir":{}}],
      "affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{
        "labelSelector":{"matchLabels":{"a":"b"}},"topologyKey":"rack","namespaces":["n"],
        "matchLabelKeys":["pod-template-hash"]}]},
        "nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,
          "preference":{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}}]}},
      "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":
        "DoNotSchedule","labelSelector":{"matchLabels":{"a":"b"}},"minDomains":2}],
      "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"gpu-template"}]},
    "status":{"phase":"Running","hostIP":"10.0.0.1","podIP":"10.1.0.1",
      "startTime":"2026-01-02T15:04:05Z","nominatedNodeName":"n1"}})");
}

}  // namespace
}  // namespace kai::api
