// Why a task or a job could not be placed (KAI common_info errors): per-node reasons aggregated
// per task, and job-level reasons that become PodGroup scheduling conditions (§21.2).
#pragma once

#include <map>
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

// Reasons a single node rejected a task.
struct NodeFitError {
  std::string node_name;
  std::vector<std::string> reasons;
};

// Aggregated per task: counts of identical reasons over nodes, plus an optional task-level error
// (pre-predicate failures). Message format follows KAI's TasksFitErrors.Error().
class TaskFitErrors {
 public:
  void SetError(std::string err) { error_ = std::move(err); }
  void AddNodeError(const NodeFitError& e);
  void Merge(const TaskFitErrors& other);
  bool empty() const { return error_.empty() && reason_counts_.empty(); }
  // "0/N nodes are available: 2 node(s) ...". With only a task-level error, that error.
  std::string Message() const;

 private:
  std::string error_;
  std::map<std::string, int> reason_counts_;
  int nodes_ = 0;
};

}  // namespace kai::scheduler
