// ListWatch: list a resource, then watch it from the list's resourceVersion, re-listing when the
// watch history is gone (410) and re-watching when a stream ends — client-go's Reflector loop in
// its simplest form, feeding handlers with raw JSON. It stands in for kube/cache informers in
// the run modes of kai-scheduler and kai-binder until those land.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/clock.h"
#include "kube/rest/client.h"

namespace kai::controllers {

struct ListWatchHandlers {
  // The complete current set after every (re)list: objects missing from it are gone.
  std::function<void(const std::vector<std::string>& objects)> on_list;
  // One change after the list (ADDED / MODIFIED / DELETED).
  std::function<void(kube::WatchEventType type, const std::string& object)> on_event;
};

struct ListWatchOptions {
  kube::GroupVersionResource gvr;
  std::string namespace_;  // empty: all namespaces
  std::string label_selector;
  std::string field_selector;
  Duration retry_delay = std::chrono::seconds(1);
  // Server-side timeout of each watch request (the stream is then re-opened).
  int watch_timeout_seconds = 300;
  Clock* clock = nullptr;  // RealClock when null
};

class ListWatch {
 public:
  ListWatch(kube::Client* client, ListWatchOptions options, ListWatchHandlers handlers);
  ~ListWatch();  // Stop()
  ListWatch(const ListWatch&) = delete;
  ListWatch& operator=(const ListWatch&) = delete;

  void Start();
  void Stop();
  // True once the first list was delivered.
  bool HasSynced() const { return synced_.load(); }
  // Number of (re)lists so far.
  int lists() const { return lists_.load(); }

 private:
  void Run();
  bool Wait(Duration d);  // false when stopped

  kube::Client* client_;
  ListWatchOptions options_;
  ListWatchHandlers handlers_;
  Clock* clock_;
  std::atomic<bool> synced_{false};
  std::atomic<int> lists_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::shared_ptr<kube::Watcher> watcher_;
  std::thread thread_;
};

}  // namespace kai::controllers
