#include "scheduler/plugins/proportion/usage/prometheus_usage_client.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kube/base/fake_clock.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "scheduler/plugins/proportion/usage/usage_params.h"

namespace kai::proportion {
namespace {

std::string UrlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Answers by the first rule whose key occurs in the decoded query.
class FakeHttp final : public HttpClient {
 public:
  std::vector<std::string> urls;
  std::vector<std::string> queries;
  std::vector<std::pair<std::string, HttpResponse>> rules;
  Duration last_timeout{};

  StatusOr<HttpResponse> Get(const std::string& url, Duration timeout) override {
    urls.push_back(url);
    last_timeout = timeout;
    const size_t q = url.find("query=");
    const size_t amp = url.find('&', q);
    const std::string query = UrlDecode(url.substr(q + 6, amp - q - 6));
    queries.push_back(query);
    for (const auto& [key, response] : rules) {
      if (query.find(key) != std::string::npos) return response;
    }
    return UnavailableError("no rule for " + query);
  }
};

HttpResponse Vector(const std::vector<std::pair<std::string, std::string>>& samples) {
  std::string result;
  for (const auto& [queue, value] : samples) {
    if (!result.empty()) result += ",";
    std::string metric = queue.empty() ? "{}" : "{\"queue_name\":\"" + queue + "\"}";
    result += StrCat("{\"metric\":", metric, ",\"value\":[1767225600.000,\"", value, "\"]}");
  }
  return {200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" + result +
                   "]}}"};
}

class PrometheusClientTest : public ::testing::Test {
 protected:
  FakeClock clock_{*ParseRfc3339("2026-03-07T12:00:00Z")};
  FakeHttp http_;

