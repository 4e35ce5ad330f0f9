#include "kube/cache/informer.h"

#include <glog/logging.h>

#include <deque>
#include <optional>

namespace kai::kube {

namespace {

enum Kind { kAdd, kUpdate, kDelete, kSyncMarker };

struct Notification {
  Kind kind;
  ObjectPtr old_obj;
  ObjectPtr obj;
  bool flag = false;  // add: in initial list; delete: final state unknown
};

}  // namespace

// One handler: its queue, its thread, its resync schedule.
class SharedInformer::Listener final : public HandlerRegistration {
 public:
  Listener(ResourceEventHandler handler, Duration resync, Clock* clock, const Indexer* store)
      : handler_(std::move(handler)), resync_(resync), clock_(clock), store_(store) {}

  void Start() {
    thread_ = std::thread([this] { Run(); });
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  void Push(Notification n) {
    {
      std::lock_guard<std::mutex> l(mu_);
      queue_.push_back(std::move(n));
    }
    cv_.notify_one();
  }

  // False for an update the handler's wants_update filter declines.
  bool Wants(const Notification& n) const {
    return n.kind != kUpdate || !handler_.wants_update || handler_.wants_update(n.old_obj, n.obj);
  }

  bool HasSynced() const override {
    std::lock_guard<std::mutex> l(mu_);
    return synced_;
  }
  size_t pending() const override {
    std::lock_guard<std::mutex> l(mu_);
    return queue_.size();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      if (stopping_) return;
      if (queue_.empty()) {
        if (resync_.count() > 0 && synced_) {
          if (!next_resync_.has_value()) next_resync_ = clock_->NowMonotonic() + resync_;
          if (clock_->NowMonotonic() >= *next_resync_) {
            next_resync_ = clock_->NowMonotonic() + resync_;
            // Resync re-delivers the cache, never the API server.
            for (const ObjectPtr& o : store_->List()) queue_.push_back({kUpdate, o, o, false});
            continue;
          }
          clock_->WaitUntil(cv_, l, *next_resync_);
        } else {
          cv_.wait(l);
        }
        continue;
      }
      Notification n = std::move(queue_.front());
      queue_.pop_front();
      if (n.kind == kSyncMarker) {
        synced_ = true;
        continue;
      }
      l.unlock();
      Deliver(n);
      l.lock();
    }
  }

  void Deliver(const Notification& n) const {
    switch (n.kind) {
      case kAdd:
        if (handler_.on_add) handler_.on_add(n.obj, n.flag);
        break;
      case kUpdate:
        if (handler_.on_update) handler_.on_update(n.old_obj, n.obj);
        break;
      case kDelete:
        if (handler_.on_delete) handler_.on_delete(n.obj, n.flag);
        break;
      case kSyncMarker:
        break;
    }
  }

  const ResourceEventHandler handler_;
  const Duration resync_;
  Clock* const clock_;
  const Indexer* const store_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Notification> queue_;
  bool stopping_ = false;
  bool synced_ = false;
  std::optional<MonoTime> next_resync_;
  std::thread thread_;
};

// Applies reflector output to the store and fans notifications out, under the informer's lock
// so every listener sees the same order.
class SharedInformer::Sink final : public ReflectorSink {
 public:
  explicit Sink(SharedInformer* informer) : s_(informer) {}

  void Replace(std::vector<ObjectPtr> objects, const std::string&) override {
    std::lock_guard<std::mutex> l(s_->mu_);
    const bool initial = !s_->synced_.load();
    auto old = s_->store_.Replace(objects);
    for (const ObjectPtr& obj : objects) {
      auto it = old.find(obj->key());
      if (it == old.end()) {
        Fan({kAdd, nullptr, obj, initial});
        continue;
      }
      if (Replaced(*it->second, *obj)) {
        // Deleted and created again while we were not watching: two objects, not an update
        // (an update filter comparing, say, generations would drop the new one's work).
        Fan({kDelete, nullptr, it->second, true});
        Fan({kAdd, nullptr, obj, false});
      } else if (it->second->resource_version() != obj->resource_version()) {
        Fan({kUpdate, it->second, obj, false});
      }
      old.erase(it);
    }
    // Gone while we were not watching: tombstones with the last known state.
    for (auto& [key, obj] : old) Fan({kDelete, nullptr, obj, true});
    if (initial) {
      s_->synced_.store(true);
      Fan({kSyncMarker, nullptr, nullptr, false});
      s_->sync_cv_.notify_all();
    }
  }

