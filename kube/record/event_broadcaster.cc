#include "kube/record/event_broadcaster.h"

#include <glog/logging.h>

#include "kube/rest/errors.h"

namespace kai::record {

EventBroadcaster::EventBroadcaster(EventSink* sink, BroadcasterOptions options)
    : sink_(sink),
      options_(options),
      clock_(options.clock != nullptr ? options.clock : RealClock::Get()),
      random_(options.random != nullptr ? options.random : SeededRandom::Default()),
      correlator_(clock_, options.correlator) {
  worker_ = std::thread([this] { Worker(); });
}

EventBroadcaster::~EventBroadcaster() { Shutdown(); }

std::unique_ptr<EventRecorder> EventBroadcaster::NewRecorder(api::EventSource source) {
  return std::make_unique<EventRecorder>(this, std::move(source), clock_);
}

bool EventBroadcaster::Action(api::Event event) {
  std::lock_guard<std::mutex> l(mu_);
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
  idle_cv_.wait(l, [this] { return shutdown_ || (queue_.empty() && !busy_); });
}

void EventBroadcaster::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shutdown_ && !worker_.joinable()) return;
    shutdown_ = true;
    queue_.clear();
    cv_.notify_all();
    idle_cv_.notify_all();
  }
  if (worker_.joinable()) worker_.join();
}

BroadcasterStats EventBroadcaster::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

void EventBroadcaster::Worker() {
  while (true) {
    api::Event event;
    {
      std::unique_lock<std::mutex> l(mu_);
      busy_ = false;
      idle_cv_.notify_all();
      cv_.wait(l, [this] { return shutdown_ || !queue_.empty(); });
      if (shutdown_) return;
      event = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    RecordToSink(event);
  }
}

void EventBroadcaster::RecordToSink(const api::Event& event) {
  CorrelateResult result = correlator_.Correlate(event);
  if (result.skip) {
    VLOG(2) << "event " << event.reason << " on " << event.involved_object.name
            << " dropped by the spam filter";
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.skipped;
    return;
  }
  int tries = 0;
  while (true) {
    if (RecordEvent(result.event, result.patch, result.event.count > 1)) return;
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
    correlator_.UpdateState(*written);
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
