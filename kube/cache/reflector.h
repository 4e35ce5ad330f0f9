// Reflector: keeps a sink in step with one collection of the API server (client-go
// tools/cache/reflector.go).
//
//   * LIST (pages of `page_size`, the first list with resourceVersion "0", later ones from the
//     last synced RV, or "" after a 410) and Replace the sink;
//   * WATCH from the list's RV with bookmarks and a timeoutSeconds drawn from
//     [min_watch_timeout, 2 x min_watch_timeout); every event moves the last synced RV, a
//     BOOKMARK only moves it;
//   * a watch that closes cleanly is re-opened from the last RV without relisting; one that
//     closes within a second having delivered nothing (VeryShortWatch) counts as an error;
//   * 410 Expired/Gone (HTTP status or ERROR event) and 504 ResourceVersionTooLarge mark the RV
//     unavailable and relist with RV "" (a consistent read);
//   * 429 when opening a watch backs off and re-watches without relisting; every other error
//     (connection refused or lost included: the server may have restarted with a new history)
//     backs off (BackoffManager) and relists.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/cache/backoff.h"
#include "kube/cache/object.h"
#include "kube/rest/client.h"

namespace kai::kube {

// What the reflector feeds. Calls come from the reflector's thread, one at a time.
class ReflectorSink {
 public:
  virtual ~ReflectorSink() = default;
  // The full state at `resource_version` (a list).
  virtual void Replace(std::vector<ObjectPtr> objects, const std::string& resource_version) = 0;
  virtual void Added(ObjectPtr obj) = 0;
  virtual void Modified(ObjectPtr obj) = 0;
  virtual void Deleted(ObjectPtr obj) = 0;
};

struct ReflectorOptions {
  std::string ns;  // "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  Decoder decoder;  // default RawDecoder(); called from several threads at once
  int64_t page_size = 500;
  // Threads decoding list pages while the next page is fetched; 0 = min(4, cores).
  int decode_threads = 0;
  Duration min_watch_timeout{std::chrono::minutes(5)};
  BackoffOptions backoff;
  Clock* clock = nullptr;    // default RealClock
  Random* random = nullptr;  // default SeededRandom::Default()
  std::string name;          // for logs, default the resource
};

struct ReflectorStats {
  int64_t lists = 0;
  int64_t watches = 0;  // watch requests that opened
  int64_t events = 0;   // ADDED/MODIFIED/DELETED delivered
  int64_t bookmarks = 0;
  int64_t expired = 0;  // 410s seen (list, watch open or ERROR event)
  int64_t very_short_watches = 0;
  int64_t errors = 0;         // failed list/watch attempts (each followed by a backoff)
  int64_t decode_errors = 0;  // objects skipped because the decoder rejected them
};

class Reflector {
 public:
  Reflector(Client* client, GroupVersionResource gvr, ReflectorOptions options,
            ReflectorSink* sink);
  ~Reflector();

  // Lists and watches until Stop(); blocks.
  void Run();
  // Thread-safe; ends an open watch and any backoff wait at once.
  void Stop();

  std::string LastSyncResourceVersion() const;
  ReflectorStats stats() const;

 private:
  Status ListAndWatch();
  Status List();
  StatusOr<std::vector<ObjectPtr>> ListDecoded(const ListOptions& base,
                                               std::string* resource_version,
                                               int64_t* decode_errors);
  // Returns when the watch ends: OK to re-watch at once, an error otherwise.
  Status WatchOnce();
  bool Stopped() const { return stopped_.load(); }
  // Waits `d` on the clock unless stopped first.
  void Wait(Duration d);

  Client* const client_;
  const GroupVersionResource gvr_;
  ReflectorOptions options_;
  ReflectorSink* const sink_;
  Clock* const clock_;
  Random* const random_;
  BackoffManager backoff_;

  std::atomic<bool> stopped_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Watcher* current_watch_ = nullptr;  // guarded by mu_
  std::string last_rv_;               // guarded by mu_
  bool synced_once_ = false;
  bool rv_unavailable_ = false;
  ReflectorStats stats_;  // guarded by mu_
};

}  // namespace kai::kube
