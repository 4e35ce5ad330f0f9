// PrometheusUsageClient: KAI's Prometheus usage-database client (§10).
//
// For each resource it queries the queue allocation metric (by queue_name label) and the
// cluster capacity metric over the configured window, optionally decayed with a half-life, and
// returns usage / capacity per queue:
//   decay:    ((<metric>) * (0.5^((<now unix> - time()) / <half-life seconds>)))
//   sliding:  sum_over_time((<expr>)[<window>:<resolution>]) at now
//   tumbling: the same over [last reset, now]; resets at start + n * window
//   cron:     the same over [last cron occurrence, now]
// Upstream issues "sum_over_time(<expr>)" as a range query for tumbling and cron windows, which
// Prometheus rejects (sum_over_time needs a range vector) and whose matrix result KAI would
// reject too; we issue the instant subquery over the window's actual length instead.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "kube/base/clock.h"
#include "scheduler/plugins/proportion/usage/cluster_usage.h"
#include "scheduler/plugins/proportion/usage/cron.h"
#include "scheduler/plugins/proportion/usage/http_client.h"
#include "scheduler/plugins/proportion/usage/usage_params.h"

namespace kai::proportion {

class PrometheusUsageClient final : public UsageClient {
 public:
  // `http` and `clock` must outlive the client. Fails on an invalid window configuration.
  static StatusOr<std::unique_ptr<PrometheusUsageClient>> Create(std::string address,
                                                                 UsageParams params,
                                                                 HttpClient* http, Clock* clock);

  StatusOr<ClusterUsage> GetResourceUsage() override;

  // The PromQL sent for one metric at `now` (exposed for tests and debugging). nullopt when the
  // window is empty (a tumbling window starting in the future).
  std::optional<std::string> BuildQuery(const std::string& metric, WallTime now) const;

 private:
  PrometheusUsageClient(std::string address, UsageParams params, HttpClient* http, Clock* clock);

  // The start of the current window.
  WallTime WindowStart(WallTime now) const;
  // Executes an instant query and returns its vector as (queue_name label, value) pairs.
  StatusOr<std::vector<std::pair<std::string, double>>> QueryVector(const std::string& query,
                                                                    WallTime now);

  std::string address_;
  UsageParams params_;
  HttpClient* http_;
  Clock* clock_;
  Duration query_timeout_;
  Duration query_resolution_;
  std::optional<CronExpression> cron_;
  // Per resource (cpu, memory, gpu): allocation and capacity metric expressions.
  std::array<std::string, 3> allocation_metrics_;
  std::array<std::string, 3> capacity_metrics_;
};

// Parses a Prometheus /api/v1/query response: status, resultType vector, samples with labels.
// Exposed for tests.
StatusOr<std::vector<std::pair<std::string, double>>> ParsePrometheusVector(std::string_view body,
                                                                            int http_status);

}  // namespace kai::proportion
