#include "scheduler/api/fit_errors.h"

#include <algorithm>

namespace kai::scheduler {

namespace {
constexpr std::string_view kResourcesWereNotFound = "no nodes with enough resources were found";
}  // namespace

void TaskFitErrors::AddNodeError(const NodeFitError& e) {
  ++nodes_;
  for (const auto& r : e.reasons) reason_counts_[r]++;
}

void TaskFitErrors::Merge(const TaskFitErrors& other) {
  for (const auto& [r, c] : other.reason_counts_) reason_counts_[r] += c;
  nodes_ += other.nodes_;
  if (error_.empty()) error_ = other.error_;
}

std::string TaskFitErrors::Message() const {
  std::vector<std::string> reasons;
  reasons.reserve(reason_counts_.size());
  for (const auto& [r, c] : reason_counts_) reasons.push_back(std::to_string(c) + " " + r);
  std::sort(reasons.begin(), reasons.end());
  std::string base = error_.empty() ? std::string(kResourcesWereNotFound) : error_;
  if (!reasons.empty()) {
    base += ": ";
    for (size_t i = 0; i < reasons.size(); ++i) {
      if (i > 0) base += ". \n";
      base += reasons[i];
    }
    base += ".";
  }
  return base;
}

}  // namespace kai::scheduler
