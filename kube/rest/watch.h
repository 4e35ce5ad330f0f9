// Watch streams: newline-delimited JSON events ({"type":"ADDED","object":{...}}) decoded into
// WatchEvents, pulled one at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "kube/base/status.h"

namespace kai::kube {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };
std::string_view WatchEventTypeName(WatchEventType type);  // "ADDED", ...

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  // The object's JSON exactly as sent (a BOOKMARK has only kind/apiVersion/metadata; an ERROR
  // holds a metav1.Status).
  std::string object;
  // metadata.resourceVersion of `object` (empty for ERROR).
  std::string resource_version;
  // kError only: the metav1.Status as a typed error (410 Expired/Gone means "relist").
  Status error;
};

// One open watch. Next() blocks until an event arrives or the stream ends; then Result() says
// why it ended: OK for a clean close by the server (timeoutSeconds elapsed, or dropped), an
// error for a transport failure or an undecodable event; Cancelled after Stop().
class Watcher {
 public:
  virtual ~Watcher() = default;
  virtual bool Next(WatchEvent* event) = 0;
  // Thread-safe; makes a blocked or later Next() return false promptly.
  virtual void Stop() = 0;
  virtual Status Result() const = 0;
};

}  // namespace kai::kube
