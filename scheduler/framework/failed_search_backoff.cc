#include "scheduler/framework/failed_search_backoff.h"

#include <algorithm>

namespace kai::scheduler {

bool FailedSearchBackoff::InBackoff(std::string_view action, const std::string& job_uid,
                                    MonoTime now) const {
  auto it = entries_.find(std::pair{std::string(action), job_uid});
  return it != entries_.end() && now < it->second.until;
}

void FailedSearchBackoff::RecordFailure(std::string_view action, const std::string& job_uid,
                                        Duration min, Duration max, MonoTime now) {
  auto [it, inserted] = entries_.try_emplace(std::pair{std::string(action), job_uid});
  Entry& e = it->second;
  e.last = inserted ? min : std::clamp(e.last * 2, min, std::max(min, max));
  e.until = now + e.last;
}

void FailedSearchBackoff::Clear(std::string_view action, const std::string& job_uid) {
  entries_.erase(std::pair{std::string(action), job_uid});
}

void FailedSearchBackoff::Retain(const std::function<bool(const std::string&)>& exists) {
  std::erase_if(entries_, [&](const auto& kv) { return !exists(kv.first.second); });
}

}  // namespace kai::scheduler
