#include "kube/patch/strategic_merge_patch.h"

#include <vector>

#include "kube/patch/json_util.h"

namespace kai::kube {
namespace {

using namespace patch_internal;  // NOLINT

constexpr std::string_view kSetElementOrder = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

std::string Join(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

// nullptr when `path` is not a strategic list.
const std::string* MergeKeyOf(const MergeKeys& keys, const std::string& path) {
  auto it = keys.find(path);
  return it == keys.end() ? nullptr : &it->second;
}

bool IsDirective(std::string_view name) { return !name.empty() && name.front() == '$'; }

// Every element is an object carrying `key`.
bool Keyed(const Value& list, std::string_view key) {
  for (const Value& e : list.GetArray()) {
    if (!e.IsObject() || FindIt(e, key) == e.MemberEnd()) return false;
  }
  return true;
}

const Value* FindByKey(const Value& list, std::string_view key, const Value& want) {
  for (const Value& e : list.GetArray()) {
    auto it = FindIt(e, key);
    if (it != e.MemberEnd() && it->value == want) return &e;
  }
  return nullptr;
}

bool Contains(const Value& list, const Value& v) {
  for (const Value& e : list.GetArray()) {
    if (e == v) return true;
  }
  return false;
}

void DiffObject(const Value& a, const Value& b, const std::string& path, const MergeKeys& keys,
                Value* out, Alloc& alloc);

// A keyed list: changed/added elements, deletions, and the new order.
void DiffKeyedList(const Value& a, const Value& b, const std::string& path, std::string_view name,
                   std::string_view key, const MergeKeys& keys, Value* out, Alloc& alloc) {
  Value list(rapidjson::kArrayType);
  for (const Value& e : b.GetArray()) {
    const Value& k = FindIt(e, key)->value;
    const Value* old = FindByKey(a, key, k);
    if (old == nullptr) {
      list.PushBack(Copy(e, alloc), alloc);
    } else if (*old != e) {
      Value sub(rapidjson::kObjectType);
      sub.AddMember(api::JsonString(key, alloc), Copy(k, alloc), alloc);
      DiffObject(*old, e, path, keys, &sub, alloc);
      list.PushBack(std::move(sub), alloc);
    }
  }
  for (const Value& e : a.GetArray()) {
    const Value& k = FindIt(e, key)->value;
    if (FindByKey(b, key, k) == nullptr) {
      Value del(rapidjson::kObjectType);
      del.AddMember(api::JsonString(key, alloc), Copy(k, alloc), alloc);
      del.AddMember("$patch", "delete", alloc);
      list.PushBack(std::move(del), alloc);
    }
  }
  Value order(rapidjson::kArrayType);
  for (const Value& e : b.GetArray()) {
    Value o(rapidjson::kObjectType);
    o.AddMember(api::JsonString(key, alloc), Copy(FindIt(e, key)->value, alloc), alloc);
    order.PushBack(std::move(o), alloc);
  }
  out->AddMember(api::JsonString(std::string(kSetElementOrder) + std::string(name), alloc),
                 std::move(order), alloc);
  if (!list.Empty()) out->AddMember(api::JsonString(name, alloc), std::move(list), alloc);
}

// A set of primitives (finalizers): additions, $deleteFromPrimitiveList, order.
void DiffPrimitiveSet(const Value& a, const Value& b, std::string_view name, Value* out,
                      Alloc& alloc) {
  Value added(rapidjson::kArrayType), removed(rapidjson::kArrayType);
  for (const Value& e : b.GetArray()) {
    if (!Contains(a, e)) added.PushBack(Copy(e, alloc), alloc);
  }
  for (const Value& e : a.GetArray()) {
    if (!Contains(b, e)) removed.PushBack(Copy(e, alloc), alloc);
  }
  out->AddMember(api::JsonString(std::string(kSetElementOrder) + std::string(name), alloc),
                 Copy(b, alloc), alloc);
  if (!added.Empty()) out->AddMember(api::JsonString(name, alloc), std::move(added), alloc);
  if (!removed.Empty()) {
    out->AddMember(
        api::JsonString(std::string(kDeleteFromPrimitiveList) + std::string(name), alloc),
        std::move(removed), alloc);
  }
}

void DiffObject(const Value& a, const Value& b, const std::string& path, const MergeKeys& keys,
                Value* out, Alloc& alloc) {
  for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
    if (FindIt(b, Str(it->name)) == b.MemberEnd()) {
      out->AddMember(Copy(it->name, alloc), Value(rapidjson::kNullType), alloc);
    }
  }
  for (auto it = b.MemberBegin(); it != b.MemberEnd(); ++it) {
    const std::string_view name = Str(it->name);
    auto old = FindIt(a, name);
    if (old == a.MemberEnd()) {
      out->AddMember(Copy(it->name, alloc), Copy(it->value, alloc), alloc);
      continue;
    }
    if (old->value == it->value) continue;
    const std::string child = Join(path, name);
    if (old->value.IsObject() && it->value.IsObject()) {
      Value sub(rapidjson::kObjectType);
      DiffObject(old->value, it->value, child, keys, &sub, alloc);
      if (!sub.ObjectEmpty()) out->AddMember(Copy(it->name, alloc), std::move(sub), alloc);
      continue;
    }
    const std::string* key = MergeKeyOf(keys, child);
    if (key != nullptr && old->value.IsArray() && it->value.IsArray()) {
      if (key->empty()) {
        DiffPrimitiveSet(old->value, it->value, name, out, alloc);
        continue;
      }
      if (Keyed(old->value, *key) && Keyed(it->value, *key)) {
        DiffKeyedList(old->value, it->value, child, name, *key, keys, out, alloc);
        continue;
      }
    }
    out->AddMember(Copy(it->name, alloc), Copy(it->value, alloc), alloc);
  }
}

void ApplyObject(Value* target, const Value& patch, const std::string& path, const MergeKeys& keys,
                 Alloc& alloc);

// A patch value placed where nothing was: directives and nulls stripped.
Value Fresh(const Value& patch, const std::string& path, const MergeKeys& keys, Alloc& alloc) {
  if (!patch.IsObject()) return Copy(patch, alloc);
  Value v(rapidjson::kObjectType);
  ApplyObject(&v, patch, path, keys, alloc);
  return v;
}

void ApplyKeyedList(Value* target, const Value& patch, const std::string& path,
                    std::string_view key, const MergeKeys& keys, Alloc& alloc) {
  if (!target->IsArray()) target->SetArray();
  for (const Value& pe : patch.GetArray()) {
    if (!pe.IsObject()) {
      target->PushBack(Copy(pe, alloc), alloc);
      continue;
    }
    auto k = FindIt(pe, key);
    auto directive = FindIt(pe, "$patch");
    const bool del = directive != pe.MemberEnd() && directive->value.IsString() &&
                     Str(directive->value) == "delete";
    if (k == pe.MemberEnd()) {
      if (!del) target->PushBack(Fresh(pe, path, keys, alloc), alloc);
      continue;
    }
    bool found = false;
    for (rapidjson::SizeType i = 0; i < target->Size(); ++i) {
      Value& te = (*target)[i];
      auto tk = te.IsObject() ? FindIt(te, key) : te.MemberEnd();
      if (!te.IsObject() || tk == te.MemberEnd() || tk->value != k->value) continue;
      found = true;
      if (del) {
        target->Erase(target->Begin() + i);
      } else {
        ApplyObject(&te, pe, path, keys, alloc);
      }
      break;
    }
    if (!found && !del) target->PushBack(Fresh(pe, path, keys, alloc), alloc);
  }
}

// Reorders `list` so the elements named in `order` come first, in that order.
void Reorder(Value* list, const Value& order, const std::string* key, Alloc& alloc) {
  if (!list->IsArray() || !order.IsArray()) return;
  Value out(rapidjson::kArrayType);
  std::vector<bool> taken(list->Size(), false);
  for (const Value& o : order.GetArray()) {
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      if (taken[i]) continue;
      const Value& e = (*list)[i];
      bool match;
      if (key == nullptr || key->empty()) {
        match = e == o;
      } else {
        auto ok = o.IsObject() ? FindIt(o, *key) : o.MemberEnd();
        auto ek = e.IsObject() ? FindIt(e, *key) : e.MemberEnd();
        match = o.IsObject() && e.IsObject() && ok != o.MemberEnd() && ek != e.MemberEnd() &&
                ok->value == ek->value;
      }
      if (match) {
        taken[i] = true;
        out.PushBack(Copy(e, alloc), alloc);
        break;
      }
    }
  }
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    if (!taken[i]) out.PushBack(Copy((*list)[i], alloc), alloc);
  }
  *list = std::move(out);
}