  std::unique_ptr<PrometheusUsageClient> Make(UsageParams p) {
    auto c = PrometheusUsageClient::Create("http://prom:9090/", std::move(p), &http_, &clock_);
    EXPECT_TRUE(c.ok()) << c.status();
    return std::move(c).value();
  }
  void StandardRules() {
    http_.rules = {
        {"nvidia_com_gpu", Vector({{"", "100"}})},
        {"resource=\"cpu\"", Vector({{"", "1000"}})},
        {"resource=\"memory\"", Vector({{"", "0"}})},
        {"kai_queue_allocated_gpus", Vector({{"team-a", "25"}, {"team-b", "50"}})},
        {"kai_queue_allocated_cpu_cores", Vector({{"team-a", "100"}})},
        {"kai_queue_allocated_memory_bytes", Vector({{"team-a", "7"}})},
    };
  }
};

TEST_F(PrometheusClientTest, SlidingWindowNormalizesByCapacity) {
  StandardRules();
  auto client = Make(UsageParams{});
  StatusOr<ClusterUsage> usage = client->GetResourceUsage();
  ASSERT_TRUE(usage.ok()) << usage.status();
  ASSERT_EQ(usage->queues.size(), 2u);
  EXPECT_DOUBLE_EQ(usage->queues["team-a"].gpu(), 0.25);
  EXPECT_DOUBLE_EQ(usage->queues["team-b"].gpu(), 0.5);
  EXPECT_DOUBLE_EQ(usage->queues["team-a"].cpu(), 0.1);
  // Memory capacity 0: its usage is ignored rather than turned into Inf.
  EXPECT_EQ(usage->queues["team-a"].memory(), 0);

  // Capacity queries first (GPU, CPU, memory), then usage.
  ASSERT_EQ(http_.queries.size(), 6u);
  EXPECT_EQ(http_.queries[0],
            "sum_over_time((sum(kube_node_status_capacity{resource=\"nvidia_com_gpu\"}))[1w:1m])");
  EXPECT_EQ(http_.queries[3], "sum_over_time((kai_queue_allocated_gpus)[1w:1m])");
  EXPECT_EQ(http_.urls[0].rfind("http://prom:9090/api/v1/query?query=", 0), 0u);
  EXPECT_NE(http_.urls[0].find("&time=1772884800.000"), std::string::npos);
  EXPECT_EQ(http_.last_timeout, std::chrono::seconds(10));
}

TEST_F(PrometheusClientTest, DecayAndExtraParams) {
  StandardRules();
  UsageParams p;
  p.window_size = std::chrono::hours(24);
  p.half_life_period = std::chrono::hours(1);
  p.extra_params = {{"queryResolution", "30s"},
                    {"usageQueryTimeout", "2s"},
                    {"gpuAllocationMetric", "my_gpus"},
                    {"bogus", "x"}};
  http_.rules.insert(http_.rules.begin(), {"my_gpus", Vector({{"q", "10"}})});
  auto client = Make(p);
  EXPECT_EQ(*client->BuildQuery("m", clock_.Now()),
            "sum_over_time((((m) * (0.5^((1772884800 - time()) / 3600.000000))))[1d:30s])");
  StatusOr<ClusterUsage> usage = client->GetResourceUsage();
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_DOUBLE_EQ(usage->queues["q"].gpu(), 0.1);
  EXPECT_EQ(http_.last_timeout, std::chrono::seconds(2));
}

TEST_F(PrometheusClientTest, TumblingWindowQueriesSinceLastReset) {
  UsageParams p;
  p.window_type = WindowType::kTumbling;
  p.window_size = std::chrono::hours(24);
  p.tumbling_window_start_time = *ParseRfc3339("2026-03-01T06:00:00Z");
  auto client = Make(p);
  // Last reset 2026-03-07T06:00:00Z, six hours ago.
  EXPECT_EQ(*client->BuildQuery("m", clock_.Now()), "sum_over_time((m)[6h:1m])");
  // Exactly on a boundary: the whole ending window.
  EXPECT_EQ(*client->BuildQuery("m", *ParseRfc3339("2026-03-07T06:00:00Z")),
            "sum_over_time((m)[1d:1m])");
  // A window starting in the future is empty: no query, no usage.
  p.tumbling_window_start_time = *ParseRfc3339("2026-04-01T00:00:00Z");
  auto future = Make(p);
  EXPECT_FALSE(future->BuildQuery("m", clock_.Now()).has_value());
  StatusOr<ClusterUsage> usage = future->GetResourceUsage();
  ASSERT_TRUE(usage.ok());
  EXPECT_TRUE(usage->queues.empty());
  EXPECT_TRUE(http_.urls.empty());
}

TEST_F(PrometheusClientTest, CronWindow) {
  UsageParams p;
  p.window_type = WindowType::kCron;
  p.cron_string = "0 0 * * MON";
  auto client = Make(p);
  // 2026-03-07 is a Saturday; the window started Monday 2026-03-02T00:00:00Z.
  EXPECT_EQ(*client->BuildQuery("m", clock_.Now()), "sum_over_time((m)[5d12h:1m])");
}

TEST_F(PrometheusClientTest, InvalidConfigurations) {
  UsageParams tumbling;
  tumbling.window_type = WindowType::kTumbling;
  EXPECT_FALSE(PrometheusUsageClient::Create("http://p", tumbling, &http_, &clock_).ok());
  UsageParams cron;
  cron.window_type = WindowType::kCron;
  cron.cron_string = "not cron";
  EXPECT_FALSE(PrometheusUsageClient::Create("http://p", cron, &http_, &clock_).ok());
  EXPECT_FALSE(PrometheusUsageClient::Create("", UsageParams{}, &http_, &clock_).ok());
}

TEST_F(PrometheusClientTest, Errors) {
  auto client = Make(UsageParams{});
  // Transport failure.
  EXPECT_FALSE(client->GetResourceUsage().ok());
  // Missing capacity.
  http_.rules = {{"capacity", Vector({})}};
  StatusOr<ClusterUsage> no_capacity = client->GetResourceUsage();
  EXPECT_FALSE(no_capacity.ok());
  EXPECT_TRUE(IsNotFound(no_capacity.status()));
  // Prometheus error response.
  http_.rules = {
      {"", {400, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}"}}};
  StatusOr<ClusterUsage> bad = client->GetResourceUsage();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("parse error"), std::string::npos);
}

TEST(ParsePrometheusVector, Shapes) {
  auto ok = ParsePrometheusVector(Vector({{"a", "1.5"}, {"b", "NaN"}}).body, 200);
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].first, "a");
  EXPECT_EQ((*ok)[0].second, 1.5);
  EXPECT_TRUE(std::isnan((*ok)[1].second));

