// Why a task or a job could not be placed (KAI common_info errors): per-node reasons aggregated
// per task, and job-level reasons that become PodGroup scheduling conditions (§21.2).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
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

// Reasons per node name, shared between TaskFitErrors (copy on write): a task that fits nowhere
// records one entry per node, and every task of the same resource shape that finds the same
// nodes full records the same entries (framework/resource_fit_cache.h).
class NodeFitErrors {
 public:
  using Map = std::map<std::string, std::vector<std::string>>;
  explicit NodeFitErrors(Map nodes = {}) : nodes_(std::move(nodes)) {}
  const Map& nodes() const { return nodes_; }
  Map& mutable_nodes() {
    has_summary_ = false;
    return nodes_;
  }
  // "<count> <reason>. \n<count> <reason>" (reasons sorted as strings), computed once.
  const std::string& Summary() const;

 private:
  Map nodes_;
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
  bool empty() const { return error_.empty() && (nodes_ == nullptr || nodes_->nodes().empty()); }
  const std::string& error() const { return error_; }
  size_t num_nodes() const { return nodes_ == nullptr ? 0 : nodes_->nodes().size(); }
  // "<error or 'no nodes with enough resources were found'>: <count> <reason>. \n<count>
  // <reason>." (reasons sorted as strings, as KAI does).
  std::string Message() const;

 private:
  NodeFitErrors::Map& MutableNodes();

  std::string error_;
  std::shared_ptr<const NodeFitErrors> nodes_;
};

}  // namespace kai::scheduler
