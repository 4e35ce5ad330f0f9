// Label and field selectors with the Kubernetes query-string grammar (apimachinery
// pkg/labels and pkg/fields): labels support =, ==, !=, in, notin, exists (key), !exists (!key),
// gt and lt; fields support =, == and != with backslash escapes.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "kube/base/statusor.h"

namespace kai::localkube {

using Labels = std::vector<std::pair<std::string, std::string>>;  // sorted by key

// A label selector with apimachinery's grammar and matching (api::LabelSelectorMatcher), over
// the store's sorted label vectors; errors are 400 BadRequest, as the API server answers them.
class LabelSelector {
 public:
  // Matches everything.
  LabelSelector() = default;
  // Parses "a=b,c in (d,e),!f" (labels.Parse).
  static StatusOr<LabelSelector> Parse(std::string_view text);
  // metav1.LabelSelectorAsSelector of a {"matchLabels":..,"matchExpressions":..} object; null
  // matches everything.
  static StatusOr<LabelSelector> FromJson(std::string_view json);

  bool Empty() const { return matcher_.Empty(); }
  bool Matches(const Labels& labels) const;
  bool Matches(const std::map<std::string, std::string>& labels) const {
    return matcher_.Matches(labels);
  }
  // Canonical text form (labels.Selector.String(): requirements sorted by key).
  std::string ToString() const { return matcher_.ToString(); }

 private:
  explicit LabelSelector(api::LabelSelectorMatcher m) : matcher_(std::move(m)) {}
  api::LabelSelectorMatcher matcher_;
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

}  // namespace kai::localkube
