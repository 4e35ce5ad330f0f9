#include "scheduler/plugins/proportion/usage/prometheus_usage_client.h"

#include <glog/logging.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "api/rapidjson_util.h"
#include "kube/base/strings.h"
#include "scheduler/plugins/proportion/usage/duration.h"

namespace kai::proportion {
namespace {

constexpr char kQueueNameLabel[] = "queue_name";

// KAI's query order: GPU, CPU, memory.
constexpr std::array<ResourceName, 3> kQueryOrder = {ResourceName::kGpu, ResourceName::kCpu,
                                                     ResourceName::kMemory};

std::string DecayFactor(WallTime now, Duration half_life) {
  const long long now_unix =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const double seconds = std::chrono::duration<double>(half_life).count();
  char buf[128];
  std::snprintf(buf, sizeof(buf), "0.5^((%lld - time()) / %f)", now_unix, seconds);
  return buf;
}

std::string UnixSeconds(WallTime t) {
  const double s = std::chrono::duration<double>(t.time_since_epoch()).count();
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", s);
  return buf;
}

}  // namespace

PrometheusUsageClient::PrometheusUsageClient(std::string address, UsageParams params,
                                             HttpClient* http, Clock* clock)
    : address_(std::move(address)), params_(std::move(params)), http_(http), clock_(clock) {
  while (!address_.empty() && address_.back() == '/') address_.pop_back();
  query_timeout_ = params_.ExtraDuration("usageQueryTimeout", std::chrono::seconds(10));
  query_resolution_ = params_.ExtraDuration("queryResolution", std::chrono::minutes(1));
  auto set = [&](ResourceName r, const char* alloc_key, const char* alloc_default,
                 const char* cap_key, const char* cap_default) {
    allocation_metrics_[Index(r)] = params_.ExtraString(alloc_key, alloc_default);
    capacity_metrics_[Index(r)] = params_.ExtraString(cap_key, cap_default);
  };
  set(ResourceName::kGpu, "gpuAllocationMetric", "kai_queue_allocated_gpus", "gpuCapacityMetric",
      "sum(kube_node_status_capacity{resource=\"nvidia_com_gpu\"})");
  set(ResourceName::kCpu, "cpuAllocationMetric", "kai_queue_allocated_cpu_cores",
      "cpuCapacityMetric", "sum(kube_node_status_capacity{resource=\"cpu\"})");
  set(ResourceName::kMemory, "memoryAllocationMetric", "kai_queue_allocated_memory_bytes",
      "memoryCapacityMetric", "sum(kube_node_status_capacity{resource=\"memory\"})");
}

StatusOr<std::unique_ptr<PrometheusUsageClient>> PrometheusUsageClient::Create(std::string address,
                                                                               UsageParams params,
                                                                               HttpClient* http,
                                                                               Clock* clock) {
  if (address.empty()) return InvalidArgumentError("prometheus usage client: empty address");
  if (params.window_size <= Duration::zero()) {
    return InvalidArgumentError("prometheus usage client: window size must be positive");
  }
  std::optional<CronExpression> cron;
  switch (params.window_type) {
    case WindowType::kSliding:
      break;
    case WindowType::kTumbling:
      if (!params.tumbling_window_start_time) {
        return InvalidArgumentError(
            "prometheus client window type is set as 'tumbling', but the tumblingWindowStartTime "
            "is null");
      }
      break;
    case WindowType::kCron: {
      StatusOr<CronExpression> c = CronExpression::Parse(params.cron_string);
      if (!c.ok()) {
        return c.status().WithPrefix("error parsing cron string '" + params.cron_string +
                                     "' for usage window");
      }
      cron = std::move(c).value();
      break;
    }
  }
  std::unique_ptr<PrometheusUsageClient> client(
      new PrometheusUsageClient(std::move(address), std::move(params), http, clock));
  client->cron_ = cron;
  return client;
}

WallTime PrometheusUsageClient::WindowStart(WallTime now) const {
  switch (params_.window_type) {
    case WindowType::kSliding:
      return now - std::chrono::duration_cast<WallTime::duration>(params_.window_size);
    case WindowType::kTumbling: {
      const WallTime start = *params_.tumbling_window_start_time;
      if (start > now) return now;  // the window has not begun: size 0
      const auto w = std::chrono::duration_cast<WallTime::duration>(params_.window_size);
      auto n = (now - start) / w;
      // The last reset strictly before now (an exact boundary belongs to the ending window).
      if (n > 0 && (now - start) % w == WallTime::duration::zero()) --n;
      return start + n * w;
    }
    case WindowType::kCron: {
      std::optional<WallTime> latest = cron_->LatestBefore(now);
      return latest.value_or(now);
    }
  }
  return now;
}

std::optional<std::string> PrometheusUsageClient::BuildQuery(const std::string& metric,
                                                             WallTime now) const {
  std::string expr = metric;
  if (params_.half_life_period) {
    expr = "((" + metric + ") * (" + DecayFactor(now, *params_.half_life_period) + "))";
  }
  Duration range = params_.window_size;
  if (params_.window_type != WindowType::kSliding) {
    range = std::chrono::duration_cast<Duration>(now - WindowStart(now));
    if (range < std::chrono::milliseconds(1)) return std::nullopt;
  }
  return "sum_over_time((" + expr + ")[" + FormatPrometheusDuration(range) + ":" +
         FormatPrometheusDuration(query_resolution_) + "])";
}

StatusOr<std::vector<std::pair<std::string, double>>> ParsePrometheusVector(std::string_view body,
                                                                            int http_status) {
  rapidjson::Document doc;
  Status parsed = api::ParseJson(body, &doc);
  if (!parsed.ok() || !doc.IsObject()) {
    if (http_status / 100 != 2) {
      return UnavailableError("prometheus returned HTTP " + std::to_string(http_status));
    }
    return InvalidArgumentError("prometheus response is not a JSON object");
  }
  const rapidjson::Value* status = api::FindMember(doc, "status");
  if (status == nullptr || !status->IsString() ||
      std::string_view(status->GetString()) != "success") {
    std::string message = "prometheus query failed (HTTP " + std::to_string(http_status) + ")";
    if (const rapidjson::Value* type = api::FindMember(doc, "errorType");
        type && type->IsString()) {
      message += ": " + std::string(type->GetString());
    }
    if (const rapidjson::Value* err = api::FindMember(doc, "error"); err && err->IsString()) {
      message += ": " + std::string(err->GetString());
    }
    return http_status == 503 || http_status == 504 ? UnavailableError(message)
                                                    : InvalidArgumentError(message);
  }
  if (const rapidjson::Value* warnings = api::FindMember(doc, "warnings");
      warnings && warnings->IsArray()) {
    for (const auto& w : warnings->GetArray()) {
      if (w.IsString()) LOG(WARNING) << "prometheus query warning: " << w.GetString();
    }
  }
  const rapidjson::Value* data = api::FindMember(doc, "data");
  if (data == nullptr || !data->IsObject())
    return InvalidArgumentError("prometheus response has no data");
  const rapidjson::Value* type = api::FindMember(*data, "resultType");
  if (type == nullptr || !type->IsString() || std::string_view(type->GetString()) != "vector") {
    return InvalidArgumentError(
        std::string("unexpected query result: got ") +
        (type != nullptr && type->IsString() ? type->GetString() : "nothing") +
        ", expected vector");
  }
  const rapidjson::Value* result = api::FindMember(*data, "result");
  if (result == nullptr || !result->IsArray())
    return InvalidArgumentError("prometheus vector has no result");
  std::vector<std::pair<std::string, double>> samples;
  for (const auto& sample : result->GetArray()) {
    if (!sample.IsObject()) return InvalidArgumentError("prometheus sample is not an object");
    std::string queue;
    if (const rapidjson::Value* metric = api::FindMember(sample, "metric");
        metric && metric->IsObject()) {
      if (const rapidjson::Value* q = api::FindMember(*metric, kQueueNameLabel);
          q && q->IsString()) {
        queue.assign(q->GetString(), q->GetStringLength());
      }
    }
    const rapidjson::Value* value = api::FindMember(sample, "value");
    if (value == nullptr || !value->IsArray() || value->Size() != 2 || !(*value)[1].IsString()) {
      return InvalidArgumentError("prometheus sample has no [time, \"value\"] pair");
    }
    const std::string text((*value)[1].GetString(), (*value)[1].GetStringLength());
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') {
      return InvalidArgumentError("prometheus sample value \"" + text + "\" is not a number");
    }
    samples.emplace_back(std::move(queue), v);
  }
  return samples;
}

