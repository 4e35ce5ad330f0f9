// ObjectCache: an informer over the in-process Store for the simulated cluster's controllers.
// It registers a store observer (so it sees every committed change synchronously, including the
// controller's own writes, before the write call returns), then lists the resource; changes
// that race with the list are ordered by resourceVersion. Handlers run in the writer's thread
// and must only enqueue work. Resync() relists and re-delivers everything (the periodic resync
// of a level-triggered controller). Objects are shared with the store (no copies).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "kube/base/status.h"
#include "test/localkube/object.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

class Store;

class ObjectCache {
 public:
  // `old` is null for additions (and for objects delivered by the initial list), `now` null
  // for removals; a resync delivers (obj, obj).
  using Handler = std::function<void(const ObjectPtr& old, const ObjectPtr& now)>;
  // Index values of an object (e.g. its node name, its controller's uid).
  using IndexFn = std::function<std::vector<std::string>(const Object&)>;

  ObjectCache(Store* store, GroupVersionResource gvr);
  ~ObjectCache();
  ObjectCache(const ObjectCache&) = delete;
  ObjectCache& operator=(const ObjectCache&) = delete;

  // Before Start.
  void AddHandler(Handler h);
  void AddIndex(const std::string& name, IndexFn fn);

  // Registers the observer and lists; handlers see every listed object.
  Status Start();
  // Handlers are no longer called; the cache stays readable.
  void Stop();
  // Relists from the store, repairs the cache and delivers every object to the handlers.
  Status Resync();

  const GroupVersionResource& gvr() const { return gvr_; }
  ObjectPtr Get(const std::string& key) const;
  // Objects whose index `name` has `value`, sorted by key.
  std::vector<ObjectPtr> ByIndex(const std::string& name, const std::string& value) const;
  size_t CountByIndex(const std::string& name, const std::string& value) const;
  // Every object, sorted by key.
  std::vector<ObjectPtr> List() const;
  size_t Size() const;

  // Common index functions.
  static std::vector<std::string> NodeNameIndex(const Object& o);  // pods: spec.nodeName
  static std::vector<std::string> ControllerUidIndex(const Object& o);
  static std::vector<std::string> NamespaceIndex(const Object& o);

 private:
  struct Shared;
  void Apply(const ObjectPtr& old, const ObjectPtr& now, bool from_list);

  Store* store_;
  GroupVersionResource gvr_;
  GroupResource storage_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace kai::localkube
