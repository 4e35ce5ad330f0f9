// FakeClient: an in-memory Client for unit tests (client-go's fake clientset + object tracker).
//
// It keeps objects per GroupVersionResource with the API server's essentials: a global
// resourceVersion counter, uid/creationTimestamp/generation on create, optimistic concurrency
// (409 Conflict on a stale metadata.resourceVersion), AlreadyExists/NotFound, generateName,
// status-subresource semantics (main writes keep .status, /status writes change only .status),
// merge/JSON/strategic/apply patches, delete preconditions, pods/binding and pods/eviction, and
// watches with a bounded history (410 Expired from a compacted RV) that can be dropped.
//
// Every call is recorded as an Action; reactors (checked first, newest first) can answer or
// fail any call, e.g. InjectError("update", "pods", NewConflict(...), 1).
//
//   FakeClient fake;
//   fake.Seed(GvrOf<api::Pod>(), pod_json);
//   MyController c(&fake);  ...
//   EXPECT_EQ(fake.actions()[0].verb, "patch");
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/clock.h"
#include "kube/rest/client.h"

namespace kai::kube {

struct FakeAction {
  // "get", "list", "create", "update", "patch", "delete", "watch", "create-subresource".
  std::string verb;
  GroupVersionResource gvr;
  std::string ns;
  std::string name;
  std::string subresource;
  std::string body;  // request body (patch text for patches)
  std::optional<PatchType> patch_type;
};

struct FakeClientOptions {
  Clock* clock = nullptr;  // creationTimestamp / deletionTimestamp; default RealClock
  // Watch events kept per resource; a watch from an older RV gets 410 Expired.
  size_t watch_history = 10000;
  // Main-resource writes keep .status and /status writes change only .status (as for every
  // kind with a status subresource).
  bool status_subresource = true;
};

class FakeClient final : public Client {
 public:
  explicit FakeClient(FakeClientOptions options = {});
  ~FakeClient() override;

  // Stores an object without recording an action (test setup). Fills in resourceVersion, and a
  // uid unless the object has one (client-go's tracker keeps it): a test's model and this
  // server then agree on who is who.
  Status Seed(const GroupVersionResource& gvr, std::string_view json);

  // Reactors: return nullopt to fall through to the tracker, or the answer to give.
  using Reactor = std::function<std::optional<StatusOr<std::string>>(const FakeAction&)>;
  // verb / resource "*" match everything; resource may be "pods/status", "pods/binding".
  void PrependReactor(std::string verb, std::string resource, Reactor reactor);
  // The next `count` (-1: every) matching calls fail with `error`.
  void InjectError(std::string verb, std::string resource, const Status& error, int count = 1);

  std::vector<FakeAction> actions() const;
  void ClearActions();

  // Current global resourceVersion.
  std::string resource_version() const;
  // Ends every open watch cleanly (clients re-watch from their last RV).
  void DropWatches();
  // Forgets the watch history: watches from any RV before now get 410 Expired (open ones get an
  // ERROR event as soon as they read past the compacted point).
  void CompactHistory();
  // Sends a BOOKMARK at the current resourceVersion to every watch that allows bookmarks.
  void Bookmark();
  // Number of open watches.
  int open_watches() const;

  StatusOr<std::string> Get(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, const GetOptions& options = {}) override;
  StatusOr<ObjectList> List(const GroupVersionResource& gvr, std::string_view ns,
                            const ListOptions& options = {}) override;
  StatusOr<std::string> Create(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view body, const WriteOptions& options = {}) override;
  StatusOr<std::string> Update(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name, std::string_view body,
                               const WriteOptions& options = {}) override;
  StatusOr<std::string> Patch(const GroupVersionResource& gvr, std::string_view ns,
                              std::string_view name, PatchType type, std::string_view patch,
                              const PatchOptions& options = {}) override;
  StatusOr<std::string> Delete(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name, const DeleteOptions& options = {}) override;
  StatusOr<std::string> CreateSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                          std::string_view name, std::string_view subresource,
                                          std::string_view body,
                                          const WriteOptions& options = {}) override;
  StatusOr<std::unique_ptr<Watcher>> Watch(const GroupVersionResource& gvr, std::string_view ns,
                                           const WatchOptions& options = {}) override;

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace kai::kube
