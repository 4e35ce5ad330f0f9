#include "test/localkube/selector.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "api/validation.h"
#include "kube/base/strings.h"
#include "test/localkube/json.h"

namespace kai::localkube {
namespace {

Status BadRequest(const std::string& msg) {
  Status s = InvalidArgumentError(msg);
  s.SetReason("BadRequest").SetHttpCode(400);
  return s;
}

bool IsSpecial(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '!' || c == '=' || c == ',' ||
         c == '(' || c == ')' || c == '<' || c == '>';
}

bool ParseInt64(std::string_view s, long long* out) {
  if (s.empty()) return false;
  std::string tmp(s);
  errno = 0;
  char* end = nullptr;
  *out = std::strtoll(tmp.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  void SkipWs() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Done() {
    SkipWs();
    return pos_ >= s_.size();
  }
  char Peek() {
    SkipWs();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool Consume(std::string_view tok) {
    SkipWs();
    if (s_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  std::string Ident() {
    SkipWs();
    size_t start = pos_;
    while (pos_ < s_.size() && !IsSpecial(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

Status ValidateKey(const std::string& key) {
  std::string err = ValidateQualifiedName(key);
  if (!err.empty())
    return BadRequest("unable to parse requirement: invalid label key \"" + key + "\": " + err);
  return Status::OK();
}

Status ValidateValue(const std::string& key, const std::string& v) {
  std::string err = ValidateLabelValue(v);
  if (!err.empty()) {
    return BadRequest("unable to parse requirement: invalid label value: \"" + v +
                      "\": at key: \"" + key + "\": " + err);
  }
  return Status::OK();
}

}  // namespace

std::string ValidateLabelValue(std::string_view v) {
  return StrJoin(api::IsValidLabelValue(v), "; ");
}

std::string ValidateQualifiedName(std::string_view v) {
  return StrJoin(api::IsQualifiedName(v), "; ");
}

StatusOr<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector sel;
  Lexer lx(text);
  if (lx.Done()) return sel;
  while (true) {
    Requirement r;
    if (lx.Consume("!")) {
      r.key = lx.Ident();
      if (r.key.empty()) return BadRequest("unable to parse requirement: missing key after '!'");
      KAI_RETURN_IF_ERROR(ValidateKey(r.key));
      r.op = SelectorOp::kDoesNotExist;
    } else {
      r.key = lx.Ident();
      if (r.key.empty()) {
        return BadRequest("unable to parse requirement: found '" + std::string(1, lx.Peek()) +
                          "', expected: identifier");
      }
      KAI_RETURN_IF_ERROR(ValidateKey(r.key));
      if (lx.Done() || lx.Peek() == ',') {
        r.op = SelectorOp::kExists;
      } else if (lx.Consume("==") || lx.Consume("=")) {
        r.op = SelectorOp::kEquals;
      } else if (lx.Consume("!=")) {
        r.op = SelectorOp::kNotEquals;
      } else if (lx.Consume(">")) {
        r.op = SelectorOp::kGt;
      } else if (lx.Consume("<")) {
        r.op = SelectorOp::kLt;
      } else {
        std::string word = lx.Ident();
        if (word == "in") {
          r.op = SelectorOp::kIn;
        } else if (word == "notin") {
          r.op = SelectorOp::kNotIn;
        } else {
          return BadRequest("unable to parse requirement: found '" + word +
                            "', expected: in, notin, =, ==, !=, gt, lt");
        }
        if (!lx.Consume("(")) {
          return BadRequest("unable to parse requirement: found '" + std::string(1, lx.Peek()) +
                            "', expected: '('");
        }
        while (true) {
          if (lx.Consume(")")) break;
          std::string v = lx.Ident();
          KAI_RETURN_IF_ERROR(ValidateValue(r.key, v));
          r.values.push_back(v);
          if (lx.Consume(",")) continue;
          if (lx.Consume(")")) break;
          return BadRequest("unable to parse requirement: found '" + std::string(1, lx.Peek()) +
                            "', expected: ',' or ')'");
        }
        if (r.values.empty() && r.op == SelectorOp::kIn) {
          return BadRequest(
              "unable to parse requirement: for 'in', 'notin' operators, values "
              "set can't be empty");
        }
      }
      if (r.op == SelectorOp::kEquals || r.op == SelectorOp::kNotEquals) {
        std::string v = lx.Ident();
        KAI_RETURN_IF_ERROR(ValidateValue(r.key, v));
        r.values.push_back(v);
      } else if (r.op == SelectorOp::kGt || r.op == SelectorOp::kLt) {
        std::string v = lx.Ident();
        long long n = 0;
        if (!ParseInt64(v, &n)) {
          return BadRequest(
              "unable to parse requirement: for 'Gt', 'Lt' operators, the value "
              "must be an integer");
        }
        r.values.push_back(v);
      }
    }
    std::sort(r.values.begin(), r.values.end());
    r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
    sel.reqs_.push_back(std::move(r));
    if (lx.Done()) break;
    if (!lx.Consume(",")) {
      return BadRequest("unable to parse requirement: found '" + std::string(1, lx.Peek()) +
                        "', expected: ','");
    }
  }
  return sel;
}

StatusOr<LabelSelector> LabelSelector::FromJson(std::string_view json) {
  KAI_ASSIGN_OR_RETURN(JsonDoc doc, ::kai::localkube::Parse(json));
  LabelSelector sel;
  if (doc.IsNull()) return sel;
  if (!doc.IsObject()) return BadRequest("label selector must be an object");
  if (const Json* ml = Member(doc, "matchLabels"); ml != nullptr && ml->IsObject()) {
    for (auto it = ml->MemberBegin(); it != ml->MemberEnd(); ++it) {
      Requirement r;
      r.key = std::string(View(it->name));
      r.op = SelectorOp::kEquals;
      r.values.push_back(std::string(View(it->value)));
      sel.reqs_.push_back(std::move(r));
    }
  }
  if (const Json* me = Member(doc, "matchExpressions"); me != nullptr && me->IsArray()) {
    for (const Json& e : me->GetArray()) {
      Requirement r;
      r.key = GetStr(e, {"key"});
      const std::string op = GetStr(e, {"operator"});
      if (op == "In") {
        r.op = SelectorOp::kIn;
      } else if (op == "NotIn") {
        r.op = SelectorOp::kNotIn;
      } else if (op == "Exists") {
        r.op = SelectorOp::kExists;
      } else if (op == "DoesNotExist") {
        r.op = SelectorOp::kDoesNotExist;
      } else {
        return BadRequest("\"" + op + "\" is not a valid label selector operator");
      }
      if (const Json* vals = Member(e, "values"); vals != nullptr && vals->IsArray()) {
        for (const Json& v : vals->GetArray()) r.values.push_back(std::string(View(v)));
      }
      std::sort(r.values.begin(), r.values.end());
      sel.reqs_.push_back(std::move(r));
    }
  }
  return sel;
}

template <typename Lookup>
bool LabelSelector::MatchesWith(const Lookup& lookup) const {
  for (const Requirement& r : reqs_) {
    const std::string* v = lookup(r.key);
    switch (r.op) {
      case SelectorOp::kEquals:
      case SelectorOp::kIn:
        if (v == nullptr || !std::binary_search(r.values.begin(), r.values.end(), *v)) {
          return false;
        }
        break;
      case SelectorOp::kNotEquals:
      case SelectorOp::kNotIn:
        if (v != nullptr && std::binary_search(r.values.begin(), r.values.end(), *v)) {
          return false;
        }
        break;
      case SelectorOp::kExists:
        if (v == nullptr) return false;
        break;
      case SelectorOp::kDoesNotExist:
        if (v != nullptr) return false;
        break;
      case SelectorOp::kGt:
      case SelectorOp::kLt: {
        long long have = 0, want = 0;
        if (v == nullptr || !ParseInt64(*v, &have) || r.values.empty() ||
            !ParseInt64(r.values[0], &want)) {
          return false;
        }
        if (r.op == SelectorOp::kGt ? !(have > want) : !(have < want)) return false;
        break;
      }
    }
  }
  return true;
}

bool LabelSelector::Matches(const Labels& labels) const {
  if (reqs_.empty()) return true;
  return MatchesWith([&](const std::string& key) -> const std::string* {
    auto it = std::lower_bound(labels.begin(), labels.end(), key,
                               [](const auto& p, const std::string& k) { return p.first < k; });
    return (it != labels.end() && it->first == key) ? &it->second : nullptr;
  });
}

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  if (reqs_.empty()) return true;
  return MatchesWith([&](const std::string& key) -> const std::string* {
    auto it = labels.find(key);
    return it == labels.end() ? nullptr : &it->second;
  });
}

std::string LabelSelector::ToString() const {
  std::string out;
  for (const Requirement& r : reqs_) {
    if (!out.empty()) out += ",";
    switch (r.op) {
      case SelectorOp::kEquals:
        out += r.key + "=" + (r.values.empty() ? "" : r.values[0]);
        break;
      case SelectorOp::kNotEquals:
        out += r.key + "!=" + (r.values.empty() ? "" : r.values[0]);
        break;
      case SelectorOp::kIn:
      case SelectorOp::kNotIn: {
        out += r.key + (r.op == SelectorOp::kIn ? " in (" : " notin (");
        for (size_t i = 0; i < r.values.size(); ++i) out += (i ? "," : "") + r.values[i];
        out += ")";
        break;
      }
      case SelectorOp::kExists:
        out += r.key;
        break;
      case SelectorOp::kDoesNotExist:
        out += "!" + r.key;
        break;
      case SelectorOp::kGt:
        out += r.key + ">" + (r.values.empty() ? "" : r.values[0]);
        break;
      case SelectorOp::kLt:
        out += r.key + "<" + (r.values.empty() ? "" : r.values[0]);
        break;
    }
  }
  return out;
}

StatusOr<FieldSelector> FieldSelector::Parse(std::string_view text) {
  FieldSelector sel;
  // Split on unescaped commas, then on the first unescaped operator.
  std::vector<std::string> terms;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      cur += text[i];
      cur += text[++i];
    } else if (text[i] == ',') {
      terms.push_back(cur);
      cur.clear();
    } else {
      cur += text[i];
    }
  }
  terms.push_back(cur);
  auto unescape = [](std::string_view s) -> StatusOr<std::string> {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\') {
        if (i + 1 >= s.size()) return BadRequest("invalid field selector: trailing backslash");
        const char n = s[++i];
        if (n != '\\' && n != ',' && n != '=') {
          return BadRequest("invalid field selector: invalid escape sequence: \\" +
                            std::string(1, n));
        }
        out += n;
      } else {
        out += s[i];
      }
    }
    return out;
  };
  for (const std::string& term : terms) {
    if (StripWhitespace(term).empty()) continue;
    size_t i = 0;
    size_t op_pos = std::string::npos, op_len = 0;
    bool equals = true;
    for (; i < term.size(); ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.compare(i, 2, "!=") == 0) {
        op_pos = i, op_len = 2, equals = false;
        break;
      }
      if (term.compare(i, 2, "==") == 0) {
        op_pos = i, op_len = 2;
        break;
      }
      if (term[i] == '=') {
        op_pos = i, op_len = 1;
        break;
      }
    }
    if (op_pos == std::string::npos) {
      return BadRequest("invalid selector: '" + std::string(text) + "'; can't understand '" + term +
                        "'");
    }
    FieldRequirement r;
    r.field = std::string(StripWhitespace(std::string_view(term).substr(0, op_pos)));
    KAI_ASSIGN_OR_RETURN(r.value, unescape(std::string_view(term).substr(op_pos + op_len)));
    r.equals = equals;
    sel.reqs_.push_back(std::move(r));
  }
  return sel;
}

}  // namespace kai::localkube
