// Internal: the store's per-resource table and watch event history. Include only from .cc.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "test/localkube/object.h"
#include "test/localkube/object_builder.h"
#include "test/localkube/resource.h"
#include "test/localkube/selector.h"
#include "test/localkube/store.h"

namespace kai::localkube {

struct StoredEvent {
  EventType type;
  uint64_t rv;
  ObjectPtr obj;   // new state (for DELETED: the last state with the deletion RV)
  ObjectPtr prev;  // previous state (MODIFIED, DELETED); null for ADDED
  std::shared_ptr<const std::string> frame;  // {"type":..,"object":..}\n in storage version
};

struct Store::Table {
  ResourcePtr info;  // the storage-version resource
  std::map<std::string, ObjectPtr> objects;
  std::deque<std::shared_ptr<const StoredEvent>> ring;
  uint64_t first_seq = 0;     // sequence number of ring.front()
  uint64_t compacted_rv = 0;  // watching from an RV below this gets 410 Expired
  std::condition_variable cv;
  size_t watchers = 0;
  bool dropped = false;
};

// GuaranteedUpdate's attempts before an unconditional write gives up with a conflict.
inline constexpr int kMaxRetries = 64;

// One write to commit under the store's lock.
struct Store::Commit {
  enum class Kind { kCreate, kUpdate, kRemove } kind = Kind::kUpdate;
  PendingObject pending;
  std::string ns;  // create: namespace that must exist
};

// storage.Preconditions.Check as the registry answers it: 409 Conflict naming what differs.
// An empty uid or resourceVersion is no precondition.
Status CheckPreconditions(std::string_view what, std::string_view name, std::string_view uid,
                          std::string_view resource_version, const Object& old);

// The resource objects of `r` are stored as: `r` itself, or the storage version of its group.
StatusOr<ResourcePtr> StorageResource(const ResourcePtr& r, const ResourceRegistry& registry);

// A field selector's fields must be selectable for the resource (400 otherwise).
Status CheckFieldSelector(const ResourceInfo& r, const FieldSelector& fs);
// Whether an object matches a list's or a watch's selectors.
bool Matches(const ObjectPtr& o, const LabelSelector& ls, const FieldSelector& fs);

// Builds the newline-terminated watch frame for `type` and an object JSON.
std::string WatchFrame(EventType type, std::string_view object_json);
// A copy of `obj` whose metadata.resourceVersion is `rv`.
ObjectPtr WithResourceVersion(const ObjectPtr& obj, uint64_t rv);

}  // namespace kai::localkube
