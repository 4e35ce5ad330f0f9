#include "scheduler/api/fit_errors.h"

#include <algorithm>

namespace kai::scheduler {

const std::string& NodeFitErrors::Summary() const {
  if (has_summary_) return summary_;
  std::map<std::string, int> counts;
  for (const auto& [node, reasons] : nodes_) {
    for (const auto& r : reasons) counts[r]++;
  }
  std::vector<std::string> reasons;
  reasons.reserve(counts.size());
  for (const auto& [r, c] : counts) reasons.push_back(std::to_string(c) + " " + r);
  std::sort(reasons.begin(), reasons.end());
  summary_.clear();
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i > 0) summary_ += ". \n";
    summary_ += reasons[i];
  }
  has_summary_ = true;
  return summary_;
}

NodeFitErrors::Map& TaskFitErrors::MutableNodes() {
  if (nodes_ == nullptr) {
    nodes_ = std::make_shared<NodeFitErrors>();
  } else if (nodes_.use_count() > 1) {
    nodes_ = std::make_shared<NodeFitErrors>(nodes_->nodes());
  }
  // Sole owner here: the const is only there to stop sharers from writing.
  return const_cast<NodeFitErrors*>(nodes_.get())->mutable_nodes();
}

void TaskFitErrors::AddNodeError(const NodeFitError& e) { MutableNodes()[e.node_name] = e.reasons; }

void TaskFitErrors::AddNodeErrors(const std::shared_ptr<const NodeFitErrors>& errors) {
  if (errors == nullptr || errors->nodes().empty()) return;
  if (nodes_ == nullptr || nodes_->nodes().empty()) {
    nodes_ = errors;
    return;
  }
  NodeFitErrors::Map& mine = MutableNodes();
  for (const auto& [node, reasons] : errors->nodes()) mine[node] = reasons;
}

void TaskFitErrors::Merge(const TaskFitErrors& other) {
  AddNodeErrors(other.nodes_);
  if (error_.empty()) error_ = other.error_;
}

std::string TaskFitErrors::Message() const {
  std::string base = error_.empty() ? std::string(kResourcesWereNotFound) : error_;
  // Nodes without reasons add nothing (not even the ": ").
  if (nodes_ != nullptr && !nodes_->Summary().empty()) {
    base += ": ";
    base += nodes_->Summary();
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