StatusOr<std::vector<std::pair<std::string, double>>> PrometheusUsageClient::QueryVector(
    const std::string& query, WallTime now) {
  const std::string url =
      address_ + "/api/v1/query?query=" + UrlQueryEscape(query) + "&time=" + UnixSeconds(now);
  KAI_ASSIGN_OR_RETURN(HttpResponse response, http_->Get(url, query_timeout_));
  StatusOr<std::vector<std::pair<std::string, double>>> samples =
      ParsePrometheusVector(response.body, response.status);
  if (!samples.ok()) return samples.status().WithPrefix("query " + query);
  return samples;
}

StatusOr<ClusterUsage> PrometheusUsageClient::GetResourceUsage() {
  const WallTime now = clock_->Now();
  ClusterUsage usage;
  std::array<double, 3> capacity{};
  for (ResourceName r : kQueryOrder) {
    std::optional<std::string> query = BuildQuery(capacity_metrics_[Index(r)], now);
    if (!query) return usage;  // empty window: no usage yet
    KAI_ASSIGN_OR_RETURN(auto samples, QueryVector(*query, now));
    if (samples.empty()) {
      return NotFoundError("no data returned for cluster capacity metric " + *query);
    }
    capacity[Index(r)] = samples.front().second;
  }
  for (ResourceName r : kQueryOrder) {
    const double cap = capacity[Index(r)];
    std::optional<std::string> query = BuildQuery(allocation_metrics_[Index(r)], now);
    KAI_ASSIGN_OR_RETURN(auto samples, QueryVector(*query, now));
    if (!(cap > 0) || !std::isfinite(cap)) {
      // Upstream would divide by it (Inf / NaN weights); without capacity there is nothing to
      // normalize against, so this resource contributes no usage.
      LOG(WARNING) << "usage db: capacity of " << ResourceNameString(r) << " is " << cap
                   << " over the window; ignoring its usage";
      continue;
    }
    for (const auto& [queue, value] : samples) {
      if (queue.empty() || !std::isfinite(value)) continue;
      usage.queues[queue][r] = value / cap;
    }
  }
  return usage;
}

}  // namespace kai::proportion
