// Throughput of the write path localkube runs on every custom-resource create/update, with the
// shipped CRDs. Run: build/bin/kai_schema_bench --benchmark_format=json
#include <benchmark/benchmark.h>

#include <string>

#include "api/schema/schema.h"
#include "api/yaml_json.h"
#include "kube/base/file.h"

namespace kai::api::schema {
namespace {

std::string Json(const std::string& relative) {
  auto text = ReadFile(std::string(KAI_SOURCE_DIR) + "/" + relative);
  if (!text.ok()) return "{}";
  auto json = YamlToJson(*text);
  return json.ok() ? *json : "{}";
}

CustomResourceSchema Schema(const std::string& crd, const char* version) {
  auto s = CustomResourceSchema::FromCrdJson(Json(crd), version);
  if (!s.ok()) std::abort();
  return *s;
}

void BM_CompileConfigCrd(benchmark::State& state) {
  std::string crd = Json("crds/kai.scheduler_configs.yaml");
  for (auto _ : state) {
    auto s = CustomResourceSchema::FromCrdJson(crd, "v1");
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_CompileConfigCrd);

void BM_ValidateConfigCrd(benchmark::State& state) {
  std::string crd = Json("crds/kai.scheduler_configs.yaml");
  for (auto _ : state) benchmark::DoNotOptimize(ValidateCrdJson(crd));
}
BENCHMARK(BM_ValidateConfigCrd);

void BM_AdmitPodGroup(benchmark::State& state) {
  CustomResourceSchema schema = Schema("crds/scheduling.run.ai_podgroups.yaml", "v2alpha2");
  std::string obj = Json("config/samples/scheduling.run.ai_v2alpha2_podgroup.yaml");
  for (auto _ : state) benchmark::DoNotOptimize(schema.Admit(obj));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AdmitPodGroup);

void BM_AdmitInvalidPodGroup(benchmark::State& state) {
  CustomResourceSchema schema = Schema("crds/scheduling.run.ai_podgroups.yaml", "v2alpha2");
  std::string obj =
      R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"x"},)"
      R"("spec":{"minMember":0,"preemptibility":"x","queue":1}})";
  for (auto _ : state) benchmark::DoNotOptimize(schema.Admit(obj));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AdmitInvalidPodGroup);

void BM_AdmitConfig(benchmark::State& state) {
  CustomResourceSchema schema = Schema("crds/kai.scheduler_configs.yaml", "v1");
  std::string obj = Json("config/samples/kai.scheduler_v1_config.yaml");
  for (auto _ : state) benchmark::DoNotOptimize(schema.Admit(obj));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AdmitConfig);

}  // namespace
}  // namespace kai::api::schema

BENCHMARK_MAIN();
