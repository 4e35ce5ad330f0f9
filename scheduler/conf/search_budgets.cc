#include "scheduler/conf/search_budgets.h"

#include <algorithm>
#include <array>

#include "kube/base/time.h"

namespace kai::scheduler {

namespace {

constexpr std::string_view kDefaultKey = "default";
constexpr std::array<std::string_view, 4> kActionKeys = {"default", "reclaim", "preempt",
                                                         "consolidation"};

Status NonNegative(Duration d, std::string_view where, std::string_view field) {
  if (d >= Duration::zero()) return Status::OK();
  return InvalidArgumentError(std::string(where) + "." + std::string(field) +
                              ": must be non-negative, got " + FormatGoDuration(d));
}

Status ApplyPerAction(const std::map<std::string, Duration>& in, std::string_view where,
                      std::string_view name, std::map<std::string, Duration, std::less<>>* out) {
  for (const auto& [action, d] : in) {
    const std::string field = std::string(name) + "." + action;
    if (std::find(kActionKeys.begin(), kActionKeys.end(), action) == kActionKeys.end()) {
      return InvalidArgumentError(std::string(where) + "." + field +
                                  ": unknown action (expected default, reclaim, preempt or "
                                  "consolidation)");
    }
    KAI_RETURN_IF_ERROR(NonNegative(d, where, field));
    (*out)[action] = d;
  }
  return Status::OK();
}

Duration Lookup(const std::map<std::string, Duration, std::less<>>& m, std::string_view key) {
  if (auto it = m.find(key); it != m.end()) return it->second;
  if (auto it = m.find(kDefaultKey); it != m.end()) return it->second;
  return Duration::zero();
}

}  // namespace

Duration SearchBudgets::ActionLimit(std::string_view action) const {
  return Lookup(max_action, action);
}

Duration SearchBudgets::JobLimit() const {
  const Duration generator = Lookup(max_generator, kDefaultKey);
  if (max_job == Duration::zero()) return generator;
  if (generator == Duration::zero()) return max_job;
  return std::min(max_job, generator);
}

std::pair<Duration, Duration> SearchBudgets::BackoffBounds(std::string_view action) const {
  const Duration min = Lookup(min_failed_search_backoff, action);
  if (min == Duration::zero()) return {Duration::zero(), Duration::zero()};
  return {min, std::max(min, Lookup(max_failed_search_backoff, action))};
}

SearchBudgets DefaultSearchBudgets() {
  SearchBudgets b;
  b.max_action[std::string(kDefaultKey)] = std::chrono::seconds(20);
  b.max_job = std::chrono::seconds(10);
  b.min_job = Duration::zero();
  b.max_generator[std::string(kDefaultKey)] = std::chrono::seconds(5);
  return b;
}

Status ApplySearchBudgets(const api::ScenarioSearchBudgets& in, std::string_view where,
                          SearchBudgets* out) {
  KAI_RETURN_IF_ERROR(ApplyPerAction(in.max_action_search_duration, where,
                                     "maxActionSearchDuration", &out->max_action));
  KAI_RETURN_IF_ERROR(ApplyPerAction(in.min_failed_search_backoff, where, "minFailedSearchBackoff",
                                     &out->min_failed_search_backoff));
  KAI_RETURN_IF_ERROR(ApplyPerAction(in.max_failed_search_backoff, where, "maxFailedSearchBackoff",
                                     &out->max_failed_search_backoff));
  if (in.max_job_search_duration) {
    KAI_RETURN_IF_ERROR(NonNegative(*in.max_job_search_duration, where, "maxJobSearchDuration"));
    out->max_job = *in.max_job_search_duration;
  }
  if (in.min_job_search_duration) {
    KAI_RETURN_IF_ERROR(NonNegative(*in.min_job_search_duration, where, "minJobSearchDuration"));
    out->min_job = *in.min_job_search_duration;
  }
  for (const auto& [generator, d] : in.max_generator_search_duration) {
    KAI_RETURN_IF_ERROR(NonNegative(d, where, "maxGeneratorSearchDuration." + generator));
    out->max_generator[generator] = d;
  }
  if (out->max_job != Duration::zero() && out->min_job >= out->max_job) {
    return InvalidArgumentError(
        std::string(where) + ".minJobSearchDuration: must be less than maxJobSearchDuration (" +
        FormatGoDuration(out->min_job) + " >= " + FormatGoDuration(out->max_job) + ")");
  }
  return Status::OK();
}

}  // namespace kai::scheduler
