// Label selectors: the string syntax of list/watch queries ("a=b,c!=d,e in (x,y),!f,g") and
// metav1.LabelSelector, with Kubernetes' matching semantics (k8s.io/apimachinery/pkg/labels).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "kube/base/statusor.h"

namespace kai::api {

class LabelSelectorMatcher {
 public:
  struct Requirement {
    // kDoubleEquals ("==") matches like kEquals and is kept only so that ToString() prints what
    // was parsed, as Kubernetes does.
    enum class Op {
      kEquals,
      kNotEquals,
      kIn,
      kNotIn,
      kExists,
      kDoesNotExist,
      kGt,
      kLt,
      kDoubleEquals
    };
    std::string key;
    Op op;
    std::vector<std::string> values;  // sorted, as Kubernetes keeps them
    bool operator==(const Requirement&) const = default;

    bool Matches(const std::map<std::string, std::string>& labels) const;
    // `value` is the object's value for `key`, nullptr when it has no such label.
    bool MatchesValue(const std::string* value) const;
    // "key=value", "key in (a,b)", "!key", "key>3" ...
    std::string ToString() const;
  };

  // Matches everything.
  LabelSelectorMatcher() = default;

  // String syntax (labels.Parse): validates keys and values; errors carry apimachinery's
  // messages ("unable to parse requirement: ..."). An empty or blank string matches everything.
  static StatusOr<LabelSelectorMatcher> Parse(std::string_view selector);
  // metav1.LabelSelectorAsSelector: an empty selector matches everything.
  static StatusOr<LabelSelectorMatcher> FromLabelSelector(const LabelSelector& selector);
  // A nil *metav1.LabelSelector matches nothing; an empty one everything.
  static StatusOr<LabelSelectorMatcher> FromLabelSelector(const LabelSelector* selector);
  // A selector that matches nothing (Kubernetes labels.Nothing()).
  static LabelSelectorMatcher Nothing();
  // Equality requirements for every entry (labels.SelectorFromSet); keys and values validated.
  static StatusOr<LabelSelectorMatcher> FromSet(const std::map<std::string, std::string>& set);

  bool Matches(const std::map<std::string, std::string>& labels) const;
  // For label sets held otherwise: `lookup(key)` returns a const std::string* (nullptr: absent).
  template <typename Lookup>
  bool MatchesLookup(const Lookup& lookup) const {
    if (nothing_) return false;
    for (const Requirement& r : requirements_) {
      if (!r.MatchesValue(lookup(r.key))) return false;
    }
    return true;
  }
  bool Empty() const { return requirements_.empty() && !nothing_; }
  bool IsNothing() const { return nothing_; }
  const std::vector<Requirement>& requirements() const { return requirements_; }

  // Canonical string form (requirements sorted by key), parseable by Parse().
  std::string ToString() const;

 private:
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

// Validation of label keys ("prefix/name") and values, as Kubernetes does; the returned
// messages match apimachinery's (validation.IsQualifiedName / IsValidLabelValue, joined by
// "; ").
Status ValidateLabelKey(std::string_view key);
Status ValidateLabelValue(std::string_view value);

}  // namespace kai::api
