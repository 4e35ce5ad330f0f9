// ObjectMeta validation shared by every kind (apimachinery ValidateObjectMeta).
#include <algorithm>

#include "kube/base/strings.h"
#include "test/localkube/errors.h"
#include "test/localkube/selector.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

std::string ValidateDnsLabel(std::string_view v) {
  if (v.size() > 63) return "must be no more than 63 characters";
  bool ok = !v.empty() && IsLowerAlnum(v.front()) && IsLowerAlnum(v.back());
  for (char c : v) ok = ok && (IsLowerAlnum(c) || c == '-');
  if (!ok) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
           "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
           "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return "";
}

std::string ValidateDnsSubdomain(std::string_view v) {
  if (v.size() > 253) return "must be no more than 253 characters";
  bool ok = !v.empty();
  size_t start = 0;
  while (ok && start <= v.size()) {
    size_t dot = v.find('.', start);
    if (dot == std::string_view::npos) dot = v.size();
    const std::string_view part = v.substr(start, dot - start);
    ok = !part.empty() && IsLowerAlnum(part.front()) && IsLowerAlnum(part.back());
    for (char c : part) ok = ok && (IsLowerAlnum(c) || c == '-');
    start = dot + 1;
    if (dot == v.size()) break;
  }
  if (!ok) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return "";
}

std::string ValidateName(NameRule rule, std::string_view name) {
  switch (rule) {
    case NameRule::kDnsSubdomain:
      return ValidateDnsSubdomain(name);
    case NameRule::kDnsLabel:
      return ValidateDnsLabel(name);
    case NameRule::kDns1035Label: {
      if (name.size() > 63) return "must be no more than 63 characters";
      bool ok =
          !name.empty() && name.front() >= 'a' && name.front() <= 'z' && IsLowerAlnum(name.back());
      for (char c : name) ok = ok && (IsLowerAlnum(c) || c == '-');
      if (!ok) {
        return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
               "start with an alphabetic character, and end with an alphanumeric character "
               "(e.g. 'my-name',  or 'abc-123', regex used for validation is "
               "'[a-z]([-a-z0-9]*[a-z0-9])?')";
      }
      return "";
    }
    case NameRule::kPathSegment:
      if (name == ".") return "may not be '.'";
      if (name == "..") return "may not be '..'";
      if (name.find('/') != std::string_view::npos) return "may not contain '/'";
      if (name.find('%') != std::string_view::npos) return "may not contain '%'";
      return "";
  }
  return "";
}

