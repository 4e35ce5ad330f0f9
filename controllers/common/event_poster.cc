#include "controllers/common/event_poster.h"

#include <glog/logging.h>

#include <cstdio>

#include "api/event.h"

namespace kai::controllers {

EventPoster::EventPoster(kube::Client* client, std::string component, Clock* clock,
                         size_t max_queued)
    : client_(client),
      component_(std::move(component)),
      clock_(clock != nullptr ? clock : RealClock::Get()),
      max_queued_(max_queued),
      thread_([this] { Run(); }) {}

EventPoster::~EventPoster() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void EventPoster::Record(EventToPost e) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= max_queued_) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(e));
  }
  cv_.notify_one();
}

int64_t EventPoster::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

int64_t EventPoster::posted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return posted_;
}

std::string EventPoster::EventJson(const EventToPost& e, const std::string& component,
                                   WallTime now) {
  api::Event ev;
  char suffix[32];
  std::snprintf(
      suffix, sizeof(suffix), "%llx",
      static_cast<unsigned long long>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()));
  ev.metadata.name = e.name + "." + suffix;
  ev.metadata.namespace_ = e.namespace_.empty() ? "default" : e.namespace_;
  ev.metadata.annotations = e.annotations;
  ev.involved_object.kind = e.kind;
  ev.involved_object.api_version = e.api_version;
  ev.involved_object.namespace_ = e.namespace_;
  ev.involved_object.name = e.name;
  ev.involved_object.uid = e.uid;
  ev.involved_object.resource_version = e.resource_version;
  ev.reason = e.reason;
  ev.message = e.message;
  ev.type = e.type;
  ev.source.component = component;
  ev.first_timestamp = now;
  ev.last_timestamp = now;
  ev.count = 1;
  return api::EncodeJson(ev);
}

void EventPoster::Run() {
  const kube::GroupVersionResource events{"", "v1", "events"};
  while (true) {
    EventToPost e;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and flushed
      e = std::move(queue_.front());
      queue_.pop_front();
    }
    std::string ns = e.namespace_.empty() ? "default" : e.namespace_;
    auto r = client_->Create(events, ns, EventJson(e, component_, clock_->Now()));
    std::lock_guard<std::mutex> lock(mu_);
    if (r.ok()) {
      ++posted_;
    } else {
      VLOG(1) << "event " << e.reason << " on " << e.name << " dropped: " << r.status();
    }
  }
}

}  // namespace kai::controllers
