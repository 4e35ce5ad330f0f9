#include "kube/record/event_broadcaster.h"

#include <glog/logging.h>

#include <algorithm>

#include "kube/rest/errors.h"

namespace kai::record {

EventBroadcaster::EventBroadcaster(EventSink* sink, BroadcasterOptions options)
    : sink_(sink),
      options_(options),
      clock_(options.clock != nullptr ? options.clock : RealClock::Get()),
      random_(options.random != nullptr ? options.random : SeededRandom::Default()),
      correlator_(clock_, options.correlator) {
  for (int i = 0; i < std::max(1, options_.writers); ++i) {
    workers_.emplace_back([this] { Worker(); });
  }
}

namespace {

// The object an event is about: its events are written one at a time, in order.
std::string InvolvedKey(const api::Event& e) {
  const api::ObjectReference& o = e.involved_object;
  return o.kind + "/" + o.namespace_ + "/" + o.name + "/" + o.uid;
}

}  // namespace

EventBroadcaster::~EventBroadcaster() { Shutdown(); }

std::unique_ptr<EventRecorder> EventBroadcaster::NewRecorder(api::EventSource source) {
  return std::make_unique<EventRecorder>(this, std::move(source), clock_);
}

bool EventBroadcaster::Action(api::Event event) {
  std::unique_lock<std::mutex> l(mu_);
  // After one wait ran out, the sink is taken as stalled (API server down, every writer in its
  // retry waits) and nobody waits again until a write succeeds: a cycle emitting hundreds of
  // events must not stall full_wait per event.
  if (!shutdown_ && queue_.size() >= options_.queue_size && options_.full_wait > Duration::zero() &&
      !sink_stalled_) {
    const MonoTime deadline = clock_->NowMonotonic() + options_.full_wait;
    while (!shutdown_ && queue_.size() >= options_.queue_size) {
      if (clock_->WaitUntil(space_cv_, l, deadline)) break;
    }
    if (queue_.size() >= options_.queue_size) sink_stalled_ = true;
  }
  if (shutdown_ || queue_.size() >= options_.queue_size) {
    ++stats_.dropped;
    return false;
  }
  queue_.push_back(std::move(event));
  ++stats_.queued;
  cv_.notify_all();
  return true;
}

void EventBroadcaster::Flush() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return shutdown_ || (queue_.empty() && busy_ == 0); });
}

void EventBroadcaster::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shutdown_ && workers_.empty()) return;
    shutdown_ = true;
    queue_.clear();
    cv_.notify_all();
    idle_cv_.notify_all();
    space_cv_.notify_all();
  }
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
  std::lock_guard<std::mutex> l(mu_);
  workers_.clear();
}

BroadcasterStats EventBroadcaster::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

void EventBroadcaster::Worker() {
  std::string key;  // the object being written by this worker ("" when idle)
  while (true) {
    api::Event event;
    {
      std::unique_lock<std::mutex> l(mu_);
      if (!key.empty()) {
        writing_.erase(key);
        key.clear();
        --busy_;
        idle_cv_.notify_all();
        cv_.notify_all();  // another writer may wait for this object
      }
      // The oldest event whose object is not being written by another worker.
      auto next = queue_.end();
      cv_.wait(l, [&] {
        if (shutdown_) return true;
        for (next = queue_.begin(); next != queue_.end(); ++next) {
          if (writing_.count(InvolvedKey(*next)) == 0) return true;
        }
        return false;
      });
      if (shutdown_) return;
      event = std::move(*next);
      queue_.erase(next);
      space_cv_.notify_one();
      key = InvolvedKey(event);
      writing_.insert(key);
      ++busy_;
    }
    RecordToSink(event);
  }
}

