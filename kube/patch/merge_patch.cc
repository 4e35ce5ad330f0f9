#include "kube/patch/merge_patch.h"

#include "kube/patch/json_util.h"

namespace kai::kube {
namespace {

using namespace patch_internal;  // NOLINT

// Writes into `out` (an object) the members that turn `a` into `b`; both are objects.
void Diff(const Value& a, const Value& b, Value* out, Alloc& alloc) {
  for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
    if (FindIt(b, Str(it->name)) == b.MemberEnd()) {
      out->AddMember(Copy(it->name, alloc), Value(rapidjson::kNullType), alloc);
    }
  }
  for (auto it = b.MemberBegin(); it != b.MemberEnd(); ++it) {
    auto old = FindIt(a, Str(it->name));
    if (old == a.MemberEnd()) {
      out->AddMember(Copy(it->name, alloc), Copy(it->value, alloc), alloc);
    } else if (old->value != it->value) {
      if (old->value.IsObject() && it->value.IsObject()) {
        Value sub(rapidjson::kObjectType);
        Diff(old->value, it->value, &sub, alloc);
        out->AddMember(Copy(it->name, alloc), std::move(sub), alloc);
      } else {
        out->AddMember(Copy(it->name, alloc), Copy(it->value, alloc), alloc);
      }
    }
  }
}

// RFC 7386 MergePatch(target, patch), in place.
void Merge(Value* target, const Value& patch, Alloc& alloc) {
  if (!patch.IsObject()) {
    target->CopyFrom(patch, alloc);
    return;
  }
  if (!target->IsObject()) target->SetObject();
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    auto existing = FindIt(*target, Str(it->name));
    if (it->value.IsNull()) {
      if (existing != target->MemberEnd()) target->EraseMember(existing);
      continue;
    }
    if (existing == target->MemberEnd()) {
      Value fresh(rapidjson::kNullType);
      Merge(&fresh, it->value, alloc);
      target->AddMember(Copy(it->name, alloc), std::move(fresh), alloc);
    } else {
      Merge(&existing->value, it->value, alloc);
    }
  }
}

}  // namespace

StatusOr<std::string> CreateMergePatch(std::string_view original, std::string_view modified) {
  rapidjson::Document a, b, out;
  KAI_RETURN_IF_ERROR(Parse(original, "original", &a));
  KAI_RETURN_IF_ERROR(Parse(modified, "modified", &b));
  if (!a.IsObject() || !b.IsObject()) {
    return InvalidArgumentError("merge patch: both documents must be JSON objects");
  }
  out.SetObject();
  Diff(a, b, &out, out.GetAllocator());
  return api::ToJsonString(out);
}

StatusOr<std::string> ApplyMergePatch(std::string_view document, std::string_view patch) {
  rapidjson::Document doc, p;
  KAI_RETURN_IF_ERROR(Parse(document, "document", &doc));
  KAI_RETURN_IF_ERROR(Parse(patch, "patch", &p));
  Merge(&doc, p, doc.GetAllocator());
  return api::ToJsonString(doc);
}

}  // namespace kai::kube
