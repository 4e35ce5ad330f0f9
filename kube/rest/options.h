// Request options of the REST verbs (metav1.ListOptions, GetOptions, CreateOptions,
// UpdateOptions, PatchOptions, DeleteOptions), as the API server reads them from the query.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace kai::kube {

struct GetOptions {
  std::string resource_version;  // "" = consistent read; "0" = any (cache)
  std::string subresource;       // e.g. "status", "scale"
};

struct ListOptions {
  std::string label_selector;  // "app=x,tier!=db"
  std::string field_selector;  // "spec.nodeName=node-1"
  // RVs are opaque: compare only for equality. "" = consistent read; "0" = any version.
  std::string resource_version;
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  int64_t limit = 0;                   // 0 = no paging
  std::string continue_token;
  int timeout_seconds = 0;
  // When set and true, the request (its transfer and its retry waits) is abandoned with
  // kCancelled: how an informer's Stop() interrupts a list during an outage.
  const std::atomic<bool>* cancel = nullptr;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // start after this RV ("" / "0": current state as ADDED first)
  bool allow_bookmarks = true;
  // Server-side end of the watch; 0 = server default. The reflector picks [5 min, 10 min).
  int timeout_seconds = 0;
  // Streaming list (sendInitialEvents=true&resourceVersionMatch=NotOlderThan).
  bool send_initial_events = false;
  // As ListOptions::cancel, for opening the watch (Watcher::Stop() ends an open one).
  const std::atomic<bool>* cancel = nullptr;
};

// Shared by create, update and patch.
struct WriteOptions {
  bool dry_run = false;          // dryRun=All
  std::string field_manager;     // required for apply patches
  std::string field_validation;  // "", "Ignore", "Warn", "Strict"
  std::string subresource;       // "status" for UpdateStatus / status patches
};

// Patch content types (Content-Type header).
enum class PatchType {
  kMerge,           // application/merge-patch+json (RFC 7386)
  kJson,            // application/json-patch+json (RFC 6902)
  kStrategicMerge,  // application/strategic-merge-patch+json (built-in kinds only)
  kApply,           // application/apply-patch+yaml (server-side apply; needs field_manager)
};
std::string_view PatchContentType(PatchType type);

struct PatchOptions : WriteOptions {
  bool force = false;  // apply: take fields owned by other managers
};

// Propagation policies of DeleteOptions.
inline constexpr char kPropagationBackground[] = "Background";
inline constexpr char kPropagationForeground[] = "Foreground";
inline constexpr char kPropagationOrphan[] = "Orphan";

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", kPropagationBackground, ...
  // Preconditions: the delete fails with 409 Conflict when the object's differ.
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
};

}  // namespace kai::kube
