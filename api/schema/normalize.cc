// The API server's decode-time normalization of custom resources: ObjectMeta coercion
// (objectmeta/coerce.go and crdhandler's unstructuredSchemaCoercer), pruning
// (pruning/algorithm.go), null dropping and defaulting (defaulting/prunenulls.go, algorithm.go).
#include <algorithm>
#include <string>
#include <vector>

#include "api/schema/field_error.h"
#include "api/schema/go_format.h"
#include "api/schema/structural_schema.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"

namespace kai::api::schema {
namespace {

std::string UnmarshalError(const JsonValue& v, const std::string& field, const char* go_type) {
  std::string what = std::string(GoJsonTypeName(v));
  if (v.IsNumber()) what += " " + GoValueString(v);
  return "json: cannot unmarshal " + what + " into Go struct field " + field + " of type " +
         go_type;
}

// Checks and normalizes one metav1.ObjectMeta-shaped object in place. Unknown fields are removed
// (and reported); zero values are dropped like Go's omitempty; times are re-rendered in RFC 3339.
// A field of the wrong type is an error, or dropped when drop_invalid.
class MetaNormalizer {
 public:
  MetaNormalizer(JsonAllocator& alloc, bool drop_invalid, const std::string& path,
                 std::vector<std::string>* unknown)
      : alloc_(alloc), drop_(drop_invalid), path_(path), unknown_(unknown) {}

  // Returns an error message (empty when fine).
  std::string Run(JsonValue* meta, bool embedded) {
    if (!meta->IsObject()) {
      if (meta->IsNull()) return "";
      return "json: cannot unmarshal " + std::string(GoJsonTypeName(*meta)) +
             " into Go value of type v1.ObjectMeta";
    }
    for (auto it = meta->MemberBegin(); it != meta->MemberEnd();) {
      std::string_view k = MemberKey(*it);
      std::string err;
      bool remove = false;
      JsonValue& v = it->value;
      if (k == "name" || k == "generateName" || k == "namespace" || k == "selfLink" || k == "uid" ||
          k == "resourceVersion") {
        if (v.IsNull() || (v.IsString() && v.GetStringLength() == 0)) {
          remove = true;
        } else if (!v.IsString()) {
          err = UnmarshalError(v, "ObjectMeta." + std::string(k), "string");
        }
      } else if (k == "generation" || k == "deletionGracePeriodSeconds") {
        if (v.IsNull() || (k == "generation" && v.IsInt64() && v.GetInt64() == 0)) {
          remove = true;
        } else if (!v.IsInt64()) {
          err = UnmarshalError(v, "ObjectMeta." + std::string(k), "int64");
        }
      } else if (k == "creationTimestamp" || k == "deletionTimestamp") {
        if (v.IsNull()) {
          remove = true;
        } else if (!v.IsString()) {
          err = UnmarshalError(v, "ObjectMeta." + std::string(k), "v1.Time");
        } else {
          std::string_view s(v.GetString(), v.GetStringLength());
          auto t = ParseRfc3339(s);
          if (!t.ok()) {
            err = "parsing time " + GoQuote(s) + " as \"2006-01-02T15:04:05Z07:00\": cannot parse";
          } else {
            std::string norm = FormatRfc3339(*t);
            v.SetString(norm.data(), static_cast<rapidjson::SizeType>(norm.size()), alloc_);
          }
        }
      } else if (k == "labels" || k == "annotations") {
        if (v.IsNull() || (v.IsObject() && v.ObjectEmpty())) {
          remove = true;
        } else if (!v.IsObject()) {
          err = UnmarshalError(v, "ObjectMeta." + std::string(k), "map[string]string");
        } else {
          for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
            if (m->value.IsNull()) {
              m->value.SetString("", alloc_);
            } else if (!m->value.IsString()) {
              err = UnmarshalError(m->value, "ObjectMeta." + std::string(k), "string");
              break;
            }
          }
        }
      } else if (k == "finalizers") {
        if (v.IsNull() || (v.IsArray() && v.Empty())) {
          remove = true;
        } else if (!v.IsArray()) {
          err = UnmarshalError(v, "ObjectMeta.finalizers", "[]string");
        } else {
          for (auto& e : v.GetArray()) {
            if (!e.IsString()) {
              err = UnmarshalError(e, "ObjectMeta.finalizers", "string");
              break;
            }
          }
        }
      } else if (k == "ownerReferences") {
        if (v.IsNull() || (v.IsArray() && v.Empty())) {
          remove = true;
        } else if (!v.IsArray()) {
          err = UnmarshalError(v, "ObjectMeta.ownerReferences", "[]v1.OwnerReference");
        } else {
          for (auto& ref : v.GetArray()) {
            err = OwnerReference(&ref);
            if (!err.empty()) break;
          }
        }
      } else if (k == "managedFields") {
        if (v.IsNull() || (v.IsArray() && v.Empty())) {
          remove = true;
        } else if (!v.IsArray()) {
          err = UnmarshalError(v, "ObjectMeta.managedFields", "[]v1.ManagedFieldsEntry");
        }
      } else {
        // Not an ObjectMeta field: dropped by the round trip through the typed struct.
        if (unknown_ != nullptr) unknown_->push_back(path_ + "." + std::string(k));
        remove = true;
      }
      if (!err.empty()) {
        if (!drop_) return err;
        remove = true;
      }
      if (remove) {
        it = meta->EraseMember(it);
      } else {
        ++it;
      }
    }
    (void)embedded;
    return "";
  }

