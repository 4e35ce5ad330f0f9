// BindRequests this scheduler created that its informer has not delivered yet.
//
// The model learns a BindRequest from its create's answer (so that the next cycle sees the pod
// Binding at once). The informer normally delivers it within milliseconds. One it never
// delivers was deleted by someone else while the informer's watch was down: the relist that
// follows lists no such object and no event names it, so the model would hold it, and its pod
// as Binding, for ever (KAI puts created BindRequests into the informer's store, whose relist
// drops them). Entries not confirmed within `read_back_after` are read back from the API server.
// Not thread-safe: the live scheduler guards it with its model lock.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kube/base/clock.h"

namespace kai::scheduler {

class UnconfirmedBindRequests {
 public:
  explicit UnconfirmedBindRequests(Duration read_back_after) : after_(read_back_after) {}

  // The API server answered a create (or a read) with BindRequest `key` of `uid`.
  void Created(const std::string& key, const std::string& uid, MonoTime now);
  // The informer delivered BindRequest `key` of `uid` (added, updated or deleted).
  void Seen(const std::string& key, const std::string& uid);
  // The read-back settled it.
  void Forget(const std::string& key) { entries_.erase(key); }
  // Up to `limit` (key, uid) pairs to read back now, in key order; each is due again only after
  // another `read_back_after`.
  std::vector<std::pair<std::string, std::string>> Due(MonoTime now, size_t limit);
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string uid;
    MonoTime due;
  };
  Duration after_;
  std::map<std::string, Entry> entries_;
};

}  // namespace kai::scheduler
