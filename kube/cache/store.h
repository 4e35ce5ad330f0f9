// Indexer: the informer's thread-safe cache of objects by key, with secondary indexes
// (client-go cache.Indexer). Always indexed by namespace; add custom indexes such as pods by
// spec.nodeName. Lists come back sorted by key, so iteration order is deterministic.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/status.h"
#include "kube/cache/object.h"

namespace kai::kube {

// The values an object is indexed under (empty: not indexed).
using IndexFunc = std::function<std::vector<std::string>(const Object&)>;

inline constexpr char kNamespaceIndex[] = "namespace";

class Indexer {
 public:
  Indexer();

  // Adds an index (built at once over the current contents). Names must be unique.
  Status AddIndex(const std::string& name, IndexFunc fn);

  // Inserts or replaces by key; returns the previous object (null if none).
  ObjectPtr Upsert(ObjectPtr obj);
  // Upsert, unless the store holds the key at the same resourceVersion already (a duplicate
  // watch event): then nothing changes and `stored` is false. One lookup for the informer's
  // per-event "get, compare, upsert". Returns the previous (or, not stored, the current) object.
  ObjectPtr UpsertIfChanged(ObjectPtr obj, bool* stored);
  // Removes by key; returns the removed object (null if none).
  ObjectPtr Remove(const std::string& key);
  // Replaces the whole contents; returns the previous contents.
  std::map<std::string, ObjectPtr, std::less<>> Replace(std::vector<ObjectPtr> objects);

  ObjectPtr Get(std::string_view key) const;
  std::vector<ObjectPtr> List() const;
  std::vector<std::string> ListKeys() const;
  // Objects whose index `index` has `value`, sorted by key. Unknown index: empty.
  std::vector<ObjectPtr> ByIndex(std::string_view index, std::string_view value) const;
  // Every value of an index, sorted.
  std::vector<std::string> IndexValues(std::string_view index) const;
  size_t size() const;

 private:
  struct ByKey {
    bool operator()(const Object* a, const Object* b) const { return a->key() < b->key(); }
  };
  using Index = std::map<std::string, std::set<const Object*, ByKey>, std::less<>>;
  // One index's entries for `obj` under `values` (an IndexFunc's answer).
  static void AddToIndex(Index* idx, std::vector<std::string> values, const Object* obj);
  static void RemoveFromIndex(Index* idx, const std::vector<std::string>& values,
                              const Object* obj);
  void IndexLocked(const Object* obj);
  void UnindexLocked(const Object* obj);
  // `now` replaces `old` (same key): entries whose index values did not change keep their place.
  void ReindexLocked(const Object* old, const Object* now);
  ObjectPtr ReplaceLocked(std::map<std::string, ObjectPtr, std::less<>>::iterator it,
                          ObjectPtr obj);

  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr, std::less<>> items_;
  std::map<std::string, IndexFunc, std::less<>> funcs_;
  std::map<std::string, Index, std::less<>> indexes_;
};

}  // namespace kai::kube
