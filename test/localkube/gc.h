// Internal: the controllers that finish deletions, like kube-controller-manager's garbage
// collector and namespace controller and the apiextensions finalizer: owner-reference garbage
// collection (background, foreground, orphan), namespace content deletion, CRD instance cleanup,
// and completion of graceful pod deletion when no kubelet confirms it. Runs on its own thread
// and writes through the Store like any client.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/clock.h"
#include "test/localkube/object.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

class Store;

class GarbageCollector {
 public:
  // Synchronous observer of every committed change (runs in the writer's thread after the
  // write, outside the store lock). Used by the CRD controller.
  using Observer =
      std::function<void(const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now)>;

  explicit GarbageCollector(Store* store);
  ~GarbageCollector();
  void Start();
  void Stop();
  void AddObserver(Observer o);

  // Called by the store after each committed write.
  void Observe(const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now);
  // Blocks until the queue is empty and no item is being processed (tests).
  void WaitIdle();

 private:
  struct Item {
    GroupResource gr;
    std::string key;        // object key, or "" with `owner_uid` set
    std::string owner_uid;  // an owner that disappeared
    std::string Id() const { return gr.ToString() + "|" + key + "|" + owner_uid; }
  };
  void Enqueue(Item item);
  void EnqueueAfter(Item item, MonoTime when);
  void Run();
  void Process(const Item& item);
  void ProcessObject(const GroupResource& gr, const std::string& key);
  void ProcessOwnerGone(const std::string& uid);
  void FinishNamespace(const ObjectPtr& ns);
  void FinishCrd(const ObjectPtr& crd);

  Store* store_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::set<std::string> queued_;
  std::multimap<MonoTime, Item> timers_;
  bool busy_ = false;
  bool stop_ = false;
  bool started_ = false;
  std::thread thread_;
  std::mutex observers_mu_;
  // Copy-on-write: each commit takes a reference instead of copying every observer.
  std::shared_ptr<const std::vector<Observer>> observers_ =
      std::make_shared<const std::vector<Observer>>();
};

}  // namespace kai::localkube
