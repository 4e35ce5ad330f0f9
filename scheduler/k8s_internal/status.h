// Plugin results with kube-scheduler's status codes and reason strings.
//
// A FilterResult is returned for every (task, node) pair, so it never allocates: the reason is
// a string with static storage, and the untolerated-taint reason points at the node's taint
// (the node must outlive the result; Message() formats it when a caller needs the text).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/affinity.h"

namespace kai::k8s_internal {

// framework.Code (kube-scheduler).
enum class Code : uint8_t {
  kSuccess,
  kError,
  // Rejected, but preemption/eviction on the node might help.
  kUnschedulable,
  // Rejected, and removing pods from the node would not help.
  kUnschedulableAndUnresolvable,
  kWait,
  // PreFilter/PreScore: the plugin has nothing to do for this pod; skip its Filter/Score.
  kSkip,
};

std::string_view CodeName(Code code);

// Reason strings, exactly as kube-scheduler's plugins and KAI report them.
inline constexpr std::string_view kErrReasonNodeAffinity =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kErrReasonNodeAffinityConflict = "pod affinity terms conflict";
inline constexpr std::string_view kErrReasonNodePorts =
    "node(s) didn't have free ports for the requested pod ports";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch =
    "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch =
    "node(s) didn't match pod anti-affinity rules";
inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
// NodeUnschedulable plugin (upstream wording; KAI's own node-condition messages are in
// node_conditions.h).
inline constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";
// KAI's pod-count predicate (pkg/scheduler/api NodePodNumberExceeded).
inline constexpr std::string_view kErrReasonPodNumberExceeded = "node(s) pod number exceeded";

// Result of a per-pod step (PreFilter / PreScore): owns its message, allocated only on failure.
class PluginStatus {
 public:
  PluginStatus() = default;  // success
  PluginStatus(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static PluginStatus Skip() { return PluginStatus(Code::kSkip, ""); }

  Code code() const { return code_; }
  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  // Neither success nor skip: the pod cannot be scheduled (or an error occurred).
  bool IsRejected() const { return !IsSuccess() && !IsSkip(); }
  const std::string& message() const { return message_; }
  bool operator==(const PluginStatus&) const = default;

 private:
  Code code_ = Code::kSuccess;
  std::string message_;
};

// Result of a per-node Filter. Trivially copyable; never allocates.
class FilterResult {
 public:
  FilterResult() = default;  // success
  static FilterResult Success() { return FilterResult(); }
  // `reason` must have static storage duration (one of the kErrReason* constants).
  static FilterResult Fail(Code code, std::string_view reason) {
    FilterResult r;
    r.code_ = code;
    r.reason_ = reason;
    return r;
  }
  // TaintToleration: "node(s) had untolerated taint {key: value}". `taint` points into the node.
  static FilterResult UntoleratedTaint(const api::Taint* taint) {
    FilterResult r;
    r.code_ = Code::kUnschedulableAndUnresolvable;
    r.taint_ = taint;
    return r;
  }

  bool ok() const { return code_ == Code::kSuccess; }
  Code code() const { return code_; }
  // The untolerated taint, when this is a TaintToleration rejection.
  const api::Taint* taint() const { return taint_; }
  // The reason as kube-scheduler words it ("" on success).
  std::string Message() const;

 private:
  Code code_ = Code::kSuccess;
  std::string_view reason_;
  const api::Taint* taint_ = nullptr;
};

// DefaultNormalizeScore (kube-scheduler plugins/helper): scales scores to [0, max_priority]
// by the maximum; `reverse` flips them (higher raw score -> lower normalized score).
inline constexpr int64_t kMaxNodeScore = 100;
void DefaultNormalizeScore(int64_t max_priority, bool reverse, int64_t* scores, size_t n);

}  // namespace kai::k8s_internal
