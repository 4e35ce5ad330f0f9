// Codec benchmark: decode and encode of a typical pod (kubectl-style, with managedFields and
// status), the informer's hot path. Prints one JSON object. Allocation figures come from a
// counting operator new in this binary.
#include <rapidjson/document.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "api/codec_internal.h"
#include "api/labels.h"
#include "api/pod_resources.h"

// GCC sees malloc/free behind the replaced operators after inlining and warns spuriously.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<uint64_t> g_allocs{0};
std::atomic<uint64_t> g_bytes{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(n, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace kai::api {
namespace {

constexpr std::string_view kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{
"annotations":{"pod-group-name":"pg-train-7f9c","kubectl.kubernetes.io/last-applied-configuration":"{}"},
"creationTimestamp":"2026-01-02T15:04:05Z","generateName":"train-worker-","labels":{"app":"train",
"batch.kubernetes.io/job-name":"train","kai.scheduler/queue":"team-a","controller-uid":"5c1c"},
"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":
{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"main\"}":{".":{},"f:image":{}}}}},
"manager":"kube-controller-manager","operation":"Update","time":"2026-01-02T15:04:05Z"}],
"name":"train-worker-abcde","namespace":"team-a","ownerReferences":[{"apiVersion":"batch/v1",
"blockOwnerDeletion":true,"controller":true,"kind":"Job","name":"train","uid":"5c1c-1"}],
"resourceVersion":"9876543","uid":"0b6f2a9c-1c1e-4c55-9d0e-6a7f1f1c2d3e"},"spec":{
"containers":[{"command":["torchrun","--nproc-per-node=8","train.py"],"env":[{"name":"NCCL_DEBUG",
"value":"INFO"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":
"metadata.name"}}}],"image":"nvcr.io/nvidia/pytorch:24.01-py3","imagePullPolicy":"IfNotPresent",
"name":"main","ports":[{"containerPort":29500,"protocol":"TCP"}],"resources":{"limits":{
"nvidia.com/gpu":"8","memory":"512Gi"},"requests":{"cpu":"60","memory":"512Gi","nvidia.com/gpu":"8"}},
"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[
{"mountPath":"/data","name":"data"},{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount",
"name":"kube-api-access-x","readOnly":true}]}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,
"nodeSelector":{"kai.scheduler/node-pool":"h100"},"preemptionPolicy":"PreemptLowerPriority",
"priority":50,"priorityClassName":"train","restartPolicy":"Never","schedulerName":"kai-scheduler",
"securityContext":{},"serviceAccount":"default","serviceAccountName":"default",
"terminationGracePeriodSeconds":30,"tolerations":[{"effect":"NoExecute","key":
"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute",
"key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300},{"effect":
"NoSchedule","key":"nvidia.com/gpu","operator":"Exists"}],"volumes":[{"name":"data",
"persistentVolumeClaim":{"claimName":"datasets"}},{"name":"kube-api-access-x","projected":{
"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}]}}]},
"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":"2026-01-02T15:04:06Z",
"message":"0/64 nodes are available","reason":"Unschedulable","status":"False","type":
"PodScheduled"}],"phase":"Pending","qosClass":"Burstable"}})";

template <class F>
void Measure(const char* name, int iterations, F&& f, bool last = false) {
  f();  // warm up
  const uint64_t a0 = g_allocs.load(), b0 = g_bytes.load();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) f();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double allocs = static_cast<double>(g_allocs.load() - a0) / iterations;
  const double bytes = static_cast<double>(g_bytes.load() - b0) / iterations;
  std::printf(
      "    \"%s\": {\"iterations\": %d, \"ops_per_sec\": %.0f, \"ns_per_op\": %.0f, "
      "\"allocs_per_op\": %.1f, \"bytes_allocated_per_op\": %.0f}%s\n",
      name, iterations, iterations / secs, secs * 1e9 / iterations, allocs, bytes, last ? "" : ",");
}

int Run(int iterations) {
  Pod decoded;
  if (!DecodeJson(kPod, &decoded).ok()) return 1;
  rapidjson::Document parsed;
  if (!ParseJson(kPod, &parsed).ok()) return 1;
  Pod modified = decoded;
  modified.spec.node_name = "node-17";
  Pod fresh = decoded;
  fresh.raw = {};
  std::atomic<size_t> sink{0};  // keeps results observable

  std::printf("{\n  \"benchmark\": \"api codec\",\n  \"pod_json_bytes\": %zu,\n", kPod.size());
  std::printf("  \"results\": {\n");
  Measure("parse_only (RapidJSON)", iterations, [&] {
    rapidjson::Document d;
    (void)ParseJson(kPod, &d);
    sink += d.MemberCount();
  });
  Measure("decode_value (parsed document, no raw; informer path)", iterations, [&] {
    Pod p;
    (void)DecodeValue(parsed, &p);
    sink += p.spec.containers.size();
  });
  Measure("decode_json (parse + decode + keep raw)", iterations, [&] {
    Pod p;
    (void)DecodeJson(kPod, &p);
    sink += p.spec.containers.size();
  });
  Measure("encode_json (fresh, no raw)", iterations, [&] { sink += EncodeJson(fresh).size(); });
  Measure("encode_json (merge into raw, one field changed)", iterations,
          [&] { sink += EncodeJson(modified).size(); });
  Measure("pod_requests", iterations, [&] { sink += PodRequests(decoded.spec).size(); });
  auto selector = LabelSelectorMatcher::Parse("app=train,kai.scheduler/queue in (team-a,team-b)");
  Measure("label_selector_match", iterations * 10,
          [&] { sink += selector->Matches(decoded.metadata.labels); });
  Measure(
      "quantity_parse_and_format", iterations * 10,
      [&] { sink += Quantity::Parse("1536Mi")->ToString().size(); }, true);
  std::printf("  }\n}\n");
  return sink == 0 ? 1 : 0;
}

}  // namespace
}  // namespace kai::api

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  return kai::api::Run(iterations > 0 ? iterations : 20000);
}