 private:
  std::string OwnerReference(JsonValue* ref) {
    if (!ref->IsObject()) {
      return UnmarshalError(*ref, "ObjectMeta.ownerReferences", "v1.OwnerReference");
    }
    for (auto it = ref->MemberBegin(); it != ref->MemberEnd();) {
      std::string_view k = MemberKey(*it);
      JsonValue& v = it->value;
      bool remove = false;
      if (k == "apiVersion" || k == "kind" || k == "name" || k == "uid") {
        if (!v.IsString() && !v.IsNull()) {
          return UnmarshalError(v, "OwnerReference." + std::string(k), "string");
        }
        if (v.IsNull()) v.SetString("", alloc_);
      } else if (k == "controller" || k == "blockOwnerDeletion") {
        if (v.IsNull()) {
          remove = true;
        } else if (!v.IsBool()) {
          return UnmarshalError(v, "OwnerReference." + std::string(k), "bool");
        }
      } else {
        remove = true;
      }
      it = remove ? ref->EraseMember(it) : it + 1;
    }
    return "";
  }

  JsonAllocator& alloc_;
  bool drop_;
  std::string path_;
  std::vector<std::string>* unknown_;
};

// objectmeta.Coerce below the root: embedded resources get the same treatment.
Status CoerceEmbedded(const Node* s, JsonValue* x, JsonAllocator& alloc, bool drop,
                      const std::string& path, std::vector<std::string>* unknown, int depth) {
  if (s == nullptr || depth > kMaxJsonDepth) return Status::OK();
  if (x->IsObject()) {
    for (auto it = x->MemberBegin(); it != x->MemberEnd();) {
      std::string k(MemberKey(*it));
      std::string child = path.empty() ? k : StrCat(path, ".", k);
      if (s->embedded_resource) {
        if (k == "apiVersion" || k == "kind") {
          if (!it->value.IsString()) {
            if (drop) {
              it = x->EraseMember(it);
              continue;
            }
            return MakeBadRequestStatus(
                StrCat(child, ": Invalid value: ", GoValueString(it->value), ": must be a string"));
          }
        } else if (k == "metadata") {
          MetaNormalizer mn(alloc, drop, child, unknown);
          std::string err = mn.Run(&it->value, true);
          if (!err.empty()) {
            return MakeBadRequestStatus(
                StrCat(child, ": Invalid value: ", GoValueString(it->value), ": ", err));
          }
        }
      }
      bool known = false;
      const Node* sub = s->SchemaForMember(k, &known);
      KAI_RETURN_IF_ERROR(CoerceEmbedded(sub, &it->value, alloc, drop, child, unknown, depth + 1));
      ++it;
    }
  } else if (x->IsArray()) {
    for (rapidjson::SizeType i = 0; i < x->Size(); ++i) {
      KAI_RETURN_IF_ERROR(CoerceEmbedded(s->items.get(), &(*x)[i], alloc, drop,
                                         path + "[" + std::to_string(i) + "]", unknown, depth + 1));
    }
  }
  return Status::OK();
}

class Pruner {
 public:
  explicit Pruner(std::vector<std::string>* unknown) : unknown_(unknown) {}