void ValidateObjectMeta(const ResourceInfo& r, const Json& obj, const Json* old,
                        std::vector<StatusCause>* errs) {
  const Json* meta = Member(obj, "metadata");
  static const Json kEmpty(rapidjson::kObjectType);
  if (meta == nullptr || !meta->IsObject()) meta = &kEmpty;
  const std::string name = GetStr(*meta, {"name"});
  const NameRule rule = r.hooks ? r.hooks->name_rule : NameRule::kDnsSubdomain;
  if (name.empty()) {
    errs->push_back(FieldRequired("metadata.name", "name or generateName is required"));
  } else if (old == nullptr) {
    const std::string err = ValidateName(rule, name);
    if (!err.empty()) errs->push_back(FieldInvalid("metadata.name", Quoted(name), err));
  }
  if (const Json* labels = Member(*meta, "labels"); labels != nullptr && !labels->IsNull()) {
    if (!labels->IsObject()) {
      errs->push_back(FieldInvalid("metadata.labels", Serialize(*labels), "must be a map"));
    } else {
      for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
        const std::string_view k = View(it->name);
        std::string err = ValidateQualifiedName(k);
        if (!err.empty()) errs->push_back(FieldInvalid("metadata.labels", Quoted(k), err));
        if (!it->value.IsString()) {
          errs->push_back(FieldInvalid("metadata.labels", Serialize(it->value),
                                       "label values must be strings"));
          continue;
        }
        err = ValidateLabelValue(View(it->value));
        if (!err.empty()) {
          errs->push_back(FieldInvalid("metadata.labels", Quoted(View(it->value)), err));
        }
      }
    }
  }
  if (const Json* ann = Member(*meta, "annotations"); ann != nullptr && !ann->IsNull()) {
    if (!ann->IsObject()) {
      errs->push_back(FieldInvalid("metadata.annotations", Serialize(*ann), "must be a map"));
    } else {
      size_t total = 0;
      for (auto it = ann->MemberBegin(); it != ann->MemberEnd(); ++it) {
        const std::string key = AsciiToLower(View(it->name));
        const std::string err = ValidateQualifiedName(key);
        if (!err.empty()) {
          errs->push_back(FieldInvalid("metadata.annotations", Quoted(View(it->name)), err));
        }
        if (!it->value.IsString()) {
          errs->push_back(FieldInvalid("metadata.annotations", Serialize(it->value),
                                       "annotation values must be strings"));
          continue;
        }
        total += it->name.GetStringLength() + it->value.GetStringLength();
      }
      if (total > 262144) {
        errs->push_back({"FieldValueTooLong", "metadata.annotations",
                         "Too long: must have at most 262144 bytes"});
      }
    }
  }
  std::vector<std::string> finalizers;
  if (const Json* fl = Member(*meta, "finalizers"); fl != nullptr && !fl->IsNull()) {
    if (!fl->IsArray()) {
      errs->push_back(FieldInvalid("metadata.finalizers", Serialize(*fl), "must be a list"));
    } else {
      for (rapidjson::SizeType i = 0; i < fl->Size(); ++i) {
        const std::string f(View((*fl)[i]));
        finalizers.push_back(f);
        const std::string err = ValidateQualifiedName(f);
        if (!err.empty()) {
          errs->push_back(
              FieldInvalid("metadata.finalizers[" + std::to_string(i) + "]", Quoted(f), err));
        }
      }
    }
  }
  if (old != nullptr) {
    const Json* old_meta = Member(*old, "metadata");
    const bool old_deleting = old_meta != nullptr && Member(*old_meta, "deletionTimestamp") &&
                              !Member(*old_meta, "deletionTimestamp")->IsNull();
    if (old_deleting) {
      std::vector<std::string> old_f;
      if (const Json* ofl = Member(*old_meta, "finalizers"); ofl && ofl->IsArray()) {
        for (const Json& f : ofl->GetArray()) old_f.emplace_back(View(f));
      }
      std::vector<std::string> added;
      for (const auto& f : finalizers) {
        if (std::find(old_f.begin(), old_f.end(), f) == old_f.end()) added.push_back(f);
      }
      if (!added.empty()) {
        std::string list = "[]string{";
        for (size_t i = 0; i < added.size(); ++i) list += (i ? ", " : "") + Quoted(added[i]);
        list += "}";
        errs->push_back(FieldForbidden(
            "metadata.finalizers",
            "no new finalizers can be added if the object is being deleted, found new "
            "finalizers " +
                list));
      }
    }
  }
  if (const Json* refs = Member(*meta, "ownerReferences"); refs != nullptr && !refs->IsNull()) {
    if (!refs->IsArray()) {
      errs->push_back(FieldInvalid("metadata.ownerReferences", Serialize(*refs), "must be a list"));
    } else {
      int controllers = 0;
      for (rapidjson::SizeType i = 0; i < refs->Size(); ++i) {
        const Json& ref = (*refs)[i];
        const std::string p = "metadata.ownerReferences[" + std::to_string(i) + "]";
        for (const char* f : {"apiVersion", "kind", "name", "uid"}) {
          if (GetStr(ref, {f}).empty()) {
            errs->push_back(
                FieldInvalid(p + "." + f, "\"\"", std::string(f) + " must not be empty"));
          }
        }
        if (GetBool(ref, {"controller"}, false)) ++controllers;
      }
      if (controllers > 1) {
        errs->push_back(FieldInvalid("metadata.ownerReferences", Serialize(*refs),
                                     "Only one reference can have Controller set to true"));
      }
    }
  }
}

}  // namespace kai::localkube
