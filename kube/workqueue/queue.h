// Queue: client-go's work queue (util/workqueue queue.go + delaying_queue.go), keyed by strings
// (informer keys "namespace/name").
//
// - Add(k) marks k dirty; a key that is already dirty is not added twice (de-duplication).
// - Get() hands a key to one worker and moves it dirty -> processing. A key re-added while it is
//   processing is only queued again when that worker calls Done(k), so one key is never
//   processed by two workers at once.
// - AddAfter(k, d) keeps k in a min-heap of ready times (an earlier time for a key already
//   waiting wins) and adds it once the injected Clock reaches that time. Waiting goes through
//   Clock::WaitUntil, so a FakeClock drives it without sleeps.
// - ShutDown() makes Get() return nullopt once the queue is empty and drops delayed keys;
//   ShutDownWithDrain() also waits until every key handed out is Done().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "kube/base/clock.h"

namespace kai::metrics {
class Registry;
}

namespace kai::workqueue {

class QueueMetrics;

struct QueueOptions {
  // Metrics label `name`; metrics are recorded only with a registry and a non-empty name.
  std::string name;
  metrics::Registry* registry = nullptr;
  Clock* clock = nullptr;  // RealClock::Get() when null
};

class Queue {
 public:
  explicit Queue(const QueueOptions& options = {});
  virtual ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  void Add(const std::string& item);
  // Adds `item` once `delay` has passed on the clock (at once when delay <= 0). Counted as a
  // retry in the metrics, as in client-go.
  void AddAfter(const std::string& item, Duration delay);

  // Blocks until a key is ready; nullopt once the queue is shut down and empty.
  std::optional<std::string> Get();
  // Marks the key handed out by Get() as finished.
  void Done(const std::string& item);

  // Keys ready to be handed out (not counting delayed or processing ones).
  int Len();
  // Keys waiting in the delay heap.
  int NumWaiting();

  void ShutDown();
  // Shuts down and waits until every handed-out key is Done() (or ShutDown() is called).
  void ShutDownWithDrain();
  // Same, but gives up at `deadline` (on the queue's clock); returns false when it gave up.
  bool ShutDownWithDrain(MonoTime deadline);
  bool ShuttingDown();

  Clock* clock() const { return clock_; }

 private:
  void AddLocked(const std::string& item);
  // Moves delayed keys whose time has come into the queue.
  void MoveReadyLocked();

  Clock* const clock_;
  std::unique_ptr<QueueMetrics> metrics_;

  std::mutex mu_;
  std::condition_variable cv_;        // Get() waiters
  std::condition_variable drain_cv_;  // ShutDownWithDrain() waiters
  std::deque<std::string> queue_;
  std::unordered_set<std::string> dirty_;
  std::unordered_set<std::string> processing_;
  bool shutting_down_ = false;
  bool drain_ = false;

  // Delay heap: ordered by (ready time, insertion sequence); one entry per key.
  struct WaitKey {
    MonoTime ready_at;
    uint64_t seq;
    bool operator<(const WaitKey& o) const {
      return ready_at != o.ready_at ? ready_at < o.ready_at : seq < o.seq;
    }
  };
  std::map<WaitKey, std::string> waiting_;
  std::unordered_map<std::string, WaitKey> waiting_by_item_;
  uint64_t next_seq_ = 0;
};

}  // namespace kai::workqueue