  void Prune(JsonValue* x, const Node* s, bool embedded, std::string* path, int depth) {
    if (depth > kMaxJsonDepth) return;
    if (s != nullptr && s->preserve_unknown_fields) {
      SkipPrune(x, s, embedded, path, depth);
      return;
    }
    size_t len = path->size();
    if (x->IsObject()) {
      if (s == nullptr) {
        for (auto it = x->MemberBegin(); it != x->MemberEnd(); ++it) Record(path, MemberKey(*it));
        x->RemoveAllMembers();
        return;
      }
      for (auto it = x->MemberBegin(); it != x->MemberEnd();) {
        std::string_view k = MemberKey(*it);
        bool meta = k == "apiVersion" || k == "kind" || k == "metadata";
        if ((embedded || s->embedded_resource) && meta) {
          ++it;
          continue;
        }
        if (const Node* prop = s->FindProperty(k)) {
          AppendKey(path, k);
          Prune(&it->value, prop, false, path, depth + 1);
          path->resize(len);
          ++it;
        } else if (s->has_additional_properties) {
          AppendKey(path, k);
          Prune(&it->value, s->additional_properties.get(), false, path, depth + 1);
          path->resize(len);
          ++it;
        } else {
          if (!meta || !path->empty()) Record(path, k);
          it = x->EraseMember(it);
        }
      }
    } else if (x->IsArray()) {
      for (rapidjson::SizeType i = 0; i < x->Size(); ++i) {
        *path += "[" + std::to_string(i) + "]";
        Prune(&(*x)[i], s == nullptr ? nullptr : s->items.get(), false, path, depth + 1);
        path->resize(len);
      }
    }
  }

 private:
  void SkipPrune(JsonValue* x, const Node* s, bool embedded, std::string* path, int depth) {
    if (s == nullptr || depth > kMaxJsonDepth) return;
    size_t len = path->size();
    if (x->IsObject()) {
      for (auto it = x->MemberBegin(); it != x->MemberEnd(); ++it) {
        std::string_view k = MemberKey(*it);
        if ((embedded || s->embedded_resource) &&
            (k == "apiVersion" || k == "kind" || k == "metadata")) {
          continue;
        }
        if (const Node* prop = s->FindProperty(k)) {
          AppendKey(path, k);
          Prune(&it->value, prop, false, path, depth + 1);
          path->resize(len);
        } else if (s->has_additional_properties) {
          AppendKey(path, k);
          Prune(&it->value, s->additional_properties.get(), false, path, depth + 1);
          path->resize(len);
        }
      }
    } else if (x->IsArray()) {
      for (rapidjson::SizeType i = 0; i < x->Size(); ++i) {
        *path += "[" + std::to_string(i) + "]";
        SkipPrune(&(*x)[i], s->items.get(), false, path, depth + 1);
        path->resize(len);
      }
    }
  }

  static void AppendKey(std::string* path, std::string_view k) {
    if (!path->empty()) path->push_back('.');
    path->append(k);
  }

  void Record(const std::string* path, std::string_view k) {
    if (unknown_ == nullptr) return;
    unknown_->push_back(path->empty() ? std::string(k) : *path + "." + std::string(k));
  }

  std::vector<std::string>* unknown_;
};

bool NonNullableNull(const JsonValue& v, const Node* s) {
  return v.IsNull() && s != nullptr && !s->nullable;
}

void DropNullsRec(JsonValue* x, const Node* s, int depth) {
  if (depth > kMaxJsonDepth) return;
  if (x->IsObject()) {
    for (auto it = x->MemberBegin(); it != x->MemberEnd();) {
      const Node* sub = nullptr;
      if (s != nullptr) {
        bool known = false;
        sub = s->SchemaForMember(MemberKey(*it), &known);
      }
      if (NonNullableNull(it->value, sub) &&
          (sub->default_value == nullptr || sub->default_value->IsNull())) {
        it = x->EraseMember(it);
      } else {
        DropNullsRec(&it->value, sub, depth + 1);
        ++it;
      }
    }
  } else if (x->IsArray()) {
    const Node* items = s == nullptr ? nullptr : s->items.get();
    for (auto& e : x->GetArray()) DropNullsRec(&e, items, depth + 1);
  }
}

bool HasDefault(const Node* s) {
  return s != nullptr && s->default_value != nullptr && !s->default_value->IsNull();
}

void DefaultRec(JsonValue* x, const Node* s, JsonAllocator& alloc, int depth) {
  if (s == nullptr || depth > kMaxJsonDepth) return;
  if (x->IsObject()) {
    for (const Property& prop : s->properties) {
      if (!HasDefault(prop.node.get())) continue;
      auto it = x->FindMember(rapidjson::StringRef(
          prop.name.data(), static_cast<rapidjson::SizeType>(prop.name.size())));
      if (it == x->MemberEnd()) {
        JsonValue key(prop.name.data(), static_cast<rapidjson::SizeType>(prop.name.size()), alloc);
        JsonValue val(*prop.node->default_value, alloc);
        x->AddMember(key, val, alloc);
      } else if (NonNullableNull(it->value, prop.node.get())) {
        it->value.CopyFrom(*prop.node->default_value, alloc);
      }
    }
    for (auto it = x->MemberBegin(); it != x->MemberEnd(); ++it) {
      if (const Node* prop = s->FindProperty(MemberKey(*it))) {
        DefaultRec(&it->value, prop, alloc, depth + 1);
      } else if (s->has_additional_properties && s->additional_properties) {
        const Node* ap = s->additional_properties.get();
        if (NonNullableNull(it->value, ap) && HasDefault(ap)) {
          it->value.CopyFrom(*ap->default_value, alloc);
        }
        DefaultRec(&it->value, ap, alloc, depth + 1);
      }
    }
  } else if (x->IsArray()) {
    const Node* items = s->items.get();
    for (auto& e : x->GetArray()) {
      if (NonNullableNull(e, items) && HasDefault(items)) e.CopyFrom(*items->default_value, alloc);
      DefaultRec(&e, items, alloc, depth + 1);
    }
  }
}

}  // namespace