void ApplyObject(Value* target, const Value& patch, const std::string& path, const MergeKeys& keys,
                 Alloc& alloc) {
  if (!target->IsObject()) target->SetObject();
  if (auto d = FindIt(patch, "$patch");
      d != patch.MemberEnd() && d->value.IsString() && Str(d->value) == "replace") {
    target->SetObject();
  }
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    const std::string_view name = Str(it->name);
    if (IsDirective(name)) continue;
    auto existing = FindIt(*target, name);
    if (it->value.IsNull()) {
      if (existing != target->MemberEnd()) target->EraseMember(existing);
      continue;
    }
    const std::string child = Join(path, name);
    const std::string* key = MergeKeyOf(keys, child);
    if (existing == target->MemberEnd()) {
      if (it->value.IsArray() && key != nullptr) {
        Value list(rapidjson::kArrayType);
        if (key->empty()) {
          for (const Value& e : it->value.GetArray()) list.PushBack(Copy(e, alloc), alloc);
        } else {
          ApplyKeyedList(&list, it->value, child, *key, keys, alloc);
        }
        target->AddMember(Copy(it->name, alloc), std::move(list), alloc);
      } else {
        target->AddMember(Copy(it->name, alloc), Fresh(it->value, child, keys, alloc), alloc);
      }
      continue;
    }
    Value& cur = existing->value;
    if (it->value.IsObject()) {
      ApplyObject(&cur, it->value, child, keys, alloc);
    } else if (it->value.IsArray() && key != nullptr) {
      if (key->empty()) {
        if (!cur.IsArray()) cur.SetArray();
        for (const Value& e : it->value.GetArray()) {
          if (!Contains(cur, e)) cur.PushBack(Copy(e, alloc), alloc);
        }
      } else {
        ApplyKeyedList(&cur, it->value, child, *key, keys, alloc);
      }
    } else {
      cur.CopyFrom(it->value, alloc);
    }
  }
  // Directives that act on a list after its elements were merged.
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    const std::string_view name = Str(it->name);
    if (name.rfind(kDeleteFromPrimitiveList, 0) == 0 && it->value.IsArray()) {
      auto list = FindIt(*target, name.substr(kDeleteFromPrimitiveList.size()));
      if (list == target->MemberEnd() || !list->value.IsArray()) continue;
      for (rapidjson::SizeType i = list->value.Size(); i > 0; --i) {
        if (Contains(it->value, list->value[i - 1])) {
          list->value.Erase(list->value.Begin() + (i - 1));
        }
      }
    }
  }
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    const std::string_view name = Str(it->name);
    if (name.rfind(kSetElementOrder, 0) != 0) continue;
    const std::string_view list_name = name.substr(kSetElementOrder.size());
    auto list = FindIt(*target, list_name);
    if (list == target->MemberEnd()) continue;
    Reorder(&list->value, it->value, MergeKeyOf(keys, Join(path, list_name)), alloc);
  }
}

}  // namespace

