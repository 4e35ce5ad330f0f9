// Cost of the /get-snapshot debug endpoint on a large cluster (issue 6's 1,000 nodes x 8 GPUs
// and 8,000 pods): the part done under the model lock (copying shared pointers to the cached
// JSON), serialising snapshot.json, zipping it, and reading it back as simulate does. Prints
// JSON; nothing is asserted.
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "kube/base/zip_writer.h"
#include "scheduler/app/debug_snapshot.h"
#include "scheduler/app/debug_snapshot_load.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string PodJson(int i) {
  const std::string n = std::to_string(i);
  return R"({"metadata":{"name":"job-)" + n + R"(-0","namespace":"team-)" + std::to_string(i % 10) +
         R"(","uid":"00000000-0000-0000-0000-)" + std::to_string(100000000000 + i) +
         R"(","resourceVersion":")" + n +
         R"(","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"kai.scheduler/queue":"q)" +
         std::to_string(i % 10) + R"(","app":"bench"},"annotations":{"pod-group-name":"pg-)" + n +
         R"("}},"spec":{"schedulerName":"kai-scheduler","terminationGracePeriodSeconds":0,)"
         R"("containers":[{"name":"main","image":"busybox","command":["sleep","infinity"],)"
         R"("env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"resources":{"requests":)"
         R"({"cpu":"100m","memory":"1Gi","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}}}],)"
         R"("tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]},)"
         R"("status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",)"
         R"("reason":"Unschedulable","message":"waiting"}]}})";
}

std::string NodeJson(int i) {
  return R"({"metadata":{"name":"node-)" + std::to_string(i) +
         R"(","labels":{"kubernetes.io/hostname":"node-)" + std::to_string(i) +
         R"(","nvidia.com/gpu.memory":"40000"}},"status":{"allocatable":{"cpu":"64","memory":)"
         R"("512Gi","nvidia.com/gpu":"8","pods":"110"},"capacity":{"cpu":"64","memory":"512Gi",)"
         R"("nvidia.com/gpu":"8","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}})";
}

}  // namespace

int main() {
  using kai::scheduler::RawObjectLists;
  // The LiveScheduler's map: resource -> key -> cached JSON.
  std::map<std::string, std::map<std::string, std::shared_ptr<const std::string>>> cache;
  for (int i = 0; i < 8000; ++i) {
    cache["pods"]["team/job-" + std::to_string(i)] = std::make_shared<std::string>(PodJson(i));
    cache["podgroups"]["team/pg-" + std::to_string(i)] = std::make_shared<std::string>(
        R"({"metadata":{"name":"pg-)" + std::to_string(i) +
        R"(","namespace":"team"},"spec":{"minMember":1,"queue":"q1"}})");
  }
  for (int i = 0; i < 1000; ++i) {
    cache["nodes"]["node-" + std::to_string(i)] = std::make_shared<std::string>(NodeJson(i));
  }
  for (int i = 0; i < 10; ++i) {
    cache["queues"]["q" + std::to_string(i)] = std::make_shared<std::string>(
        R"({"metadata":{"name":"q)" + std::to_string(i) +
        R"("},"spec":{"resources":{"gpu":{"quota":-1,"limit":-1,"overQuotaWeight":1}}}})");
  }

  auto t0 = Clock::now();
  RawObjectLists raw;  // what LiveScheduler::RawObjects() does under the model lock
  for (const auto& [resource, objects] : cache) {
    auto& list = raw[resource];
    list.reserve(objects.size());
    for (const auto& [key, json] : objects) list.push_back(json);
  }
  auto t1 = Clock::now();
  auto json =
      kai::scheduler::BuildSnapshotJson(kai::scheduler::DefaultSchedulerConfiguration(), {}, raw);
  auto t2 = Clock::now();
  kai::ZipWriter zip;
  zip.Add("snapshot.json", *json);
  auto archive = zip.Finish();
  if (!archive.ok()) {
    std::fprintf(stderr, "%s\n", archive.status().ToString().c_str());
    return 1;
  }
  const std::string& bytes = *archive;
  auto t3 = Clock::now();
  auto loaded = kai::scheduler::LoadSnapshotZip(bytes);
  auto t4 = Clock::now();
  std::printf(
      "{\"pods\": 8000, \"nodes\": 1000, \"snapshot_json_bytes\": %zu, "
      "\"under_lock_ms\": %.3f, \"serialize_ms\": %.1f, \"zip_ms\": %.1f, "
      "\"load_for_simulate_ms\": %.1f, \"loaded_pods\": %zu}\n",
      json->size(), Ms(t0, t1), Ms(t1, t2), Ms(t2, t3), Ms(t3, t4),
      loaded.ok() ? loaded->objects.pods.size() : 0);
  return loaded.ok() ? 0 : 1;
}