Status StructuralSchema::CoerceMetadata(JsonValue* obj, JsonAllocator& alloc,
                                        bool drop_invalid_fields,
                                        std::vector<std::string>* unknown_fields) const {
  if (!obj->IsObject()) return MakeBadRequestStatus("the object must be a JSON object");
  for (auto it = obj->MemberBegin(); it != obj->MemberEnd();) {
    std::string_view k = MemberKey(*it);
    if ((k == "apiVersion" || k == "kind") && !it->value.IsString()) {
      if (drop_invalid_fields) {
        it = obj->EraseMember(it);
        continue;
      }
      return MakeBadRequestStatus(std::string(k) + ": Invalid value: " + GoValueString(it->value) +
                                  ": must be a string");
    }
    if (k == "metadata") {
      MetaNormalizer mn(alloc, drop_invalid_fields, "metadata", unknown_fields);
      std::string err = mn.Run(&it->value, false);
      if (!err.empty()) return MakeBadRequestStatus(err);
      if (it->value.IsNull()) {
        it = obj->EraseMember(it);
        continue;
      }
    }
    ++it;
  }
  // Embedded resources below the root (the root itself is not treated as embedded here).
  for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it) {
    std::string k(MemberKey(*it));
    if (k == "apiVersion" || k == "kind" || k == "metadata") continue;
    bool known = false;
    const Node* sub = root_->SchemaForMember(k, &known);
    KAI_RETURN_IF_ERROR(
        CoerceEmbedded(sub, &it->value, alloc, drop_invalid_fields, k, unknown_fields, 1));
  }
  return Status::OK();
}

void StructuralSchema::Prune(JsonValue* obj, std::vector<std::string>* unknown_fields) const {
  Pruner p(unknown_fields);
  std::string path;
  size_t before = unknown_fields == nullptr ? 0 : unknown_fields->size();
  p.Prune(obj, root_.get(), /*embedded=*/true, &path, 0);
  if (unknown_fields != nullptr) {
    std::sort(unknown_fields->begin() + static_cast<long>(before), unknown_fields->end());
  }
}

void StructuralSchema::DropNulls(JsonValue* obj) const { DropNullsRec(obj, root_.get(), 0); }

void StructuralSchema::Default(JsonValue* obj, JsonAllocator& alloc) const {
  DefaultRec(obj, root_.get(), alloc, 0);
}

Status StructuralSchema::Admit(JsonValue* obj, JsonAllocator& alloc, FieldErrorList* errors,
                               std::vector<std::string>* unknown_fields) const {
  std::vector<std::string> unknown;
  KAI_RETURN_IF_ERROR(CoerceMetadata(obj, alloc, /*drop_invalid_fields=*/false, &unknown));
  Prune(obj, &unknown);
  DropNulls(obj);
  Default(obj, alloc);
  if (unknown_fields != nullptr) {
    std::sort(unknown.begin(), unknown.end());
    unknown.erase(std::unique(unknown.begin(), unknown.end()), unknown.end());
    unknown_fields->insert(unknown_fields->end(), unknown.begin(), unknown.end());
  }
  FieldErrorList errs = Validate(*obj);
  errors->insert(errors->end(), errs.begin(), errs.end());
  return Status::OK();
}

void StructuralSchema::NormalizeStored(JsonValue* obj, JsonAllocator& alloc) const {
  CoerceMetadata(obj, alloc, /*drop_invalid_fields=*/true, nullptr).IgnoreError();
  Prune(obj, nullptr);
  DropNulls(obj);
  Default(obj, alloc);
}

}  // namespace kai::api::schema
