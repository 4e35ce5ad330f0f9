#include "scheduler/k8s_internal/selector.h"

#include <algorithm>
#include <limits>

#include "api/validation.h"
#include "kube/base/strings.h"

namespace kai::k8s_internal {
namespace {

Status Invalid(std::string_view path, std::string_view value, std::string_view detail) {
  std::string msg;
  if (!path.empty()) {
    msg.append(path);
    msg.append(": ");
  }
  msg.append("Invalid value: ");
  msg.append(Quote(value));
  msg.append(": ");
  msg.append(detail);
  return InvalidArgumentError(msg);
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  std::string out(a);
  if (!b.empty() && b.front() != '[') out.push_back('.');
  out.append(b);
  return out;
}

Status InvalidValues(std::string_view path, const std::vector<std::string>& values,
                     std::string_view detail) {
  std::string rendered = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) rendered.push_back(' ');
    rendered.append(values[i]);
  }
  rendered.push_back(']');
  std::string msg;
  if (!path.empty()) {
    msg.append(path);
    msg.append(": ");
  }
  msg.append("Invalid value: ");
  msg.append(rendered);
  msg.append(": ");
  msg.append(detail);
  return InvalidArgumentError(msg);
}

std::string_view OpName(Requirement::Op op) {
  switch (op) {
    case Requirement::Op::kIn:
      return "in";
    case Requirement::Op::kNotIn:
      return "notin";
    case Requirement::Op::kExists:
      return "exists";
    case Requirement::Op::kDoesNotExist:
      return "!";
    case Requirement::Op::kGt:
      return "gt";
    case Requirement::Op::kLt:
      return "lt";
  }
  return "?";
}

}  // namespace

std::optional<int64_t> ParseInt64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) return std::nullopt;
  // Accumulate as a negative number so that INT64_MIN parses.
  int64_t acc = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return std::nullopt;
    int digit = c - '0';
    if (acc < kMin / 10) return std::nullopt;
    acc *= 10;
    if (acc < kMin + digit) return std::nullopt;
    acc -= digit;
  }
  if (negative) return acc;
  if (acc == kMin) return std::nullopt;
  return -acc;
}

Status ValidateLabelKey(std::string_view key) {
  const std::vector<std::string> problems = api::IsQualifiedName(key);
  if (problems.empty()) return Status::OK();
  return Invalid("key", key, StrJoin(problems, "; "));
}

Status ValidateLabelValue(std::string_view value) {
  const std::vector<std::string> problems = api::IsValidLabelValue(value);
  if (problems.empty()) return Status::OK();
  return Invalid("", value, StrJoin(problems, "; "));
}

