// Failed-search backoff (KAI's minFailedSearchBackoff / maxFailedSearchBackoff, opt-in): a job
// whose victim search ran out of scenarios without a solution is not searched again by that
// action until its backoff passes; each further failure doubles the backoff up to the maximum,
// a solution ends it. Lives across cycles (the scheduler owns it, sessions borrow it), so that
// a cluster full of jobs that fit nowhere does not redo the same searches every second.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "kube/base/clock.h"

namespace kai::scheduler {

class FailedSearchBackoff {
 public:
  bool InBackoff(std::string_view action, const std::string& job_uid, MonoTime now) const;
  // The first failure backs off `min`; each next one twice the last, at most `max`.
  void RecordFailure(std::string_view action, const std::string& job_uid, Duration min,
                     Duration max, MonoTime now);
  void Clear(std::string_view action, const std::string& job_uid);
  // Drops the entries of jobs `exists` no longer knows (deleted PodGroups).
  void Retain(const std::function<bool(const std::string& job_uid)>& exists);
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    MonoTime until;
    Duration last{};
  };
  std::map<std::pair<std::string, std::string>, Entry, std::less<>> entries_;
};

}  // namespace kai::scheduler
