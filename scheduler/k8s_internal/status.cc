#include "scheduler/k8s_internal/status.h"

namespace kai::k8s_internal {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
  }
  return "Unknown";
}

std::string FilterResult::Message() const {
  if (taint_ != nullptr) {
    return "node(s) had untolerated taint {" + taint_->key + ": " + taint_->value + "}";
  }
  return std::string(reason_);
}

void DefaultNormalizeScore(int64_t max_priority, bool reverse, int64_t* scores, size_t n) {
  int64_t max_count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (scores[i] > max_count) max_count = scores[i];
  }
  if (max_count == 0) {
    if (reverse) {
      for (size_t i = 0; i < n; ++i) scores[i] = max_priority;
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t score = max_priority * scores[i] / max_count;
    if (reverse) score = max_priority - score;
    scores[i] = score;
  }
}

}  // namespace kai::k8s_internal
