#include "test/localkube/selector.h"

#include <algorithm>

#include "api/codec_impl.h"
#include "kube/base/strings.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"

namespace kai::localkube {
StatusOr<LabelSelector> LabelSelector::Parse(std::string_view text) {
  auto m = api::LabelSelectorMatcher::Parse(text);
  if (!m.ok()) return kube::NewBadRequest(std::string(m.status().message()));
  return LabelSelector(*std::move(m));
}

StatusOr<LabelSelector> LabelSelector::FromJson(std::string_view json) {
  KAI_ASSIGN_OR_RETURN(JsonDoc doc, ::kai::localkube::Parse(json));
  if (doc.IsNull()) return LabelSelector();
  if (!doc.IsObject()) return kube::NewBadRequest("label selector must be an object");
  api::LabelSelector sel;
  api::codec::DecodeError err;
  if (!api::codec::DecodeAny(doc, &sel, &err)) {
    return kube::NewBadRequest("label selector: " + err.ToString());
  }
  auto m = api::LabelSelectorMatcher::FromLabelSelector(sel);
  if (!m.ok()) return kube::NewBadRequest(std::string(m.status().message()));
  return LabelSelector(*std::move(m));
}

bool LabelSelector::Matches(const Labels& labels) const {
  return matcher_.MatchesLookup([&](const std::string& key) -> const std::string* {
    auto it = std::lower_bound(labels.begin(), labels.end(), key,
                               [](const auto& p, const std::string& k) { return p.first < k; });
    return (it != labels.end() && it->first == key) ? &it->second : nullptr;
  });
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
        if (i + 1 >= s.size())
          return kube::NewBadRequest("invalid field selector: trailing backslash");
        const char n = s[++i];
        if (n != '\\' && n != ',' && n != '=') {
          return kube::NewBadRequest("invalid field selector: invalid escape sequence: \\" +
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
      return kube::NewBadRequest("invalid selector: '" + std::string(text) +
                                 "'; can't understand '" + term + "'");
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
