// Label and field selectors with the Kubernetes query-string grammar (apimachinery
// pkg/labels and pkg/fields): labels support =, ==, !=, in, notin, exists (key), !exists (!key),
// gt and lt; fields support =, == and != with backslash escapes.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/base/statusor.h"

namespace kai::localkube {

using Labels = std::vector<std::pair<std::string, std::string>>;  // sorted by key

enum class SelectorOp { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

struct Requirement {
  std::string key;
  SelectorOp op = SelectorOp::kEquals;
  std::vector<std::string> values;  // sorted
};

class LabelSelector {
 public:
  // Matches everything.
  LabelSelector() = default;
  // Parses "a=b,c in (d,e),!f". Errors are InvalidArgument with reason BadRequest.
  static StatusOr<LabelSelector> Parse(std::string_view text);
  // From the metav1.LabelSelector JSON object ({"matchLabels":..,"matchExpressions":..}).
  static StatusOr<LabelSelector> FromJson(std::string_view json);

  bool Empty() const { return reqs_.empty(); }
  bool Matches(const Labels& labels) const;
  bool Matches(const std::map<std::string, std::string>& labels) const;
  const std::vector<Requirement>& requirements() const { return reqs_; }
  void Add(Requirement r) { reqs_.push_back(std::move(r)); }
  // Canonical text form (as labels.Selector.String()).
  std::string ToString() const;

 private:
  template <typename Lookup>
  bool MatchesWith(const Lookup& lookup) const;
  std::vector<Requirement> reqs_;
};

struct FieldRequirement {
  std::string field;
  bool equals = true;  // false for !=
  std::string value;
};

class FieldSelector {
 public:
  FieldSelector() = default;
  static StatusOr<FieldSelector> Parse(std::string_view text);
  bool Empty() const { return reqs_.empty(); }
  // `lookup(field)` returns the object's value for the field ("" when unset).
  template <typename Lookup>
  bool Matches(const Lookup& lookup) const {
    for (const FieldRequirement& r : reqs_) {
      if ((lookup(r.field) == r.value) != r.equals) return false;
    }
    return true;
  }
  const std::vector<FieldRequirement>& requirements() const { return reqs_; }

 private:
  std::vector<FieldRequirement> reqs_;
};

// api/validation.h's problems joined with "; " ("" when valid), as apimachinery's labels
// parser reports them.
std::string ValidateLabelValue(std::string_view v);
std::string ValidateQualifiedName(std::string_view v);

}  // namespace kai::localkube
