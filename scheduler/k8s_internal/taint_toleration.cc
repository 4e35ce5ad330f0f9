#include "scheduler/k8s_internal/taint_toleration.h"

#include <optional>
#include <string_view>

#include "scheduler/k8s_internal/selector.h"

namespace kai::k8s_internal {
namespace {

// content.IsDecimalInteger: canonical decimal form ("0" or an optional '-' and no leading zero).
std::optional<int64_t> ParseCanonicalInteger(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  if (s == "-0") return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return ParseInt64(s);
}

}  // namespace

bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint,
                    const TaintTolerationOptions& options) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  const std::string& op = toleration.operator_;
  if (op.empty() || op == "Equal") return toleration.value == taint.value;
  if (op == "Exists") return true;
  if ((op == "Gt" || op == "Lt") && options.enable_comparison_operators) {
    std::optional<int64_t> tol = ParseCanonicalInteger(toleration.value);
    std::optional<int64_t> val = ParseCanonicalInteger(taint.value);
    if (!tol || !val) return false;
    return op == "Lt" ? *val < *tol : *val > *tol;
  }
  return false;
}

bool TolerationsTolerateTaint(std::span<const api::Toleration> tolerations, const api::Taint& taint,
                              const TaintTolerationOptions& options) {
  for (const api::Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint, options)) return true;
  }
  return false;
}

const api::Taint* FindUntoleratedTaint(std::span<const api::Taint> taints,
                                       std::span<const api::Toleration> tolerations,
                                       const TaintTolerationOptions& options) {
  for (const api::Taint& taint : taints) {
    if (taint.effect != kTaintEffectNoSchedule && taint.effect != kTaintEffectNoExecute) continue;
    if (!TolerationsTolerateTaint(tolerations, taint, options)) return &taint;
  }
  return nullptr;
}

FilterResult TaintTolerationFilter(const api::PodSpec& pod, const api::Node& node,
                                   const TaintTolerationOptions& options) {
  const api::Taint* taint = FindUntoleratedTaint(node.spec.taints, pod.tolerations, options);
  return taint == nullptr ? FilterResult::Success() : FilterResult::UntoleratedTaint(taint);
}

TaintTolerationScorer TaintTolerationScorer::PreScore(const api::Pod& pod,
                                                      const TaintTolerationOptions& options) {
  TaintTolerationScorer s;
  s.options_ = options;
  for (const api::Toleration& t : pod.spec.tolerations) {
    if (t.effect.empty() || t.effect == kTaintEffectPreferNoSchedule) {
      s.prefer_no_schedule_.push_back(t);
    }
  }
  return s;
}

int64_t TaintTolerationScorer::Score(const api::Node& node) const {
  int64_t intolerable = 0;
  for (const api::Taint& taint : node.spec.taints) {
    if (taint.effect != kTaintEffectPreferNoSchedule) continue;
    if (!TolerationsTolerateTaint(prefer_no_schedule_, taint, options_)) ++intolerable;
  }
  return intolerable;
}

void TaintTolerationScorer::NormalizeScore(std::span<int64_t> scores) {
  DefaultNormalizeScore(kMaxNodeScore, true, scores.data(), scores.size());
}

}  // namespace kai::k8s_internal
