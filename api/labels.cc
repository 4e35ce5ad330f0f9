#include "api/labels.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "api/validation.h"
#include "kube/base/strings.h"

namespace kai::api {
namespace {

using Op = LabelSelectorMatcher::Requirement::Op;

// field.Invalid(path, value, detail).Error()
std::string FieldInvalid(std::string_view path, std::string_view value, std::string_view detail) {
  return std::string(path) + ": Invalid value: \"" + std::string(value) +
         "\": " + std::string(detail);
}

bool ParseInt64(std::string_view s, int64_t* out) {
  // strconv.ParseInt(s, 10, 64): optional sign, decimal digits only.
  std::string_view d = s;
  if (!d.empty() && (d[0] == '+' || d[0] == '-')) d.remove_prefix(1);
  if (d.empty() || !std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const std::string str(s);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(str.c_str(), &end, 10);
  if (errno == ERANGE || end != str.c_str() + str.size()) return false;
  *out = v;
  return true;
}

// labels.NewRequirement: validates and builds. `path` is the field path prefix used in messages
// ("" at the root, as labels.Parse has no path).
Status NewRequirement(std::string key, Op op, std::vector<std::string> values,
                      LabelSelectorMatcher::Requirement* out) {
  std::vector<std::string> errs;
  if (auto e = IsQualifiedName(key); !e.empty()) {
    errs.push_back(FieldInvalid("key", key, StrJoin(e, "; ")));
  }
  const auto values_invalid = [&](std::string_view detail) {
    std::string list = "[]string{";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) list += ", ";
      list += "\"" + values[i] + "\"";
    }
    list += "}";
    errs.push_back("values: Invalid value: " + list + ": " + std::string(detail));
  };
  switch (op) {
    case Op::kIn:
    case Op::kNotIn:
      if (values.empty()) values_invalid("for 'in', 'notin' operators, values set can't be empty");
      break;
    case Op::kEquals:
    case Op::kDoubleEquals:
    case Op::kNotEquals:
      if (values.size() != 1) values_invalid("exact-match compatibility requires one single value");
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!values.empty()) values_invalid("values set must be empty for exists and does not exist");
      break;
    case Op::kGt:
    case Op::kLt:
      if (values.size() != 1) {
        values_invalid("for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (size_t i = 0; i < values.size(); ++i) {
        int64_t ignored;
        if (!ParseInt64(values[i], &ignored)) {
          errs.push_back(FieldInvalid("values[" + std::to_string(i) + "]", values[i],
                                      "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (auto e = IsValidLabelValue(values[i]); !e.empty()) {
      errs.push_back(FieldInvalid("values[" + std::to_string(i) + "][" + key + "]", values[i],
                                  StrJoin(e, "; ")));
    }
  }
  if (!errs.empty()) {
    return InvalidArgumentError(errs.size() == 1 ? errs[0] : "[" + StrJoin(errs, ", ") + "]");
  }
  std::sort(values.begin(), values.end());
  out->key = std::move(key);
  out->op = op;
  out->values = std::move(values);
  return Status::OK();
}

// ---- lexer and parser (k8s.io/apimachinery/pkg/labels/selector.go) ----

enum class Tok {
  kError,
  kEnd,
  kClosedPar,
  kComma,
  kDoesNotExist,
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct Item {
  Tok tok;
  std::string lit;
};

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

bool LiteralToken(std::string_view s, Tok* tok) {
  static constexpr std::pair<std::string_view, Tok> kTokens[] = {
      {")", Tok::kClosedPar},     {",", Tok::kComma},    {"!", Tok::kDoesNotExist},
      {"==", Tok::kDoubleEquals}, {"=", Tok::kEquals},   {">", Tok::kGreaterThan},
      {"in", Tok::kIn},           {"<", Tok::kLessThan}, {"!=", Tok::kNotEquals},
      {"notin", Tok::kNotIn},     {"(", Tok::kOpenPar},
  };
  for (const auto& [text, t] : kTokens) {
    if (text == s) {
      *tok = t;
      return true;
    }
  }
  return false;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Item Lex() {
    char c = Read();
    while (IsWhitespace(c)) c = Read();
    if (c == 0) return {Tok::kEnd, ""};
    Unread();
    return IsSpecial(c) ? ScanSpecial() : ScanIdentifier();
  }

 private:
  // A NUL byte ends the input, as in Go's lexer.
  char Read() { return pos_ < s_.size() ? s_[pos_++] : (++pos_, '\0'); }
  void Unread() { --pos_; }

  Item ScanSpecial() {
    std::string buffer;
    Item last{Tok::kError, ""};
    bool have = false;
    while (true) {
      const char c = Read();
      if (c == 0) break;
      if (!IsSpecial(c)) {
        Unread();
        break;
      }
      buffer.push_back(c);
      Tok t;
      if (LiteralToken(buffer, &t)) {
        last = {t, buffer};
        have = true;
      } else if (have) {
        Unread();
        break;
      }
    }
    if (!have) return {Tok::kError, "error expected: keyword found '" + buffer + "'"};
    return last;
  }

  Item ScanIdentifier() {
    std::string buffer;
    while (true) {
      const char c = Read();
      if (c == 0) break;
      if (IsSpecial(c) || IsWhitespace(c)) {
        Unread();
        break;
      }
      buffer.push_back(c);
    }
    Tok t;
    if (LiteralToken(buffer, &t)) return {t, buffer};
    return {Tok::kIdentifier, buffer};
  }

  std::string_view s_;
  size_t pos_ = 0;
};

enum class Context { kKeyAndOperator, kValues };

class Parser {
 public:
  explicit Parser(std::string_view s) {
    Lexer lexer(s);
    while (true) {
      items_.push_back(lexer.Lex());
      if (items_.back().tok == Tok::kEnd) break;
    }
  }

  Status Parse(std::vector<LabelSelectorMatcher::Requirement>* out) {
    while (true) {
      const Item& la = Lookahead(Context::kValues);
      switch (la.tok) {
        case Tok::kIdentifier:
        case Tok::kDoesNotExist: {
          LabelSelectorMatcher::Requirement r;
          Status s = ParseRequirement(&r);
          if (!s.ok()) {
            return InvalidArgumentError("unable to parse requirement: " + std::string(s.message()));
          }
          out->push_back(std::move(r));
          const Item t = Consume(Context::kValues);
          if (t.tok == Tok::kEnd) return Status::OK();
          if (t.tok == Tok::kComma) {
            const Item& t2 = Lookahead(Context::kValues);
            if (t2.tok != Tok::kIdentifier && t2.tok != Tok::kDoesNotExist) {
              return Error("found '" + t2.lit + "', expected: identifier after ','");
            }
            break;
          }
          return Error("found '" + t.lit + "', expected: ',' or 'end of string'");
        }
        case Tok::kEnd:
          return Status::OK();
        default:
          return Error("found '" + la.lit + "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  static Status Error(std::string_view msg) { return InvalidArgumentError(msg); }

  Item Lookahead(Context ctx) const {
    Item item = items_[std::min(pos_, items_.size() - 1)];
    if (ctx == Context::kValues && (item.tok == Tok::kIn || item.tok == Tok::kNotIn)) {
      item.tok = Tok::kIdentifier;
    }
    return item;
  }
  Item Consume(Context ctx) {
    Item item = Lookahead(ctx);
    if (pos_ < items_.size()) ++pos_;
    return item;
  }

  Status ParseRequirement(LabelSelectorMatcher::Requirement* out) {
    // parseKeyAndInferOperator
    bool does_not_exist = false;
    Item tok = Consume(Context::kValues);
    if (tok.tok == Tok::kDoesNotExist) {
      does_not_exist = true;
      tok = Consume(Context::kValues);
    }
    if (tok.tok != Tok::kIdentifier) {
      return Error("found '" + tok.lit + "', expected: identifier");
    }
    const std::string key = tok.lit;
    if (auto e = IsQualifiedName(key); !e.empty()) {
      return Error(FieldInvalid("<nil>", key, StrJoin(e, "; ")));
    }
    const Tok next = Lookahead(Context::kValues).tok;
    if (does_not_exist) return NewRequirement(key, Op::kDoesNotExist, {}, out);
    if (next == Tok::kEnd || next == Tok::kComma) return NewRequirement(key, Op::kExists, {}, out);

    // parseOperator
    const Item op_item = Consume(Context::kKeyAndOperator);
    Op op;
    switch (op_item.tok) {
      case Tok::kIn:
        op = Op::kIn;
        break;
      case Tok::kEquals:
        op = Op::kEquals;
        break;
      case Tok::kDoubleEquals:
        op = Op::kDoubleEquals;
        break;
      case Tok::kGreaterThan:
        op = Op::kGt;
        break;
      case Tok::kLessThan:
        op = Op::kLt;
        break;
      case Tok::kNotIn:
        op = Op::kNotIn;
        break;
      case Tok::kNotEquals:
        op = Op::kNotEquals;
        break;
      default:
        return Error("found '" + op_item.lit + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::vector<std::string> values;
    if (op == Op::kIn || op == Op::kNotIn) {
      KAI_RETURN_IF_ERROR(ParseValues(&values));
    } else {
      KAI_RETURN_IF_ERROR(ParseExactValue(&values));
    }
    return NewRequirement(key, op, std::move(values), out);
  }

  // A set: sorted and without duplicates (sets.String.List()).
  static void Insert(std::vector<std::string>* set, std::string v) {
    auto it = std::lower_bound(set->begin(), set->end(), v);
    if (it == set->end() || *it != v) set->insert(it, std::move(v));
  }

  Status ParseValues(std::vector<std::string>* out) {
    const Item open = Consume(Context::kValues);
    if (open.tok != Tok::kOpenPar) return Error("found '" + open.lit + "' expected: '('");
    const Item la = Lookahead(Context::kValues);
    switch (la.tok) {
      case Tok::kIdentifier:
      case Tok::kComma: {
        KAI_RETURN_IF_ERROR(ParseIdentifiersList(out));
        if (Consume(Context::kValues).tok != Tok::kClosedPar) {
          return Error("found '" + la.lit + "', expected: ')'");
        }
        return Status::OK();
      }
      case Tok::kClosedPar:
        Consume(Context::kValues);
        Insert(out, "");
        return Status::OK();
      default:
        return Error("found '" + la.lit + "', expected: ',', ')' or identifier");
    }
  }

  Status ParseIdentifiersList(std::vector<std::string>* out) {
    while (true) {
      const Item t = Consume(Context::kValues);
      switch (t.tok) {
        case Tok::kIdentifier: {
          Insert(out, t.lit);
          const Item t2 = Lookahead(Context::kValues);
          if (t2.tok == Tok::kComma) continue;
          if (t2.tok == Tok::kClosedPar) return Status::OK();
          return Error("found '" + t2.lit + "', expected: ',' or ')'");
        }
        case Tok::kComma: {
          if (out->empty()) Insert(out, "");  // "(,"
          const Tok t2 = Lookahead(Context::kValues).tok;
          if (t2 == Tok::kClosedPar) {
            Insert(out, "");  // ",)"
            return Status::OK();
          }
          if (t2 == Tok::kComma) {
            Consume(Context::kValues);
            Insert(out, "");  // ",,"
          }
          break;
        }
        default:
          return Error("found '" + t.lit + "', expected: ',', or identifier");
      }
    }
  }

  Status ParseExactValue(std::vector<std::string>* out) {
    const Tok la = Lookahead(Context::kValues).tok;
    if (la == Tok::kEnd || la == Tok::kComma) {
      out->push_back("");
      return Status::OK();
    }
    const Item t = Consume(Context::kValues);
    if (t.tok == Tok::kIdentifier) {
      out->push_back(t.lit);
      return Status::OK();
    }
    return Error("found '" + t.lit + "', expected: identifier");
  }

  std::vector<Item> items_;
  size_t pos_ = 0;
};

void SortByKey(std::vector<LabelSelectorMatcher::Requirement>* reqs) {
  std::stable_sort(reqs->begin(), reqs->end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
}

}  // namespace

bool LabelSelectorMatcher::Requirement::Matches(
    const std::map<std::string, std::string>& labels) const {
  const auto it = labels.find(key);
  return MatchesValue(it == labels.end() ? nullptr : &it->second);
}

bool LabelSelectorMatcher::Requirement::MatchesValue(const std::string* value) const {
  const bool has = value != nullptr;
  const auto has_value = [&] {
    return std::find(values.begin(), values.end(), *value) != values.end();
  };
  switch (op) {
    case Op::kIn:
    case Op::kEquals:
    case Op::kDoubleEquals:
      return has && has_value();
    case Op::kNotIn:
    case Op::kNotEquals:
      return !has || !has_value();
    case Op::kExists:
      return has;
    case Op::kDoesNotExist:
      return !has;
    case Op::kGt:
    case Op::kLt: {
      if (!has || values.size() != 1) return false;
      int64_t label_value, req_value;
      if (!ParseInt64(*value, &label_value) || !ParseInt64(values[0], &req_value)) return false;
      return op == Op::kGt ? label_value > req_value : label_value < req_value;
    }
  }
  return false;
}

std::string LabelSelectorMatcher::Requirement::ToString() const {
  std::string out;
  if (op == Op::kDoesNotExist) out += '!';
  out += key;
  switch (op) {
    case Op::kEquals:
      out += '=';
      break;
    case Op::kDoubleEquals:
      out += "==";
      break;
    case Op::kNotEquals:
      out += "!=";
      break;
    case Op::kIn:
      out += " in ";
      break;
    case Op::kNotIn:
      out += " notin ";
      break;
    case Op::kGt:
      out += '>';
      break;
    case Op::kLt:
      out += '<';
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      return out;
  }
  const bool set = op == Op::kIn || op == Op::kNotIn;
  if (set) out += '(';
  out += StrJoin(values, ",");
  if (set) out += ')';
  return out;
}

StatusOr<LabelSelectorMatcher> LabelSelectorMatcher::Parse(std::string_view selector) {
  LabelSelectorMatcher m;
  Parser parser(selector);
  KAI_RETURN_IF_ERROR(parser.Parse(&m.requirements_));
  SortByKey(&m.requirements_);
  return m;
}

StatusOr<LabelSelectorMatcher> LabelSelectorMatcher::FromLabelSelector(
    const LabelSelector& selector) {
  LabelSelectorMatcher m;
  for (const auto& [k, v] : selector.match_labels) {
    Requirement r;
    KAI_RETURN_IF_ERROR(NewRequirement(k, Op::kEquals, {v}, &r));
    m.requirements_.push_back(std::move(r));
  }
  for (const LabelSelectorRequirement& expr : selector.match_expressions) {
    Op op;
    if (expr.operator_ == "In") {
      op = Op::kIn;
    } else if (expr.operator_ == "NotIn") {
      op = Op::kNotIn;
    } else if (expr.operator_ == "Exists") {
      op = Op::kExists;
    } else if (expr.operator_ == "DoesNotExist") {
      op = Op::kDoesNotExist;
    } else {
      return InvalidArgumentError("\"" + expr.operator_ +
                                  "\" is not a valid label selector operator");
    }
    Requirement r;
    KAI_RETURN_IF_ERROR(NewRequirement(expr.key, op, expr.values, &r));
    m.requirements_.push_back(std::move(r));
  }
  SortByKey(&m.requirements_);
  return m;
}

StatusOr<LabelSelectorMatcher> LabelSelectorMatcher::FromLabelSelector(
    const LabelSelector* selector) {
  if (selector == nullptr) return Nothing();
  return FromLabelSelector(*selector);
}

StatusOr<LabelSelectorMatcher> LabelSelectorMatcher::FromSet(
    const std::map<std::string, std::string>& set) {
  LabelSelectorMatcher m;
  for (const auto& [k, v] : set) {
    Requirement r;
    KAI_RETURN_IF_ERROR(NewRequirement(k, Op::kEquals, {v}, &r));
    m.requirements_.push_back(std::move(r));
  }
  return m;
}

LabelSelectorMatcher LabelSelectorMatcher::Nothing() {
  LabelSelectorMatcher m;
  m.nothing_ = true;
  return m;
}

bool LabelSelectorMatcher::Matches(const std::map<std::string, std::string>& labels) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

std::string LabelSelectorMatcher::ToString() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].ToString();
  }
  return out;
}

Status ValidateLabelKey(std::string_view key) {
  if (auto e = IsQualifiedName(key); !e.empty()) return InvalidArgumentError(StrJoin(e, "; "));
  return Status::OK();
}

Status ValidateLabelValue(std::string_view value) {
  if (auto e = IsValidLabelValue(value); !e.empty()) return InvalidArgumentError(StrJoin(e, "; "));
  return Status::OK();
}

}  // namespace kai::api