StatusOr<Requirement> Requirement::Create(std::string key, Op op, std::vector<std::string> values,
                                          std::string_view path) {
  if (Status s = ValidateLabelKey(key); !s.ok()) {
    return InvalidArgumentError(std::string(path.empty() ? "" : std::string(path) + ".") +
                                std::string(s.message()));
  }
  const std::string values_path = JoinPath(path, "values");
  Requirement r;
  switch (op) {
    case Op::kIn:
    case Op::kNotIn:
      if (values.empty()) {
        return InvalidValues(values_path, values,
                             "for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!values.empty()) {
        return InvalidValues(values_path, values,
                             "values set must be empty for exists and does not exist");
      }
      break;
    case Op::kGt:
    case Op::kLt: {
      if (values.size() != 1) {
        return InvalidValues(values_path, values,
                             "for 'Gt', 'Lt' operators, exactly one value is required");
      }
      std::optional<int64_t> n = ParseInt64(values[0]);
      if (!n) {
        return Invalid(values_path + "[0]", values[0],
                       "for 'Gt', 'Lt' operators, the value must be an integer");
      }
      r.number_ = *n;
      break;
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (Status s = ValidateLabelValue(values[i]); !s.ok()) {
      return InvalidArgumentError(
          StrCat(values_path, "[", std::to_string(i), "][", key, "]: ", s.message()));
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  r.key_ = std::move(key);
  r.op_ = op;
  r.values_ = std::move(values);
  return r;
}

bool Requirement::HasValue(std::string_view v) const {
  // Values are few; a linear scan beats binary search for the common 1-3 values.
  if (values_.size() <= 8) {
    for (const std::string& x : values_) {
      if (x == v) return true;
    }
    return false;
  }
  return std::binary_search(values_.begin(), values_.end(), v);
}

bool Requirement::Matches(const LabelMap& labels) const {
  auto it = labels.find(key_);
  const bool has = it != labels.end();
  switch (op_) {
    case Op::kIn:
      return has && HasValue(it->second);
    case Op::kNotIn:
      return !has || !HasValue(it->second);
    case Op::kExists:
      return has;
    case Op::kDoesNotExist:
      return !has;
    case Op::kGt:
    case Op::kLt: {
      if (!has) return false;
      std::optional<int64_t> v = ParseInt64(it->second);
      if (!v) return false;
      return op_ == Op::kGt ? *v > number_ : *v < number_;
    }
  }
  return false;
}

void Requirement::AppendCanonical(std::string* out) const {
  out->append(key_);
  out->push_back(' ');
  out->append(OpName(op_));
  out->push_back('(');
  for (size_t i = 0; i < values_.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(values_[i]);
  }
  out->push_back(')');
}

Selector Selector::Nothing() {
  Selector s;
  s.nothing_ = true;
  return s;
}

bool Selector::Matches(const LabelMap& labels) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

void Selector::AppendCanonical(std::string* out) const {
  if (nothing_) {
    out->append("<nothing>");
    return;
  }
  // Requirements are ANDed: order them so that equivalent selectors share one form.
  std::vector<std::string> parts;
  parts.reserve(requirements_.size());
  for (const Requirement& r : requirements_) {
    std::string p;
    r.AppendCanonical(&p);
    parts.push_back(std::move(p));
  }
  std::sort(parts.begin(), parts.end());
  out->push_back('{');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out->push_back(';');
    out->append(parts[i]);
  }
  out->push_back('}');
}

StatusOr<Selector> LabelSelectorAsSelector(const api::LabelSelector* selector) {
  if (selector == nullptr) return Selector::Nothing();
  Selector out;
  if (selector->match_labels.empty() && selector->match_expressions.empty()) return out;
  for (const auto& [k, v] : selector->match_labels) {
    KAI_ASSIGN_OR_RETURN(Requirement r, Requirement::Create(k, Requirement::Op::kIn, {v}));
    out.Add(std::move(r));
  }
  for (const api::LabelSelectorRequirement& expr : selector->match_expressions) {
    Requirement::Op op;
    if (expr.operator_ == "In") {
      op = Requirement::Op::kIn;
    } else if (expr.operator_ == "NotIn") {
      op = Requirement::Op::kNotIn;
    } else if (expr.operator_ == "Exists") {
      op = Requirement::Op::kExists;
    } else if (expr.operator_ == "DoesNotExist") {
      op = Requirement::Op::kDoesNotExist;
    } else {
      return InvalidArgumentError(Quote(expr.operator_) +
                                  " is not a valid label selector operator");
    }
    KAI_ASSIGN_OR_RETURN(Requirement r, Requirement::Create(expr.key, op, expr.values));
    out.Add(std::move(r));
  }
  return out;
}

StatusOr<Selector> NodeSelectorRequirementsAsSelector(
    std::span<const api::NodeSelectorRequirement> requirements, std::string_view path) {
  if (requirements.empty()) return Selector::Nothing();
  Selector out;
  for (size_t i = 0; i < requirements.size(); ++i) {
    const api::NodeSelectorRequirement& expr = requirements[i];
    const std::string p = std::string(path) + "[" + std::to_string(i) + "]";
    Requirement::Op op;
    if (expr.operator_ == "In") {
      op = Requirement::Op::kIn;
    } else if (expr.operator_ == "NotIn") {
      op = Requirement::Op::kNotIn;
    } else if (expr.operator_ == "Exists") {
      op = Requirement::Op::kExists;
    } else if (expr.operator_ == "DoesNotExist") {
      op = Requirement::Op::kDoesNotExist;
    } else if (expr.operator_ == "Gt") {
      op = Requirement::Op::kGt;
    } else if (expr.operator_ == "Lt") {
      op = Requirement::Op::kLt;
    } else {
      return InvalidArgumentError(
          p + ".operator: Unsupported value: " + Quote(expr.operator_) +
          ": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"");
    }
    KAI_ASSIGN_OR_RETURN(Requirement r, Requirement::Create(expr.key, op, expr.values, p));
    out.Add(std::move(r));
  }
  return out;
}

}  // namespace kai::k8s_internal
