#include "kube/workqueue/queue.h"

#include "kube/workqueue/queue_metrics.h"

namespace kai::workqueue {

namespace {
// client-go's delaying queue wakes at least this often even with nothing due (maxWait).
constexpr std::chrono::seconds kMaxWait(10);
}  // namespace

Queue::Queue(const QueueOptions& options)
    : clock_(options.clock != nullptr ? options.clock : RealClock::Get()) {
  if (options.registry != nullptr && !options.name.empty()) {
    metrics_ = std::make_unique<QueueMetrics>(options.registry, options.name, clock_);
  }
}

Queue::~Queue() { ShutDown(); }

void Queue::AddLocked(const std::string& item) {
  if (shutting_down_) return;
  if (dirty_.contains(item)) return;
  if (metrics_) metrics_->Add(item);
  dirty_.insert(item);
  if (processing_.contains(item)) return;  // queued again by Done()
  queue_.push_back(item);
  cv_.notify_one();
}

void Queue::Add(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  AddLocked(item);
}

void Queue::AddAfter(const std::string& item, Duration delay) {
  std::lock_guard<std::mutex> l(mu_);
  if (shutting_down_) return;
  if (metrics_) metrics_->Retry();
  if (delay <= Duration::zero()) {
    AddLocked(item);
    return;
  }
  const MonoTime ready_at = clock_->NowMonotonic() + delay;
  auto it = waiting_by_item_.find(item);
  if (it != waiting_by_item_.end()) {
    // Already waiting: only an earlier ready time replaces the entry.
    if (ready_at >= it->second.ready_at) return;
    waiting_.erase(it->second);
    waiting_by_item_.erase(it);
  }
  const WaitKey key{ready_at, next_seq_++};
  waiting_.emplace(key, item);
  waiting_by_item_.emplace(item, key);
  // A waiter may be sleeping until a later deadline; let one re-compute it.
  cv_.notify_one();
}

void Queue::MoveReadyLocked() {
  if (waiting_.empty() || shutting_down_) return;
  const MonoTime now = clock_->NowMonotonic();
  bool moved = false;
  while (!waiting_.empty() && waiting_.begin()->first.ready_at <= now) {
    auto node = waiting_.extract(waiting_.begin());
    waiting_by_item_.erase(node.mapped());
    AddLocked(node.mapped());
    moved = true;
  }
  if (moved) cv_.notify_all();
}

std::optional<std::string> Queue::Get() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    MoveReadyLocked();
    if (!queue_.empty()) break;
    if (shutting_down_) return std::nullopt;
    if (waiting_.empty()) {
      cv_.wait(l);
    } else {
      const MonoTime next = waiting_.begin()->first.ready_at;
      clock_->WaitUntil(cv_, l, std::min(next, clock_->NowMonotonic() + kMaxWait));
    }
  }
  std::string item = std::move(queue_.front());
  queue_.pop_front();
  if (metrics_) metrics_->Get(item);
  processing_.insert(item);
  dirty_.erase(item);
  return item;
}

void Queue::Done(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  if (metrics_) metrics_->Done(item);
  processing_.erase(item);
  if (dirty_.contains(item)) {
    queue_.push_back(item);
    cv_.notify_one();
  } else if (processing_.empty()) {
    drain_cv_.notify_all();
  }
}

int Queue::Len() {
  std::lock_guard<std::mutex> l(mu_);
  MoveReadyLocked();
  return static_cast<int>(queue_.size());
}

int Queue::NumWaiting() {
  std::lock_guard<std::mutex> l(mu_);
  MoveReadyLocked();
  return static_cast<int>(waiting_.size());
}

void Queue::ShutDown() {
  std::lock_guard<std::mutex> l(mu_);
  shutting_down_ = true;
  drain_ = false;
  waiting_.clear();
  waiting_by_item_.clear();
  cv_.notify_all();
  drain_cv_.notify_all();
}

void Queue::ShutDownWithDrain() {
  std::unique_lock<std::mutex> l(mu_);
  shutting_down_ = true;
  drain_ = true;
  waiting_.clear();
  waiting_by_item_.clear();
  cv_.notify_all();
  while (!processing_.empty() && drain_) drain_cv_.wait(l);
}

bool Queue::ShutDownWithDrain(MonoTime deadline) {
  std::unique_lock<std::mutex> l(mu_);
  shutting_down_ = true;
  drain_ = true;
  waiting_.clear();
  waiting_by_item_.clear();
  cv_.notify_all();
  while (!processing_.empty() && drain_) {
    if (clock_->WaitUntil(drain_cv_, l, deadline)) break;
  }
  return processing_.empty();
}

bool Queue::ShuttingDown() {
  std::lock_guard<std::mutex> l(mu_);
  return shutting_down_;
}

}  // namespace kai::workqueue
