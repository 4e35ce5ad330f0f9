#include "api/validation.h"

#include <initializer_list>

namespace kai::api {
namespace {

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

// validation.RegexError; Go puts " or " after "', " (two spaces), and so do we.
std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (";
  if (examples.size() > 0) {
    out += "e.g. ";
    bool first = true;
    for (std::string_view e : examples) {
      if (!first) out += " or ";
      first = false;
      out += "'";
      out += e;
      out += "', ";
    }
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

std::string MaxLenError(int n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool MatchesDns1123Label(std::string_view v) {
  if (v.empty() || !IsLowerAlnum(v.front()) || !IsLowerAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesDns1123Subdomain(std::string_view v) {
  size_t start = 0;
  while (true) {
    const size_t dot = v.find('.', start);
    if (!MatchesDns1123Label(v.substr(start, dot == v.npos ? v.npos : dot - start))) return false;
    if (dot == v.npos) return true;
    start = dot + 1;
  }
}

bool MatchesDns1035Label(std::string_view v) {
  return !v.empty() && v.front() >= 'a' && v.front() <= 'z' && MatchesDns1123Label(v);
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]: a name part, and a non-empty label value.
bool MatchesQualifiedNamePart(std::string_view v) {
  if (v.empty() || !IsAlnum(v.front()) || !IsAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> IsDns1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (MatchesDns1123Label(value)) return errs;
  if (MatchesDns1123Subdomain(value)) {
    // A valid subdomain but no label: the length was checked, so it has dots.
    errs.push_back("must not contain dots");
  } else {
    errs.push_back(
        RegexError("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                   "characters or '-', and must start and end with an alphanumeric character",
                   kDns1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsDns1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(MaxLenError(253));
  if (!MatchesDns1123Subdomain(value)) {
    errs.push_back(
        RegexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                   "characters, '-' or '.', and must start and end with an alphanumeric "
                   "character",
                   kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsDns1035Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!MatchesDns1035Label(value)) {
    errs.push_back(
        RegexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                   "start with an alphabetic character, and end with an alphanumeric character",
                   kDns1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  const size_t slash = value.find('/');
  if (slash != value.npos) {
    if (value.find('/', slash + 1) != value.npos) {
      errs.push_back(
          "a qualified name " +
          RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& e : IsDns1123Subdomain(prefix)) errs.push_back("prefix part " + e);
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenError(63));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(
        RegexError("a valid label must be an empty string or consist of alphanumeric characters, "
                   "'-', '_' or '.', and must start and end with an alphanumeric character",
                   kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

}  // namespace kai::api
