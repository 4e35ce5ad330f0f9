// UsageLister: fetches queue usage periodically in the background and hands the latest data to
// each scheduling session (KAI usagedb.UsageLister).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "kube/base/clock.h"
#include "scheduler/plugins/proportion/usage/cluster_usage.h"

namespace kai::proportion {

class UsageLister {
 public:
  // `client` and `clock` must outlive the lister. staleness is raised to fetch_interval.
  UsageLister(UsageClient* client, Clock* clock, Duration fetch_interval, Duration staleness,
              Duration wait_timeout);
  ~UsageLister();
  UsageLister(const UsageLister&) = delete;
  UsageLister& operator=(const UsageLister&) = delete;

  // Called after each successful query with the time it took on the lister's clock (KAI's
  // usage_query_latency_milliseconds; failed queries are not observed, as in KAI). Set before
  // Start().
  void set_on_query_latency(std::function<void(Duration)> f) { on_query_latency_ = std::move(f); }

  // One fetch now; on failure the previous data is kept. Returns the fetch status.
  Status FetchOnce();

  // Starts the background loop: fetch immediately, then every fetch interval.
  void Start();
  // Stops and joins the loop (also done by the destructor).
  void Stop();

  // Blocks until the first successful fetch, Stop(), or wait_timeout; true when data arrived.
  bool WaitForFirstData();

  struct Snapshot {
    ClusterUsage usage;
    // Time of the data's fetch.
    WallTime fetched_at{};
    // Older than the staleness period: still usable, but callers should log it.
    bool stale = false;
  };
  // nullopt until the first successful fetch.
  std::optional<Snapshot> GetResourceUsage() const;

 private:
  void Loop();

  UsageClient* client_;
  Clock* clock_;
  const Duration fetch_interval_;
  const Duration staleness_;
  const Duration wait_timeout_;
  std::function<void(Duration)> on_query_latency_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<ClusterUsage> last_;
  WallTime last_time_{};
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace kai::proportion
