// EventBroadcaster and EventRecorder: client-go's tools/record for core/v1 Events.
//
//   ClientEventSink sink(client);
//   EventBroadcaster broadcaster(&sink, {.clock = clock});
//   auto recorder = broadcaster.NewRecorder({.component = "kai-scheduler"});
//   recorder->Event(ReferenceTo(pod), kEventTypeWarning, "Unschedulable", "0/3 nodes ...");
//
// Event() never blocks: it puts the event on a queue of 1000 and drops it when the queue is full
// (watch.DropIfChannelFull). One worker thread (client-go; `writers` > 1: that many, each taking
// the oldest queued event whose object no other writer is writing, so that one object's events
// stay in order and the correlator sees them in order) correlates events (events_cache.h:
// aggregation, count/lastTimestamp PATCH for repeats, per-object spam filter) and writes them to
// the sink. A write that fails in transport (no HTTP answer) is retried up to 12 times in all, 10 s
// apart (the first wait randomized in [0, 10 s)); an error answered by the API server is not
// retried, as in client-go. Waits go through the Clock.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/event.h"
#include "api/meta.h"
#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/record/event_sink.h"
#include "kube/record/events_cache.h"

namespace kai::record {

inline constexpr char kEventTypeNormal[] = "Normal";
inline constexpr char kEventTypeWarning[] = "Warning";

struct BroadcasterOptions {
  Clock* clock = nullptr;    // RealClock when null
  Random* random = nullptr;  // SeededRandom::Default() when null
  size_t queue_size = 1000;
  // Sink writes in flight (client-go: 1). One API round trip per event bounds one writer to a
  // few hundred events/s; a component deciding faster than that drops events unless it has more.
  int writers = 1;
  // > 0: Event() waits up to this long for room when the queue is full before dropping (client-go:
  // never waits); after a wait ran out, no wait until a write succeeds again. For a component whose
  // own events are part of its required writes and come in bursts (the scheduler's Scheduled events
  // after a cycle's concurrent BindRequests).
  Duration full_wait{0};
  int max_tries = 12;
  Duration retry_sleep = std::chrono::seconds(10);
  CorrelatorOptions correlator;
};

struct BroadcasterStats {
  int64_t queued = 0;   // accepted by Event()
  int64_t dropped = 0;  // queue full
  int64_t created = 0;  // POSTed
  int64_t patched = 0;  // PATCHed (repeats)
  int64_t skipped = 0;  // spam filter
  int64_t failed = 0;   // given up (server error or retries exhausted)
  int64_t retries = 0;  // transport-error retries
};

class EventRecorder;

class EventBroadcaster {
 public:
  EventBroadcaster(EventSink* sink, BroadcasterOptions options = {});
  ~EventBroadcaster();  // Shutdown()
  EventBroadcaster(const EventBroadcaster&) = delete;
  EventBroadcaster& operator=(const EventBroadcaster&) = delete;

  // A recorder stamping events with `source` (component, and host if known).
  std::unique_ptr<EventRecorder> NewRecorder(api::EventSource source);

  // Queues a complete event; false when dropped (queue full, after `full_wait`, or shut down).
  bool Action(api::Event event);

  // Blocks until every queued event was handled (tests, and before exiting).
  void Flush();
  // Stops the worker; events still queued are dropped, a retry wait is cut short.
  void Shutdown();

  BroadcasterStats stats() const;

 private:
  void Worker();
  void RecordToSink(const api::Event& event);
  // One write; true when done (written or given up), false to retry.
  bool RecordEvent(const api::Event& event, const std::string& patch, bool update_existing);

  EventSink* const sink_;
  const BroadcasterOptions options_;
  Clock* const clock_;
  Random* const random_;
  std::mutex correlator_mu_;
  EventCorrelator correlator_;  // guarded by correlator_mu_

  mutable std::mutex mu_;
  std::condition_variable cv_;        // work or shutdown
  std::condition_variable idle_cv_;   // Flush()
  std::condition_variable space_cv_;  // an event left the queue (full_wait)
  std::deque<api::Event> queue_;
  std::set<std::string> writing_;  // objects (InvolvedKey) with an event being written
  int busy_ = 0;                   // events being written
  bool shutdown_ = false;
  bool sink_stalled_ = false;  // a full_wait ran out and no write succeeded since
  BroadcasterStats stats_;
  std::vector<std::thread> workers_;
};

class EventRecorder {
 public:
  EventRecorder(EventBroadcaster* broadcaster, api::EventSource source, Clock* clock);

  // type: kEventTypeNormal or kEventTypeWarning (others are rejected and logged).
  void Event(const api::ObjectReference& object, std::string_view type, std::string_view reason,
             std::string_view message);
  void AnnotatedEvent(const api::ObjectReference& object,
                      const std::map<std::string, std::string>& annotations, std::string_view type,
                      std::string_view reason, std::string_view message);

 private:
  EventBroadcaster* const broadcaster_;
  const api::EventSource source_;
  Clock* const clock_;
  std::mutex mu_;
  int64_t last_nanos_ = 0;  // keeps names unique when the clock does not move (FakeClock)
};

// The ObjectReference of a typed api/ object (kind and apiVersion from its TypeInfo).
template <class T>
api::ObjectReference ReferenceTo(const T& obj) {
  api::ObjectReference r;
  r.kind = std::string(T::kTypeInfo.kind);
  r.api_version = T::kTypeInfo.ApiVersion();
  r.namespace_ = obj.metadata.namespace_;
  r.name = obj.metadata.name;
  r.uid = obj.metadata.uid;
  r.resource_version = obj.metadata.resource_version;
  return r;
}

}  // namespace kai::record
