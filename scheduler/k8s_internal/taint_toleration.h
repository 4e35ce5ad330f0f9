// TaintToleration (kube-scheduler plugins/tainttoleration + component-helpers
// scheduling/corev1 toleration matching): NoSchedule/NoExecute taints filter, PreferNoSchedule
// taints score.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "api/affinity.h"
#include "api/node.h"
#include "api/pod.h"
#include "scheduler/k8s_internal/status.h"

namespace kai::k8s_internal {

inline constexpr std::string_view kTaintEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kTaintEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kTaintEffectNoExecute = "NoExecute";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

struct TaintTolerationOptions {
  // Feature gate TaintTolerationComparisonOperators (alpha, off by default): tolerations with
  // operator Gt / Lt compare integer values.
  bool enable_comparison_operators = false;
};

// v1.Toleration.ToleratesTaint: empty effect matches every effect, empty key (with Exists)
// matches every key, operator "" means Equal, Exists ignores the value.
bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint,
                    const TaintTolerationOptions& options = {});
bool TolerationsTolerateTaint(std::span<const api::Toleration> tolerations, const api::Taint& taint,
                              const TaintTolerationOptions& options = {});

// The first NoSchedule/NoExecute taint (in node order) that no toleration tolerates, or null.
const api::Taint* FindUntoleratedTaint(std::span<const api::Taint> taints,
                                       std::span<const api::Toleration> tolerations,
                                       const TaintTolerationOptions& options = {});

// Filter: the plugin has no PreFilter (KAI marks it not required); the tolerations are read
// from the pod directly. Rejections are UnschedulableAndUnresolvable with
// "node(s) had untolerated taint {key: value}".
FilterResult TaintTolerationFilter(const api::PodSpec& pod, const api::Node& node,
                                   const TaintTolerationOptions& options = {});

// Score: the number of PreferNoSchedule taints not tolerated; normalized in reverse.
class TaintTolerationScorer {
 public:
  static TaintTolerationScorer PreScore(const api::Pod& pod,
                                        const TaintTolerationOptions& options = {});
  int64_t Score(const api::Node& node) const;
  // helper.DefaultNormalizeScore(MaxNodeScore, reverse=true).
  static void NormalizeScore(std::span<int64_t> scores);

 private:
  std::vector<api::Toleration> prefer_no_schedule_;  // effect "" or PreferNoSchedule
  TaintTolerationOptions options_;
};

}  // namespace kai::k8s_internal
