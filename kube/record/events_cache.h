// EventCorrelator: client-go's tools/record/events_cache.go. Every event goes through
//
// 1. the aggregator: events that differ only in their message (same source, object, type,
//    reason) are counted per 600 s window; from the 10th distinct message on, they become one
//    aggregate event "(combined from similar events): <message>";
// 2. the logger: an event seen before (same key) becomes a PATCH of the existing Event's count,
//    lastTimestamp and message instead of a new Event;
// 3. the spam filter: per source+object, a token bucket of 25 with a refill of 1 per 300 s;
//    events beyond it are dropped.
//
// Each cache is an LRU of 4096 entries. Not thread-safe: the broadcaster's single worker owns it.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "api/event.h"
#include "kube/base/clock.h"
#include "kube/record/lru_cache.h"

namespace kai::record {

struct CorrelatorOptions {
  size_t lru_cache_size = 4096;
  int aggregate_max_events = 10;
  Duration aggregate_interval = std::chrono::seconds(600);
  int spam_burst = 25;
  double spam_qps = 1.0 / 300.0;
};

// The key of identical events (source, object, type, reason, message).
std::string EventKey(const api::Event& event);
// The spam filter's key (source and object).
std::string SpamKey(const api::Event& event);

struct CorrelateResult {
  api::Event event;
  std::string patch;  // non-empty: strategic-merge PATCH of an existing Event (count > 1)
  bool skip = false;  // dropped by the spam filter
};

class EventCorrelator {
 public:
  EventCorrelator(Clock* clock, CorrelatorOptions options = {});

  CorrelateResult Correlate(const api::Event& event);
  // Remembers the server's answer (name, resourceVersion, count) for later patches.
  void UpdateState(const api::Event& event);

 private:
  struct AggregateRecord {
    std::set<std::string> local_keys;
    WallTime last_timestamp{};
  };
  struct EventLog {
    int32_t count = 0;
    std::optional<WallTime> first_timestamp;
    std::string name;
    std::string resource_version;
  };
  struct SpamRecord {
    double tokens = 0;
    MonoTime last{};
  };

  std::pair<api::Event, std::string> Aggregate(const api::Event& event);
  std::pair<api::Event, std::string> Observe(const api::Event& event, const std::string& key);
  bool Filter(const api::Event& event);

  Clock* const clock_;
  const CorrelatorOptions options_;
  LruCache<AggregateRecord> aggregates_;
  LruCache<EventLog> logs_;
  LruCache<SpamRecord> spam_;
};

// "<name>.<hex UnixNano>" (client-go's event names).
std::string EventName(std::string_view object_name, WallTime t);

}  // namespace kai::record
