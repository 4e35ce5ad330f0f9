// Compiled label selectors with k8s.io/apimachinery/pkg/labels semantics, as kube-scheduler
// uses them: metav1.LabelSelector (pod affinity terms, namespace selectors) and
// []NodeSelectorRequirement (node affinity matchExpressions, incl. Gt/Lt).
//
// Compile once (per pod, in PreFilter/PreScore), match many times (per node / per existing pod)
// without allocating.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/affinity.h"
#include "api/meta.h"
#include "kube/base/status.h"
#include "kube/base/statusor.h"

namespace kai::k8s_internal {

using LabelMap = std::map<std::string, std::string>;

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits only, no overflow.
std::optional<int64_t> ParseInt64(std::string_view s);

// Label key (qualified name) and value validation with apimachinery's messages.
Status ValidateLabelKey(std::string_view key);
Status ValidateLabelValue(std::string_view value);

// labels.Requirement.
class Requirement {
 public:
  enum class Op : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

  // labels.NewRequirement: validates the key, the values for the operator and each value.
  // `path` prefixes error messages (e.g. "matchExpressions[0]").
  static StatusOr<Requirement> Create(std::string key, Op op, std::vector<std::string> values,
                                      std::string_view path = "");

  bool Matches(const LabelMap& labels) const;

  const std::string& key() const { return key_; }
  Op op() const { return op_; }
  const std::vector<std::string>& values() const { return values_; }  // sorted, unique

  // Stable textual form, used to deduplicate identical terms.
  void AppendCanonical(std::string* out) const;

 private:
  bool HasValue(std::string_view v) const;

  std::string key_;
  Op op_ = Op::kExists;
  std::vector<std::string> values_;
  int64_t number_ = 0;  // Gt / Lt operand
};

// labels.Selector: a conjunction of requirements, or Nothing().
class Selector {
 public:
  // Everything(): no requirements, matches all label sets.
  Selector() = default;
  static Selector Nothing();

  bool Matches(const LabelMap& labels) const;
  // Selector.Empty(): true for Everything(), false for Nothing() and any requirement.
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  bool IsNothing() const { return nothing_; }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  void Add(Requirement r) { requirements_.push_back(std::move(r)); }

  void AppendCanonical(std::string* out) const;

 private:
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

// metav1.LabelSelectorAsSelector: nullptr -> Nothing(), {} -> Everything().
StatusOr<Selector> LabelSelectorAsSelector(const api::LabelSelector* selector);

// nodeSelectorRequirementsAsSelector (component-helpers nodeaffinity): empty -> Nothing().
// `path` prefixes error messages.
StatusOr<Selector> NodeSelectorRequirementsAsSelector(
    std::span<const api::NodeSelectorRequirement> requirements, std::string_view path);

}  // namespace kai::k8s_internal
