// SharedInformer: a Reflector feeding an Indexer, with event handlers (client-go
// SharedIndexInformer).
//
// * Handlers: OnAdd(obj, in_initial_list), OnUpdate(old, new), OnDelete(obj,
//   final_state_unknown). A delete noticed only on a relist is a tombstone: final_state_unknown
//   is true and obj is the last state the cache knew (client-go DeletedFinalStateUnknown).
// * Each handler has its own unbounded queue and thread: a slow handler never blocks the
//   reflector, the store or the other handlers. Handlers see events of one object in order.
// * A list Replaces the store: adds for new keys, updates for keys whose resourceVersion
//   changed, tombstone deletes for keys that vanished. (client-go also sends OnUpdate for
//   objects whose resourceVersion did not change; they are identical, so they are skipped.)
//   A key whose uid changed was deleted and created again unseen: a tombstone delete of the
//   old object, then an add of the new one (client-go sends OnUpdate, which update filters
//   such as controller-runtime's GenerationChangedPredicate then drop).
// * Watch events whose resourceVersion the cache already holds are duplicates and are dropped,
//   so reconnects never deliver an event twice.
// * HasSynced() turns true once the first list is in the store; a registration's HasSynced()
//   once its handler has processed that list's adds. A handler added later first receives an
//   add for every cached object.
// * Resync (per handler): every `resync_period`, OnUpdate(obj, obj) for every cached object; no
//   API call.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kube/cache/object.h"
#include "kube/cache/reflector.h"
#include "kube/cache/store.h"
#include "kube/rest/client.h"

namespace kai::kube {

struct ResourceEventHandler {
  std::function<void(const ObjectPtr& obj, bool in_initial_list)> on_add;
  std::function<void(const ObjectPtr& old_obj, const ObjectPtr& new_obj)> on_update;
  std::function<void(const ObjectPtr& obj, bool final_state_unknown)> on_delete;
  // Optional: an update (watch or relist, not resync) for which this returns false is not queued
  // for on_update at all: no copy into the handler's queue, no wake-up of its thread. Runs on the
  // reflector's thread under the informer's lock: it must be cheap and must not block (read the
  // objects' scanned fields, not typed views that would decode there).
  std::function<bool(const ObjectPtr& old_obj, const ObjectPtr& new_obj)> wants_update;
};

// What AddEventHandler returns.
class HandlerRegistration {
 public:
  virtual ~HandlerRegistration() = default;
  // The handler has processed the adds of the informer's initial list.
  virtual bool HasSynced() const = 0;
  // Notifications queued and not yet handled.
  virtual size_t pending() const = 0;
};

struct InformerOptions {
  ReflectorOptions reflector;  // namespace, selectors, decoder, clock, backoff ...
};

class SharedInformer {
 public:
  SharedInformer(Client* client, GroupVersionResource gvr, InformerOptions options = {});
  ~SharedInformer();

  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // Thread-safe, before or after Start(). resync_period 0: no resync.
  std::shared_ptr<HandlerRegistration> AddEventHandler(ResourceEventHandler handler,
                                                       Duration resync_period = Duration(0));
  // Stops delivering to a handler (waits for a notification in progress).
  void RemoveEventHandler(const std::shared_ptr<HandlerRegistration>& registration);

  // Adds a secondary index to the store (e.g. pods by spec.nodeName).
  Status AddIndex(const std::string& name, IndexFunc fn) {
    return store_.AddIndex(name, std::move(fn));
  }
  const Indexer& store() const { return store_; }

  // Starts the reflector thread (once). Stop() ends every thread; the informer cannot restart.
  void Start();
  void Stop();

  bool HasSynced() const { return synced_.load(); }
  // Waits on the informer's clock until synced; false on timeout or Stop().
  bool WaitForCacheSync(Duration timeout);

  std::string LastSyncResourceVersion() const { return reflector_.LastSyncResourceVersion(); }
  ReflectorStats reflector_stats() const { return reflector_.stats(); }
  const GroupVersionResource& gvr() const { return gvr_; }

  class Listener;

 private:
  class Sink;

  const GroupVersionResource gvr_;
  Clock* const clock_;
  Indexer store_;
  std::unique_ptr<Sink> sink_;
  Reflector reflector_;

  std::mutex mu_;  // listeners_, dispatch order, started_, sync waits
  std::condition_variable sync_cv_;
  std::vector<std::shared_ptr<Listener>> listeners_;
  std::atomic<bool> synced_{false};
  bool started_ = false;
  bool stopped_ = false;
  std::thread reflector_thread_;
};

// True when every informer synced within `timeout` (measured on each informer's clock).
bool WaitForCacheSync(const std::vector<SharedInformer*>& informers, Duration timeout);

}  // namespace kai::kube