const MergeKeys& PodMergeKeys() {
  static const MergeKeys* const keys = new MergeKeys{
      {"metadata.finalizers", ""},
      {"metadata.ownerReferences", "uid"},
      {"spec.containers", "name"},
      {"spec.containers.env", "name"},
      {"spec.containers.ports", "containerPort"},
      {"spec.containers.volumeMounts", "mountPath"},
      {"spec.initContainers", "name"},
      {"spec.initContainers.env", "name"},
      {"spec.initContainers.ports", "containerPort"},
      {"spec.initContainers.volumeMounts", "mountPath"},
      {"spec.ephemeralContainers", "name"},
      {"spec.volumes", "name"},
      {"spec.imagePullSecrets", "name"},
      {"spec.hostAliases", "ip"},
      {"status.conditions", "type"},
      {"status.podIPs", "ip"},
      {"status.hostIPs", "ip"},
  };
  return *keys;
}

StatusOr<std::string> CreateStrategicMergePatch(std::string_view original,
                                                std::string_view modified, const MergeKeys& keys) {
  rapidjson::Document a, b, out;
  KAI_RETURN_IF_ERROR(Parse(original, "original", &a));
  KAI_RETURN_IF_ERROR(Parse(modified, "modified", &b));
  if (!a.IsObject() || !b.IsObject()) {
    return InvalidArgumentError("strategic merge patch: both documents must be JSON objects");
  }
  out.SetObject();
  DiffObject(a, b, "", keys, &out, out.GetAllocator());
  return api::ToJsonString(out);
}

StatusOr<std::string> ApplyStrategicMergePatch(std::string_view document, std::string_view patch,
                                               const MergeKeys& keys) {
  rapidjson::Document doc, p;
  KAI_RETURN_IF_ERROR(Parse(document, "document", &doc));
  KAI_RETURN_IF_ERROR(Parse(patch, "patch", &p));
  if (!p.IsObject()) return InvalidArgumentError("strategic merge patch: expected a JSON object");
  ApplyObject(&doc, p, "", keys, doc.GetAllocator());
  return api::ToJsonString(doc);
}

StatusOr<std::string> PodConditionPatch(std::string_view condition_json) {
  rapidjson::Document c;
  KAI_RETURN_IF_ERROR(Parse(condition_json, "condition", &c));
  auto type = c.IsObject() ? FindIt(c, "type") : c.MemberEnd();
  if (!c.IsObject() || type == c.MemberEnd() || !type->value.IsString() ||
      type->value.GetStringLength() == 0) {
    return InvalidArgumentError("pod condition: \"type\" is required");
  }
  return R"({"status":{"conditions":[)" + std::string(condition_json) + "]}}";
}

}  // namespace kai::kube
