// Victim-search time budgets of the scheduler configuration (KAI's SchedulingShard
// spec.scenarioSearchBudgets, v0.15), parsed from a SchedulingShard or the config file.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "api/scheduling_shard.h"
#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::scheduler {

// Victim-search time budgets (KAI's SchedulingShard spec.scenarioSearchBudgets; defaults as
// upstream's: 20s per action, 10s per job, 5s per scenario generator). 0 means unlimited.
struct SearchBudgets {
  std::map<std::string, Duration, std::less<>>
      max_action;  // reclaim, preempt, consolidation, default
  Duration max_job = std::chrono::seconds(10);
  Duration min_job{};  // every job searches at least this long, even past the action's budget
  // By generator name; this solver has one generator (KAI's accumulated pod scenarios), whose
  // limit is the "default" entry. Other names are accepted for compatibility and bind nothing.
  std::map<std::string, Duration, std::less<>> max_generator;
  // Failed-search backoff per action ("default" for the others); off (0) unless set. The
  // maximum defaults to, and is at least, the minimum.
  std::map<std::string, Duration, std::less<>> min_failed_search_backoff;
  std::map<std::string, Duration, std::less<>> max_failed_search_backoff;

  Duration ActionLimit(std::string_view action) const;
  // {min, max} of the action's failed-search backoff; min 0 = no backoff.
  std::pair<Duration, Duration> BackoffBounds(std::string_view action) const;
  // The limit of one job's search: the job limit capped by the generator limit.
  Duration JobLimit() const;
};

SearchBudgets DefaultSearchBudgets();

// Overlays the given budgets on *out (keys present replace the defaults). Errors name the field
// under `where` (e.g. "SchedulingShard default: spec.scenarioSearchBudgets"): negative
// durations, unknown action names, a minimum job search not below the maximum.
Status ApplySearchBudgets(const api::ScenarioSearchBudgets& in, std::string_view where,
                          SearchBudgets* out);

}  // namespace kai::scheduler
