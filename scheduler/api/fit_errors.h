// Why a task or a job could not be placed (KAI common_info errors): per-node reasons aggregated
// per task, and job-level reasons that become PodGroup scheduling conditions (§21.2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kai::scheduler {

inline constexpr std::string_view kReasonPodSchedulingErrors = "PodSchedulingErrors";
inline constexpr std::string_view kReasonOverLimit = "OverLimit";
inline constexpr std::string_view kReasonNonPreemptibleOverQuota = "NonPreemptibleOverQuota";
inline constexpr std::string_view kReasonQueueDoesNotExist = "QueueDoesNotExist";
inline constexpr std::string_view kReasonOverCapacity = "OverCapacity";
inline constexpr std::string_view kDefaultPodError = "Unable to schedule pod";
inline constexpr std::string_view kDefaultPodGroupError = "Unable to schedule podgroup";
inline constexpr std::string_view kResourcesWereNotFound =
    "no nodes with enough resources were found";

// Queue numbers attached to capacity reasons (PodGroup condition details.queueDetails).
struct QueueDetails {
  std::string name;
  std::map<std::string, double> requested, deserved, allocated, allocated_non_preemptible, limits,
      podgroup_requested, podgroup_requested_non_preemptible;
};

struct JobFitError {
  std::string reason;
  std::string message;
  std::optional<QueueDetails> details;
};

// KAI's common_info.JobFitErrorsToMessage: the reason of the only fit error (or "Unable to
// schedule podgroup" when there are several or none), then ": " and the distinct messages with
// their counts ("2 <message>" when repeated), sorted, joined by ". \n", and a final ".".
std::string JobFitErrorsToMessage(const std::vector<JobFitError>& errors);

// Reasons a single node rejected a task.
struct NodeFitError {
  std::string node_name;
  std::vector<std::string> reasons;
};

// Which resource checks a task failed on a node (NodeInfo::FittingFailures): the content of its
// insufficient-resource reasons without their strings, so that nodes failing alike can share one
// reason list.
struct FitFailures {
  uint64_t low = 0;       // bit i: resource-vector index i < 64 (GPUs at kGpuIndex)
  std::vector<int> high;  // indices >= 64, ascending
  bool gpu_memory = false;
  std::vector<std::string> mig_profiles;  // in the task's MIG request order

  void Set(int i) {
    if (i < 64) {
      low |= uint64_t{1} << i;
    } else {
      high.push_back(i);
    }
  }
  bool Has(int i) const {
    return i < 64 ? (low >> i & 1) != 0 : std::binary_search(high.begin(), high.end(), i);
  }
  bool operator==(const FitFailures&) const = default;
  bool operator<(const FitFailures& o) const {
    return std::tie(low, high, gpu_memory, mig_profiles) <
           std::tie(o.low, o.high, o.gpu_memory, o.mig_profiles);
  }
};

// Reasons per node name, shared between TaskFitErrors (copy on write). Two forms: a map (what
// node-by-node recording and merges write) and a dense form, one pointer per node of a node set
// to a reason list that nodes failing alike share (what framework/resource_fit_cache.h builds: a
// task that fits nowhere records every node, so an entry spans the whole cluster).
class NodeFitErrors {
 public:
  using Map = std::map<std::string, std::vector<std::string>>;
  using Reasons = std::vector<std::string>;

  explicit NodeFitErrors(Map nodes = {}) : map_(std::move(nodes)) {}
  // Node names[i] has the reasons *reasons[i] (nullptr: no entry); `owner` keeps them alive.
  NodeFitErrors(std::shared_ptr<const std::vector<std::string>> names,
                std::vector<const Reasons*> reasons, std::shared_ptr<const void> owner);

  // Nodes with an entry.
  size_t size() const { return names_ != nullptr ? dense_size_ : map_.size(); }
  bool empty() const { return size() == 0; }
  template <typename F>  // f(const std::string& node, const Reasons&)
  void ForEach(F f) const {
    if (names_ == nullptr) {
      for (const auto& [node, reasons] : map_) f(node, reasons);
      return;
    }
    for (size_t i = 0; i < reasons_.size(); ++i) {
      if (reasons_[i] != nullptr) f((*names_)[i], *reasons_[i]);
    }
  }
  Map ToMap() const;
  // The map form, for writing (a dense form is converted first).
  Map& mutable_map();
  // Dense form: node i's reasons (nullptr: none).
  const Reasons* dense_at(size_t i) const { return reasons_[i]; }
  void set_dense_at(size_t i, const Reasons* r);

  // "<count> <reason>. \n<count> <reason>" (reasons sorted as strings), computed once.
  const std::string& Summary() const;

 private:
  Map map_;
  std::shared_ptr<const std::vector<std::string>> names_;  // set: the dense form
  std::vector<const Reasons*> reasons_;
  size_t dense_size_ = 0;
  std::shared_ptr<const void> owner_;
  mutable bool has_summary_ = false;
  mutable std::string summary_;
};

// Aggregated per task: the latest reasons of every node that rejected it, plus an optional
// task-level error (pre-predicate failures). Message format follows KAI's TasksFitErrors.Error():
// nodes are keyed by name, so a node tried several times (topology domains, elastic retries)
// counts once.
class TaskFitErrors {
 public:
  void SetError(std::string err) { error_ = std::move(err); }
  void AddNodeError(const NodeFitError& e);
  // Adds (overwrites) the reasons of every node in `errors`; shares them when this has none.
  void AddNodeErrors(const std::shared_ptr<const NodeFitErrors>& errors);
  void Merge(const TaskFitErrors& other);
  bool empty() const { return error_.empty() && (nodes_ == nullptr || nodes_->empty()); }
  const std::string& error() const { return error_; }
  size_t num_nodes() const { return nodes_ == nullptr ? 0 : nodes_->size(); }
  // "<error or 'no nodes with enough resources were found'>: <count> <reason>. \n<count>
  // <reason>." (reasons sorted as strings, as KAI does).
  std::string Message() const;

 private:
  NodeFitErrors::Map& MutableNodes();

  std::string error_;
  std::shared_ptr<const NodeFitErrors> nodes_;
};

}  // namespace kai::scheduler
