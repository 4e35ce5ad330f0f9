// EventPoster: writes core/v1 Events the way client-go's recorder names and fills them, from a
// bounded queue on one thread (dropping when full, as the broadcaster does). No aggregation of
// repeats; it stands in for kube/record in the run modes until that lands.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "kube/base/clock.h"
#include "kube/rest/client.h"

namespace kai::controllers {

struct EventToPost {
  std::string kind;
  std::string api_version;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string type;  // Normal | Warning
  std::string reason;
  std::string message;
  std::map<std::string, std::string> annotations;
};

class EventPoster {
 public:
  EventPoster(kube::Client* client, std::string component, Clock* clock = nullptr,
              size_t max_queued = 1000);
  ~EventPoster();  // flushes what is queued, then stops
  void Record(EventToPost e);
  int64_t dropped() const;
  int64_t posted() const;
  // The Event object JSON for `e` at `now` (name "<object>.<hex nanoseconds>").
  static std::string EventJson(const EventToPost& e, const std::string& component, WallTime now);

 private:
  void Run();
  kube::Client* client_;
  std::string component_;
  Clock* clock_;
  size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<EventToPost> queue_;
  bool stopping_ = false;
  int64_t dropped_ = 0;
  int64_t posted_ = 0;
  std::thread thread_;
};

}  // namespace kai::controllers
