#include "scheduler/app/unconfirmed_bind_requests.h"

namespace kai::scheduler {

void UnconfirmedBindRequests::Created(const std::string& key, const std::string& uid,
                                      MonoTime now) {
  if (uid.empty()) return;  // an attempt in doubt: OutputSink reads those back itself
  entries_[key] = Entry{uid, now + after_};
}

void UnconfirmedBindRequests::Seen(const std::string& key, const std::string& uid) {
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.uid == uid) entries_.erase(it);
}

std::vector<std::pair<std::string, std::string>> UnconfirmedBindRequests::Due(MonoTime now,
                                                                              size_t limit) {
  std::vector<std::pair<std::string, std::string>> due;
  for (auto& [key, e] : entries_) {
    if (due.size() >= limit) break;
    if (e.due > now) continue;
    due.emplace_back(key, e.uid);
    e.due = now + after_;
  }
  return due;
}

}  // namespace kai::scheduler
