#include "scheduler/api/fit_errors.h"

#include <algorithm>

namespace kai::scheduler {

void TaskFitErrors::AddNodeError(const NodeFitError& e) { nodes_[e.node_name] = e.reasons; }

void TaskFitErrors::Merge(const TaskFitErrors& other) {
  for (const auto& [node, reasons] : other.nodes_) nodes_[node] = reasons;
  if (error_.empty()) error_ = other.error_;
}

std::string TaskFitErrors::Message() const {
  std::map<std::string, int> counts;
  for (const auto& [node, reasons] : nodes_) {
    for (const auto& r : reasons) counts[r]++;
  }
  std::vector<std::string> reasons;
  reasons.reserve(counts.size());
  for (const auto& [r, c] : counts) reasons.push_back(std::to_string(c) + " " + r);
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

std::string JobFitErrorsToMessage(const std::vector<JobFitError>& errors) {
  std::map<std::string, int> counts;
  for (const auto& e : errors) counts[e.message]++;
  std::vector<std::string> lines;
  lines.reserve(counts.size());
  for (const auto& [message, count] : counts) {
    lines.push_back(count > 1 ? std::to_string(count) + " " + message : message);
  }
  std::sort(lines.begin(), lines.end());
  std::string out = errors.size() == 1 ? errors.front().reason : std::string(kDefaultPodGroupError);
  if (!lines.empty()) {
    out += ": ";
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) out += ". \n";
      out += lines[i];
    }
    out += ".";
  }
  return out;
}

}  // namespace kai::scheduler
