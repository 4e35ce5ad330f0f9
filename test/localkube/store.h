// Store: localkube's in-memory object storage with the semantics of the Kubernetes API server
// (what the HTTP layer serves, and what in-process controllers use directly).
//
// Every call is thread-safe and may be made from any thread. Objects are JSON in the resource's
// storage version; results are immutable ObjectPtr snapshots. Writes go through the same
// pipeline as HTTP requests: defaulting, admission webhooks, validation, optimistic
// concurrency, managedFields, generation, finalizers and garbage collection, and produce
// exactly the watch events a remote client would see. See docs/localkube.md.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/base/statusor.h"
#include "test/localkube/object.h"
#include "test/localkube/resource.h"
#include "test/localkube/selector.h"

namespace kai::localkube {

class MutableObject;  // mutable_object.h (internal): a rapidjson document being edited
class Admission;      // admission.h
class GarbageCollector;

struct UserInfo {
  std::string username = "system:admin";
  std::string uid;
  std::vector<std::string> groups = {"system:masters", "system:authenticated"};
};

// Options shared by create, update and patch.
struct WriteOptions {
  bool dry_run = false;
  // managedFields manager; "" derives it from user_agent as the real server does.
  std::string field_manager;
  std::string user_agent;
  // fieldValidation: "Strict", "Warn", "Ignore" (default "Warn" for HTTP, "Ignore" in-process).
  std::string field_validation = "Ignore";
  // "" for the main resource or "status".
  std::string subresource;
  UserInfo user;
  // Out: warnings (e.g. unknown fields with fieldValidation=Warn); may be null.
  std::vector<std::string>* warnings = nullptr;
};

// The parts of a Binding (core/v1) the binding registry uses. A non-empty uid or
// resourceVersion is a precondition on the pod, as the real registry keeps them from the body.
struct PodBinding {
  std::string node;
  std::string target_kind;  // "" or "Node"
  std::string uid;
  std::string resource_version;
  std::vector<std::pair<std::string, std::string>> annotations;
};

enum class PatchType { kMerge, kJson, kStrategic, kApply };

struct PatchOptions : WriteOptions {
  bool force = false;  // server-side apply: take ownership of conflicting fields
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", "Background", "Foreground", "Orphan"
  bool dry_run = false;
  UserInfo user;
};

struct DeleteResult {
  ObjectPtr object;      // the object as deleted, or as it is now while deletion is pending
  bool deleted = false;  // false: finalizers or a grace period keep it (HTTP 202)
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;        // "", "0" or a number
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
};

struct ListResult {
  std::vector<ObjectPtr> items;
  uint64_t resource_version = 0;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
};

enum class EventType { kAdded, kModified, kDeleted, kBookmark, kError };
std::string_view EventTypeName(EventType t);

struct WatchEvent {
  EventType type = EventType::kAdded;
  // ADDED/MODIFIED/DELETED: the object (for DELETED caused by leaving the selector, the
  // previous state with the event's resourceVersion, as the real server sends).
  ObjectPtr object;
  uint64_t resource_version = 0;    // BOOKMARK: the bookmark's resourceVersion
  bool initial_events_end = false;  // BOOKMARK ending sendInitialEvents
  Status error;                     // ERROR: the Status (410 Expired, ...)
  // Internal: a pre-serialized wire frame when the event is delivered unchanged.
  std::shared_ptr<const std::string> frame;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // "" / "0": initial ADDED events then changes; N: after N
  std::string resource_version_match;
  bool allow_bookmarks = false;
  bool send_initial_events = false;  // with allow_bookmarks: ends initial events by a BOOKMARK
  std::optional<Duration> timeout;   // server closes after it
  Duration bookmark_interval = std::chrono::seconds(60);
};

class Watch {
 public:
  virtual ~Watch() = default;
  // Waits until events are available, the watch ends, or `deadline` passes, and appends
  // events to *out. Returns false once the watch has ended (the last call may still append
  // a final ERROR event). Never blocks writers.
  virtual bool Next(MonoTime deadline, std::vector<WatchEvent>* out) = 0;
  // Ends the watch; a blocked Next returns.
  virtual void Stop() = 0;
};

struct StoreOptions {
  // Watch events kept per resource; a watch from an older resourceVersion gets 410 Expired.
  size_t watch_history = 10000;
  // How long a paginated list's continue token stays valid.
  Duration continue_ttl = std::chrono::minutes(5);
  size_t max_continue_snapshots = 64;
  // Pods bound to a node are deleted gracefully (deletionTimestamp, then removed after the
  // grace period). Without a kubelet to confirm, the store removes them when it expires.
  bool complete_graceful_deletion = true;
  // When set and true for a pod's node, that node's kubelet (the simulated kubelet) confirms
  // the termination by deleting the pod with grace 0, so the store leaves it alone.
  std::function<bool(std::string_view node_name)> node_has_kubelet;
};

// Receives every committed change in commit (resourceVersion) order, under the store lock:
// implementations only queue (persistence's write-ahead log).
class CommitSink {
 public:
  virtual ~CommitSink() = default;
  // `now` is null when the object was removed.
  virtual void Committed(const GroupResource& storage, const std::string& key, uint64_t rv,
                         const ObjectPtr& now) = 0;
};

// A location of a stored object.
struct ObjectLocation {
  GroupResource storage;
  std::string key;  // "ns/name" or "name"
};

class Store {
 public:
  Store(ResourceRegistry* registry, Clock* clock, Random* random, StoreOptions options = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Starts the garbage collector / namespace / CRD cleanup worker.
  void Start();
  void Shutdown();

  ResourceRegistry* registry() const { return registry_; }
  // Synchronous observer of every committed change, called in the writer's thread right after
  // the commit, outside the store lock (it may write). `old` is null for creations, `now` null
  // for removals.
  using ChangeObserver =
      std::function<void(const GroupResource& storage, const ObjectPtr& old, const ObjectPtr& now)>;
  void AddObserver(ChangeObserver observer);
  // Blocks until the garbage collector has nothing queued (tests, benchmarks).
  void WaitForGarbageCollector();
  Clock* clock() const { return clock_; }
  void SetAdmission(Admission* admission) { admission_ = admission; }

  // The resource served at group/version/resource, or NotFound.
  StatusOr<ResourcePtr> Resolve(const GroupVersionResource& gvr) const;

  // CRUD. `ns` is ignored ("") for cluster-scoped resources. JSON text is in the
  // requested version (gvr); results are in the storage version (see Convert*).
  StatusOr<ObjectPtr> Create(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view json, const WriteOptions& opts = {});
  StatusOr<ObjectPtr> Get(const GroupVersionResource& gvr, std::string_view ns,
                          std::string_view name) const;
  StatusOr<ListResult> List(const GroupVersionResource& gvr, std::string_view ns,
                            const ListOptions& opts = {}) const;
  // PUT semantics: a non-empty metadata.resourceVersion must match (else 409 Conflict).
  StatusOr<ObjectPtr> Update(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view name, std::string_view json,
                             const WriteOptions& opts = {});
  StatusOr<ObjectPtr> Patch(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, PatchType type, std::string_view patch,
                            const PatchOptions& opts = {});
  StatusOr<DeleteResult> Delete(const GroupVersionResource& gvr, std::string_view ns,
                                std::string_view name, const DeleteOptions& opts = {});
  // Deletes every object matching the selectors (deletecollection).
  StatusOr<std::vector<ObjectPtr>> DeleteCollection(const GroupVersionResource& gvr,
                                                    std::string_view ns,
                                                    const ListOptions& list_opts,
                                                    const DeleteOptions& opts = {});
  // Read-modify-write with retry on conflict (client-go GuaranteedUpdate): `fn` edits the
  // current object; returning an error aborts. Same pipeline as Update.
  StatusOr<ObjectPtr> Mutate(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view name, const std::function<Status(MutableObject&)>& fn,
                             const WriteOptions& opts = {});

  StatusOr<std::unique_ptr<Watch>> StartWatch(const GroupVersionResource& gvr, std::string_view ns,
                                              const WatchOptions& opts);

  // Subresources.
  // pods/binding: sets spec.nodeName and PodScheduled=True, merges the Binding's annotations
  // into the pod's; 409 Conflict if already bound, being deleted, gated, or a precondition fails.
  StatusOr<ObjectPtr> Bind(std::string_view ns, std::string_view pod, const PodBinding& binding,
                           const WriteOptions& opts = {});
  // The object's JSON converted to `gvr`'s version (kind/apiVersion and any schema changes).
  StatusOr<std::string> ConvertToVersion(const ObjectPtr& obj,
                                         const GroupVersionResource& gvr) const;

  uint64_t CurrentResourceVersion() const;
  // Number of stored objects of a resource (all namespaces).
  size_t Count(const GroupResource& storage) const;
  // Sum of ObjectPtr::ByteSize over every stored object.
  size_t ApproximateBytes() const;

  // Fault injection / test hooks.
  // Forgets all watch history: every watch from an older resourceVersion gets 410.
  void CompactHistory();
  // Ends every open watch (clients re-watch from their last resourceVersion).
  void DropWatches();
  size_t ActiveWatches() const;

  // Persistence.
  // Inserts an object exactly as it was stored (uid, resourceVersion, timestamps), without the
  // write pipeline, watch events or observers. The resource's table must exist.
  Status Restore(const GroupResource& storage, std::string_view json);
  // After Restore calls: the resourceVersion counter continues after `rv`, watch history starts
  // there (older resourceVersions get 410), and restored deletions, finalizers and owner
  // references are handed to the garbage collector.
  void FinishRestore(uint64_t rv);
  // Atomically: every stored object (sorted by resource and key) and the current
  // resourceVersion, and `sink` receives every later commit. Pass null to detach.
  uint64_t SnapshotAndAttach(CommitSink* sink,
                             std::vector<std::pair<GroupResource, ObjectPtr>>* objects);
  // Every stored object and the current resourceVersion (consistent).
  uint64_t SnapshotObjects(std::vector<std::pair<GroupResource, ObjectPtr>>* objects) const;

  // The object with `uid`, if stored.
  ObjectPtr FindByUid(std::string_view uid, GroupResource* storage = nullptr) const;
  // Objects whose ownerReferences name `owner_uid`.
  std::vector<std::pair<GroupResource, ObjectPtr>> Dependents(std::string_view owner_uid) const;

  // Internal, for the garbage collector and CRD controller.
  struct Table;
  void DropTable(const GroupResource& storage);
  void EnsureTable(const ResourcePtr& storage_resource);

 private:
  friend class GarbageCollector;
  friend class StoreWatch;
  struct WriteContext;

  Table* FindTable(const GroupResource& gr) const;  // requires mu_
  StatusOr<ObjectPtr> CreateImpl(const ResourcePtr& r, std::string_view ns, MutableObject& obj,
                                 const WriteOptions& opts);
  StatusOr<ObjectPtr> UpdateImpl(
      const ResourcePtr& r, std::string_view ns, std::string_view name,
      const std::function<Status(const ObjectPtr& old, MutableObject& obj)>& fn,
      const WriteOptions& opts, bool retry_on_conflict, bool allow_create, bool force_apply);
  StatusOr<DeleteResult> DeleteImpl(const ResourcePtr& r, std::string_view ns,
                                    std::string_view name, const DeleteOptions& opts);
  // Commits a pending write under mu_. `expected_old` must still be current.
  struct Commit;
  StatusOr<ObjectPtr> CommitLocked(Table* t, const std::string& key, const ObjectPtr& expected_old,
                                   Commit&& c);
  // CommitLocked on the table of `storage`, taking mu_; NotFound (naming `r`) when the resource
  // stopped being served.
  StatusOr<ObjectPtr> CommitToTable(const ResourceInfo& r, const GroupResource& storage,
                                    std::string_view name, const std::string& key,
                                    const ObjectPtr& expected_old, Commit&& c);
  void AppendEventLocked(Table* t, EventType type, const ObjectPtr& obj, const ObjectPtr& prev);
  void IndexLocked(const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now);
  // Waits (on the injected clock, at most 3 s: the watch cache's blockTimeout) until the
  // resourceVersion counter reaches `want`; else the real server's 504 Timeout "Too large
  // resource version". `l` holds mu_.
  Status WaitForResourceVersionLocked(std::unique_lock<std::mutex>& l, uint64_t want) const;
  void NotifyGc(const ObjectPtr& old, const ObjectPtr& now, const GroupResource& gr);

  ResourceRegistry* registry_;
  Clock* clock_;
  Random* random_;
  StoreOptions options_;
  Admission* admission_ = nullptr;

  mutable std::mutex mu_;
  uint64_t rv_ = 1;
  mutable std::condition_variable rv_cv_;  // notified by commits while rv_waiters_ > 0
  mutable size_t rv_waiters_ = 0;
  std::map<GroupResource, std::unique_ptr<Table>> tables_;
  std::unordered_map<std::string, ObjectLocation> by_uid_;
  // owner uid -> dependents (storage resource, key)
  std::unordered_map<std::string, std::set<std::pair<GroupResource, std::string>>> dependents_;
  std::atomic<uint64_t> drop_epoch_{0};
  CommitSink* sink_ = nullptr;  // guarded by mu_
  std::atomic<size_t> active_watches_{0};

  struct ContinueSnapshot {
    std::shared_ptr<const std::vector<ObjectPtr>> items;
    uint64_t rv;
    MonoTime expires;
  };
  mutable std::mutex continue_mu_;
  mutable std::map<uint64_t, ContinueSnapshot> continue_snapshots_;
  mutable uint64_t next_snapshot_id_ = 1;

  std::unique_ptr<GarbageCollector> gc_;
};

}  // namespace kai::localkube