  void Added(ObjectPtr obj) override { Upsert(std::move(obj)); }
  void Modified(ObjectPtr obj) override { Upsert(std::move(obj)); }

  void Deleted(ObjectPtr obj) override {
    std::lock_guard<std::mutex> l(s_->mu_);
    ObjectPtr old = s_->store_.Remove(obj->key());
    if (old == nullptr) return;  // already gone (duplicate)
    Fan({kDelete, nullptr, std::move(obj), false});
  }

 private:
  void Upsert(ObjectPtr obj) {
    std::lock_guard<std::mutex> l(s_->mu_);
    bool stored = false;
    ObjectPtr current = s_->store_.UpsertIfChanged(obj, &stored);
    if (!stored) return;  // a duplicate (the cache holds this resourceVersion)
    if (current == nullptr) {
      Fan({kAdd, nullptr, std::move(obj), false});
    } else if (Replaced(*current, *obj)) {  // a watch that missed the DELETED event
      Fan({kDelete, nullptr, std::move(current), true});
      Fan({kAdd, nullptr, std::move(obj), false});
    } else {
      Fan({kUpdate, std::move(current), std::move(obj), false});
    }
  }

  // The same key with another uid is another object.
  static bool Replaced(const Object& before, const Object& after) {
    return !before.uid().empty() && !after.uid().empty() && before.uid() != after.uid();
  }

  void Fan(const Notification& n) {
    for (const auto& listener : s_->listeners_) {
      if (listener->Wants(n)) listener->Push(n);
    }
  }

  SharedInformer* s_;
};

SharedInformer::SharedInformer(Client* client, GroupVersionResource gvr, InformerOptions options)
    : gvr_(gvr),
      clock_(options.reflector.clock != nullptr ? options.reflector.clock : RealClock::Get()),
      sink_(std::make_unique<Sink>(this)),
      reflector_(client, std::move(gvr), std::move(options.reflector), sink_.get()) {}

SharedInformer::~SharedInformer() { Stop(); }

std::shared_ptr<HandlerRegistration> SharedInformer::AddEventHandler(ResourceEventHandler handler,
                                                                     Duration resync_period) {
  auto listener = std::make_shared<Listener>(std::move(handler), resync_period, clock_, &store_);
  std::lock_guard<std::mutex> l(mu_);
  if (synced_.load()) {
    // Late joiners get the current cache as their initial list.
    for (const ObjectPtr& o : store_.List()) listener->Push({kAdd, nullptr, o, true});
    listener->Push({kSyncMarker, nullptr, nullptr, false});
  }
  if (!stopped_) listener->Start();
  listeners_.push_back(listener);
  return listener;
}

void SharedInformer::RemoveEventHandler(const std::shared_ptr<HandlerRegistration>& registration) {
  std::shared_ptr<Listener> found;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = listeners_.begin(); it != listeners_.end(); ++it) {
      if (it->get() == registration.get()) {
        found = *it;
        listeners_.erase(it);
        break;
      }
    }
  }
  if (found != nullptr) found->Stop();
}

void SharedInformer::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (started_ || stopped_) return;
  started_ = true;
  reflector_thread_ = std::thread([this] { reflector_.Run(); });
}

void SharedInformer::Stop() {
  std::vector<std::shared_ptr<Listener>> listeners;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopped_) return;
    stopped_ = true;
    listeners = listeners_;
    sync_cv_.notify_all();
  }
  reflector_.Stop();
  if (reflector_thread_.joinable()) reflector_thread_.join();
  for (auto& listener : listeners) listener->Stop();
}

bool SharedInformer::WaitForCacheSync(Duration timeout) {
  std::unique_lock<std::mutex> l(mu_);
  const MonoTime deadline = clock_->NowMonotonic() + timeout;
  while (!synced_.load() && !stopped_) {
    if (clock_->WaitUntil(sync_cv_, l, deadline) && !synced_.load()) return false;
  }
  return synced_.load();
}

bool WaitForCacheSync(const std::vector<SharedInformer*>& informers, Duration timeout) {
  for (SharedInformer* i : informers) {
    if (!i->WaitForCacheSync(timeout)) return false;
  }
  return true;
}

}  // namespace kai::kube
