#include "scheduler/api/fit_errors.h"

#include <glog/logging.h>

#include <algorithm>

namespace kai::scheduler {

NodeFitErrors::NodeFitErrors(std::shared_ptr<const std::vector<std::string>> names,
                             std::vector<const Reasons*> reasons, std::shared_ptr<const void> owner)
    : names_(std::move(names)), reasons_(std::move(reasons)), owner_(std::move(owner)) {
  CHECK_EQ(names_->size(), reasons_.size());
  dense_size_ = reasons_.size() - std::count(reasons_.begin(), reasons_.end(), nullptr);
}

NodeFitErrors::Map NodeFitErrors::ToMap() const {
  if (names_ == nullptr) return map_;
  Map out;
  ForEach([&](const std::string& node, const Reasons& reasons) { out[node] = reasons; });
  return out;
}

NodeFitErrors::Map& NodeFitErrors::mutable_map() {
  if (names_ != nullptr) {
    map_ = ToMap();
    names_ = nullptr;
    reasons_.clear();
    owner_ = nullptr;
  }
  has_summary_ = false;
  return map_;
}

void NodeFitErrors::set_dense_at(size_t i, const Reasons* r) {
  CHECK(names_ != nullptr);
  dense_size_ += (r != nullptr) - (reasons_[i] != nullptr);
  reasons_[i] = r;
  has_summary_ = false;
}

const std::string& NodeFitErrors::Summary() const {
  if (has_summary_) return summary_;
  std::map<std::string, int> counts;
  if (names_ == nullptr) {
    for (const auto& [node, reasons] : map_) {
      for (const auto& r : reasons) counts[r]++;
    }
  } else {
    // Nodes share their lists: count the lists first, then their reasons.
    std::map<const Reasons*, int> lists;
    for (const Reasons* r : reasons_) {
      if (r != nullptr) lists[r]++;
    }
    for (const auto& [list, n] : lists) {
      for (const auto& r : *list) counts[r] += n;
    }
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
    nodes_ = std::make_shared<NodeFitErrors>(nodes_->ToMap());
  }
  // Sole owner here: the const is only there to stop sharers from writing.
  return const_cast<NodeFitErrors*>(nodes_.get())->mutable_map();
}

void TaskFitErrors::AddNodeError(const NodeFitError& e) { MutableNodes()[e.node_name] = e.reasons; }

void TaskFitErrors::AddNodeErrors(const std::shared_ptr<const NodeFitErrors>& errors) {
  if (errors == nullptr || errors->empty()) return;
  if (nodes_ == nullptr || nodes_->empty()) {
    nodes_ = errors;
    return;
  }
  NodeFitErrors::Map& mine = MutableNodes();
  errors->ForEach([&](const std::string& node, const NodeFitErrors::Reasons& reasons) {
    mine[node] = reasons;
  });
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
