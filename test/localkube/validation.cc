// ObjectMeta validation shared by every kind (apimachinery ValidateObjectMeta).
#include "api/validation.h"

#include <algorithm>

#include "api/schema/names.h"
#include "kube/base/strings.h"
#include "test/localkube/errors.h"
#include "test/localkube/selector.h"
#include "test/localkube/types.h"

namespace kai::localkube {
std::vector<std::string> ValidateName(NameRule rule, std::string_view name) {
  switch (rule) {
    case NameRule::kDnsSubdomain:
      return api::IsDns1123Subdomain(name);
    case NameRule::kDnsLabel:
      return api::IsDns1123Label(name);
    case NameRule::kDns1035Label:
      return api::IsDns1035Label(name);
    case NameRule::kPathSegment:
      return api::schema::ValidatePathSegmentName(name, false);
  }
  return {};
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
    for (const std::string& e : ValidateName(rule, name)) {
      errs->push_back(FieldInvalid("metadata.name", Quoted(name), e));
    }
  }
  if (const Json* labels = Member(*meta, "labels"); labels != nullptr && !labels->IsNull()) {
    if (!labels->IsObject()) {
      errs->push_back(FieldInvalid("metadata.labels", Serialize(*labels), "must be a map"));
    } else {
      for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
        const std::string_view k = View(it->name);
        for (const std::string& e : api::IsQualifiedName(k)) {
          errs->push_back(FieldInvalid("metadata.labels", Quoted(k), e));
        }
        if (!it->value.IsString()) {
          errs->push_back(FieldInvalid("metadata.labels", Serialize(it->value),
                                       "label values must be strings"));
          continue;
        }
        for (const std::string& e : api::IsValidLabelValue(View(it->value))) {
          errs->push_back(FieldInvalid("metadata.labels", Quoted(View(it->value)), e));
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
        for (const std::string& e : api::IsQualifiedName(key)) {
          errs->push_back(FieldInvalid("metadata.annotations", Quoted(View(it->name)), e));
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
        for (const std::string& e : api::IsQualifiedName(f)) {
          errs->push_back(
              FieldInvalid("metadata.finalizers[" + std::to_string(i) + "]", Quoted(f), e));
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