void EventBroadcaster::RecordToSink(const api::Event& event) {
  CorrelateResult result;
  {
    std::lock_guard<std::mutex> l(correlator_mu_);
    result = correlator_.Correlate(event);
  }
  if (result.skip) {
    VLOG(2) << "event " << event.reason << " on " << event.involved_object.name
            << " dropped by the spam filter";
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.skipped;
    return;
  }
  int tries = 0;
  while (true) {
    if (RecordEvent(result.event, result.patch, result.event.count > 1)) {
      std::lock_guard<std::mutex> l(mu_);
      sink_stalled_ = false;
      return;
    }
    ++tries;
    if (tries >= options_.max_tries) {
      LOG(ERROR) << "Unable to write event " << result.event.metadata.namespace_ << "/"
                 << result.event.metadata.name << " (retry limit exceeded!)";
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.failed;
      return;
    }
    // The first wait is randomized so that clients do not all retry in step after an outage.
    Duration delay = options_.retry_sleep;
    if (tries == 1) {
      delay = std::chrono::duration_cast<Duration>(delay * random_->UniformDouble());
    }
    std::unique_lock<std::mutex> l(mu_);
    ++stats_.retries;
    const MonoTime deadline = clock_->NowMonotonic() + delay;
    while (!shutdown_ && !clock_->WaitUntil(cv_, l, deadline)) {
    }
    if (shutdown_) return;
  }
}

bool EventBroadcaster::RecordEvent(const api::Event& event, const std::string& patch,
                                   bool update_existing) {
  StatusOr<api::Event> written = NotFoundError("not written");
  bool patched = false;
  if (update_existing) {
    written = sink_->Patch(event, patch);
    patched = written.ok();
  }
  // The Event may have expired from the server (events have a TTL): create it again.
  if (!update_existing || kube::IsNotFound(written.status())) {
    api::Event fresh = event;
    fresh.metadata.resource_version.clear();
    written = sink_->Create(fresh);
  }
  if (written.ok()) {
    {
      std::lock_guard<std::mutex> c(correlator_mu_);
      correlator_.UpdateState(*written);
    }
    std::lock_guard<std::mutex> l(mu_);
    ++(patched ? stats_.patched : stats_.created);
    return true;
  }
  const Status& s = written.status();
  if (!kube::IsTransportError(s)) {
    // The server answered: retrying the same request gives the same answer.
    if (kube::IsAlreadyExists(s)) {
      VLOG(5) << "Server rejected event " << event.metadata.name << ": " << s
              << " (will not retry!)";
    } else {
      LOG(ERROR) << "Server rejected event " << event.metadata.namespace_ << "/"
                 << event.metadata.name << ": " << s << " (will not retry!)";
    }
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.failed;
    return true;
  }
  LOG(ERROR) << "Unable to write event " << event.metadata.namespace_ << "/" << event.metadata.name
             << ": " << s << " (may retry after sleeping)";
  return false;
}

EventRecorder::EventRecorder(EventBroadcaster* broadcaster, api::EventSource source, Clock* clock)
    : broadcaster_(broadcaster), source_(std::move(source)), clock_(clock) {}

void EventRecorder::Event(const api::ObjectReference& object, std::string_view type,
                          std::string_view reason, std::string_view message) {
  AnnotatedEvent(object, {}, type, reason, message);
}

void EventRecorder::AnnotatedEvent(const api::ObjectReference& object,
                                   const std::map<std::string, std::string>& annotations,
                                   std::string_view type, std::string_view reason,
                                   std::string_view message) {
  if (type != kEventTypeNormal && type != kEventTypeWarning) {
    LOG(ERROR) << "Unsupported event type: '" << type << "'";
    return;
  }
  const WallTime now = clock_->Now();
  int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (nanos <= last_nanos_) nanos = last_nanos_ + 1;
    last_nanos_ = nanos;
  }
  api::Event e;
  e.metadata.name = EventName(
      object.name,
      WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(nanos))));
  e.metadata.namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
  e.metadata.annotations = annotations;
  e.involved_object = object;
  e.reason = std::string(reason);
  e.message = std::string(message);
  e.first_timestamp = now;
  e.last_timestamp = now;
  e.count = 1;
  e.type = std::string(type);
  e.source = source_;
  e.reporting_component = source_.component;
  e.reporting_instance = source_.host;
  VLOG(4) << "Event(" << object.kind << " " << object.namespace_ << "/" << object.name
          << "): type: '" << type << "' reason: '" << reason << "' " << message;
  broadcaster_->Action(std::move(e));
}

}  // namespace kai::record