  EXPECT_FALSE(
      ParsePrometheusVector(
          "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}", 200)
          .ok());
  EXPECT_FALSE(ParsePrometheusVector("<html>", 502).ok());
  EXPECT_FALSE(ParsePrometheusVector("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
                                     "\"result\":[{\"metric\":{},\"value\":[1,\"x\"]}]}}",
                                     200)
                   .ok());
}

TEST(UsageDbConfig, ParsesKaiShape) {
  StatusOr<UsageDbConfig> c = ParseUsageDbConfig(R"({
    "clientType": "prometheus",
    "connectionString": "http://prometheus:9090",
    "usageParams": {
      "windowSize": "1w",
      "windowType": "cron",
      "cronString": "0 0 * * *",
      "halfLifePeriod": "30m",
      "fetchInterval": "2m",
      "stalenessPeriod": "1m",
      "extraParams": {"queryResolution": "5m"}
    },
    "extraParams": {"queryResolution": "9m", "usageQueryTimeout": "3s"}
  })");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->client_type, "prometheus");
  const UsageParams& p = c->usage_params;
  EXPECT_EQ(p.window_size, std::chrono::hours(168));
  EXPECT_EQ(p.window_type, WindowType::kCron);
  EXPECT_EQ(p.half_life_period, std::chrono::minutes(30));
  EXPECT_EQ(p.fetch_interval, std::chrono::minutes(2));
  EXPECT_EQ(p.staleness_period, std::chrono::minutes(2));  // never below the fetch interval
  EXPECT_EQ(p.wait_timeout, std::chrono::minutes(1));
  EXPECT_EQ(p.extra_params.at("queryResolution"), "5m");  // usageParams wins
  EXPECT_EQ(p.extra_params.at("usageQueryTimeout"), "3s");
}

TEST(UsageDbConfig, DefaultsAndErrors) {
  StatusOr<UsageDbConfig> empty = ParseUsageDbConfig("{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->usage_params.window_size, std::chrono::hours(168));
  EXPECT_EQ(empty->usage_params.window_type, WindowType::kSliding);
  EXPECT_FALSE(empty->usage_params.half_life_period.has_value());

  StatusOr<UsageDbConfig> no_decay =
      ParseUsageDbConfig(R"({"usageParams": {"halfLifePeriod": "0s"}})");
  ASSERT_TRUE(no_decay.ok());
  EXPECT_FALSE(no_decay->usage_params.half_life_period.has_value());

  StatusOr<UsageDbConfig> bad_type = ParseUsageDbConfig(R"({"usageParams": {"windowType": "x"}})");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(std::string(bad_type.status().message()).find("usageParams.windowType"),
            std::string::npos);
  EXPECT_FALSE(ParseUsageDbConfig(R"({"usageParams": {"windowType": "tumbling"}})").ok());
  EXPECT_FALSE(ParseUsageDbConfig(R"({"usageParams": {"windowSize": "soon"}})").ok());
  EXPECT_FALSE(ParseUsageDbConfig(R"({"clientType": "influx"})").ok());
  EXPECT_FALSE(ParseUsageDbConfig("[").ok());
}

TEST(UsageDbConfig, ConnectionString) {
  UsageDbConfig c;
  c.connection_string = "http://default";
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "PROM_URL") return "http://from-env";
    return std::nullopt;
  };
  EXPECT_EQ(*ResolveConnectionString(c, env), "http://default");
  c.connection_string_env_var = "PROM_URL";
  EXPECT_EQ(*ResolveConnectionString(c, env), "http://from-env");
  c.connection_string_env_var = "UNSET";
  EXPECT_EQ(*ResolveConnectionString(c, env), "http://default");
  c.connection_string.clear();
  EXPECT_FALSE(ResolveConnectionString(c, env).ok());
}

}  // namespace
}  // namespace kai::proportion
