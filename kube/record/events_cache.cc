#include "kube/record/events_cache.h"

#include <algorithm>
#include <cstdio>

#include "api/json_quote.h"
#include "kube/base/time.h"

namespace kai::record {

namespace {

std::string Join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) out.append(p);
  return out;
}

int64_t UnixNanos(WallTime t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// metav1.Time has second precision on the wire.
WallTime Seconds(WallTime t) { return std::chrono::time_point_cast<std::chrono::seconds>(t); }

}  // namespace

std::string EventName(std::string_view object_name, WallTime t) {
  char hex[32];
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(UnixNanos(t)));
  return std::string(object_name) + "." + hex;
}

std::string EventKey(const api::Event& e) {
  const auto& o = e.involved_object;
  return Join({e.source.component, e.source.host, o.kind, o.namespace_, o.name, o.field_path, o.uid,
               o.api_version, e.type, e.reason, e.message});
}

std::string SpamKey(const api::Event& e) {
  const auto& o = e.involved_object;
  return Join({e.source.component, e.source.host, o.kind, o.namespace_, o.name, o.uid,
               o.api_version, e.type});
}

EventCorrelator::EventCorrelator(Clock* clock, CorrelatorOptions options)
    : clock_(clock),
      options_(options),
      aggregates_(options.lru_cache_size),
      logs_(options.lru_cache_size),
      spam_(options.lru_cache_size) {}

std::pair<api::Event, std::string> EventCorrelator::Aggregate(const api::Event& e) {
  const WallTime now = clock_->Now();
  const auto& o = e.involved_object;
  // EventAggregatorByReasonFunc: everything but the message.
  const std::string aggregate_key =
      Join({e.source.component, e.source.host, o.kind, o.namespace_, o.name, o.uid, o.api_version,
            e.type, e.reason, e.reporting_component, e.reporting_instance});
  AggregateRecord record;
  if (AggregateRecord* found = aggregates_.Get(aggregate_key)) record = *found;
  if (now - record.last_timestamp > options_.aggregate_interval) record = AggregateRecord{};
  record.local_keys.insert(e.message);
  record.last_timestamp = now;
  const bool aggregate =
      static_cast<int>(record.local_keys.size()) >= options_.aggregate_max_events;
  // Do not grow the set beyond the maximum (client-go pops an arbitrary key; we pop the
  // smallest, deterministically).
  if (aggregate) record.local_keys.erase(record.local_keys.begin());
  aggregates_.Add(aggregate_key, record);
  if (!aggregate) return {e, EventKey(e)};

  api::Event a;
  a.metadata.name = EventName(o.name, now);
  a.metadata.namespace_ = e.metadata.namespace_;
  a.count = 1;
  a.first_timestamp = now;
  a.last_timestamp = now;
  a.involved_object = o;
  a.message = "(combined from similar events): " + e.message;
  a.type = e.type;
  a.reason = e.reason;
  a.source = e.source;
  return {a, aggregate_key};
}

std::pair<api::Event, std::string> EventCorrelator::Observe(const api::Event& e,
                                                            const std::string& key) {
  api::Event event = e;
  std::string patch;
  if (EventLog* last = logs_.Get(key); last != nullptr && last->count > 0) {
    event.metadata.name = last->name;
    event.metadata.resource_version = last->resource_version;
    event.first_timestamp = last->first_timestamp;
    event.count = last->count + 1;
    // The two-way merge patch between the event with count 0, no lastTimestamp and no message
    // and the event: exactly these three fields.
    patch = "{\"count\":" + std::to_string(event.count) + ",\"lastTimestamp\":" +
            api::JsonQuote(FormatRfc3339(Seconds(event.last_timestamp.value_or(clock_->Now())))) +
            ",\"message\":" + api::JsonQuote(event.message) + "}";
  }
  logs_.Add(key, EventLog{event.count, event.first_timestamp, event.metadata.name,
                          event.metadata.resource_version});
  return {event, patch};
}

bool EventCorrelator::Filter(const api::Event& e) {
  const std::string key = SpamKey(e);
  const MonoTime now = clock_->NowMonotonic();
  SpamRecord record;
  if (SpamRecord* found = spam_.Get(key)) {
    record = *found;
    const double elapsed = std::chrono::duration<double>(now - record.last).count();
    record.tokens =
        std::min<double>(options_.spam_burst, record.tokens + elapsed * options_.spam_qps);
  } else {
    record.tokens = options_.spam_burst;  // a new bucket starts full
  }
  record.last = now;
  const bool filtered = record.tokens < 1;
  if (!filtered) record.tokens -= 1;
  spam_.Add(key, record);
  return filtered;
}

CorrelateResult EventCorrelator::Correlate(const api::Event& event) {
  auto [aggregated, key] = Aggregate(event);
  auto [observed, patch] = Observe(aggregated, key);
  CorrelateResult r;
  if (Filter(observed)) {
    r.skip = true;
    return r;
  }
  r.event = std::move(observed);
  r.patch = std::move(patch);
  return r;
}

void EventCorrelator::UpdateState(const api::Event& event) {
  logs_.Add(EventKey(event), EventLog{event.count, event.first_timestamp, event.metadata.name,
                                      event.metadata.resource_version});
}

}  // namespace kai::record
