#include "test/localkube/object_builder.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

namespace kai::localkube {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr std::string_view kMetaOrder[] = {"name",
                                           "generateName",
                                           "namespace",
                                           "selfLink",
                                           "uid",
                                           "resourceVersion",
                                           "generation",
                                           "creationTimestamp",
                                           "deletionTimestamp",
                                           "deletionGracePeriodSeconds",
                                           "labels",
                                           "annotations",
                                           "ownerReferences",
                                           "finalizers",
                                           "managedFields"};

bool InMetaOrder(std::string_view k) {
  for (std::string_view x : kMetaOrder) {
    if (x == k) return true;
  }
  return false;
}

void Key(Writer& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

// Writes metadata; returns the offset of the resourceVersion value contents.
size_t WriteMetadata(Writer& w, rapidjson::StringBuffer& buf, const Json& meta, uint64_t rv) {
  size_t offset = 0;
  w.StartObject();
  for (std::string_view k : kMetaOrder) {
    if (k == "resourceVersion") {
      Key(w, k);
      if (rv == 0) {
        w.String("", 0);
        offset = buf.GetSize() - 1;
      } else {
        const std::string s = std::to_string(rv);
        w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
      }
      continue;
    }
    const Json* v = Member(meta, k);
    if (v == nullptr || v->IsNull()) continue;
    Key(w, k);
    v->Accept(w);
  }
  if (meta.IsObject()) {
    for (auto it = meta.MemberBegin(); it != meta.MemberEnd(); ++it) {
      if (InMetaOrder(View(it->name))) continue;
      Key(w, View(it->name));
      it->value.Accept(w);
    }
  }
  w.EndObject();
  return offset;
}

size_t WriteObject(Writer& w, rapidjson::StringBuffer& buf, const Json& doc, uint64_t rv) {
  size_t offset = 0;
  w.StartObject();
  for (std::string_view k : {"apiVersion", "kind"}) {
    if (const Json* v = Member(doc, k); v != nullptr) {
      Key(w, k);
      v->Accept(w);
    }
  }
  Key(w, "metadata");
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* meta = Member(doc, "metadata");
  offset = WriteMetadata(w, buf, meta != nullptr ? *meta : kEmpty, rv);
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (k == "apiVersion" || k == "kind" || k == "metadata") continue;
    Key(w, k);
    it->value.Accept(w);
  }
  w.EndObject();
  return offset;
}

void Extract(const Json& doc, const std::vector<std::string>& selectable_fields, Object* o,
             std::string* ns, std::string* name, std::string* uid, int64_t* gen, bool* deleting,
             Labels* labels, std::vector<std::string>* finalizers,
             std::vector<OwnerReference>* owners,
             std::vector<std::pair<std::string, std::string>>* fields) {
  const Json* meta = Member(doc, "metadata");
  static const Json kEmpty(rapidjson::kObjectType);
  if (meta == nullptr) meta = &kEmpty;
  *ns = GetStr(*meta, {"namespace"});
  *name = GetStr(*meta, {"name"});
  *uid = GetStr(*meta, {"uid"});
  *gen = GetInt(*meta, {"generation"}).value_or(0);
  const Json* dt = Member(*meta, "deletionTimestamp");
  *deleting = dt != nullptr && !dt->IsNull();
  if (const Json* l = Member(*meta, "labels"); l != nullptr && l->IsObject()) {
    for (auto it = l->MemberBegin(); it != l->MemberEnd(); ++it) {
      labels->emplace_back(std::string(View(it->name)), std::string(View(it->value)));
    }
    std::sort(labels->begin(), labels->end());
  }
  if (const Json* f = Member(*meta, "finalizers"); f != nullptr && f->IsArray()) {
    for (const Json& x : f->GetArray()) finalizers->emplace_back(View(x));
  }
  if (const Json* refs = Member(*meta, "ownerReferences"); refs != nullptr && refs->IsArray()) {
    for (const Json& r : refs->GetArray()) {
      OwnerReference o2;
      o2.api_version = GetStr(r, {"apiVersion"});
      o2.kind = GetStr(r, {"kind"});
      o2.name = GetStr(r, {"name"});
      o2.uid = GetStr(r, {"uid"});
      o2.controller = GetBool(r, {"controller"}, false);
      o2.block_owner_deletion = GetBool(r, {"blockOwnerDeletion"}, false);
      owners->push_back(std::move(o2));
    }
  }
  for (const std::string& f : selectable_fields) {
    const Json* v = DottedPath(doc, f);
    if (v == nullptr || v->IsNull()) continue;
    fields->emplace_back(f, v->IsString() ? std::string(View(*v)) : ScalarText(*v));
  }
  (void)o;
}

}  // namespace

std::string_view Object::Field(std::string_view path) const {
  if (path == "metadata.name") return name_;
  if (path == "metadata.namespace") return namespace_name_;
  for (const auto& [k, v] : fields_) {
    if (k == path) return v;
  }
  return {};
}

size_t Object::ByteSize() const {
  size_t n = sizeof(Object) + json_.capacity() + namespace_name_.capacity() + name_.capacity() +
             uid_.capacity();
  for (const auto& [k, v] : labels_) n += k.capacity() + v.capacity() + 64;
  for (const auto& f : finalizers_) n += f.capacity() + 32;
  for (const auto& o : owners_) n += o.uid.capacity() + o.name.capacity() + o.kind.size() + 128;
  for (const auto& [k, v] : fields_) n += k.capacity() + v.capacity() + 64;
  return n;
}

PendingObject ObjectBuilder::Build(const Json& doc,
                                   const std::vector<std::string>& selectable_fields) {
  PendingObject p;
  p.object = std::make_shared<Object>();
  Object* o = p.object.get();
  rapidjson::StringBuffer buf;
  Writer w(buf);
  p.rv_offset = WriteObject(w, buf, doc, 0);
  o->json_.assign(buf.GetString(), buf.GetSize());
  Extract(doc, selectable_fields, o, &o->namespace_name_, &o->name_, &o->uid_, &o->generation_,
          &o->deleting_, &o->labels_, &o->finalizers_, &o->owners_, &o->fields_);
  return p;
}

ObjectPtr ObjectBuilder::Seal(PendingObject pending, uint64_t rv) {
  Object* o = pending.object.get();
  o->json_.insert(pending.rv_offset, std::to_string(rv));
  // Objects live long (100k pods): do not keep the growth slack of the serialization buffer.
  o->json_.shrink_to_fit();
  o->rv_ = rv;
  return std::move(pending.object);
}

StatusOr<ObjectPtr> ObjectBuilder::FromJson(std::string_view json,
                                            const std::vector<std::string>& selectable_fields) {
  KAI_ASSIGN_OR_RETURN(JsonDoc doc, Parse(json));
  if (!doc.IsObject()) return InvalidArgumentError("object JSON is not an object");
  const std::string rv_text = GetStr(doc, {"metadata", "resourceVersion"});
  uint64_t rv = 0;
  for (char c : rv_text) {
    if (c < '0' || c > '9') return InvalidArgumentError("invalid resourceVersion " + rv_text);
    rv = rv * 10 + static_cast<uint64_t>(c - '0');
  }
  return Rebuild(doc, selectable_fields, rv);
}

ObjectPtr ObjectBuilder::Rebuild(const Json& doc, const std::vector<std::string>& selectable_fields,
                                 uint64_t rv) {
  PendingObject p = Build(doc, selectable_fields);
  return Seal(std::move(p), rv);
}

namespace {
// Offset and length of the digits of metadata.resourceVersion. Canonical serialization puts it
// after apiVersion, kind and the string-valued name/generateName/namespace/selfLink/uid, and a
// JSON string can never contain an unescaped quote, so the first match is the right one.
bool FindRv(const std::string& json, size_t* off, size_t* len) {
  static constexpr std::string_view kNeedle = "\"resourceVersion\":\"";
  const size_t p = json.find(kNeedle);
  if (p == std::string::npos) return false;
  *off = p + kNeedle.size();
  const size_t end = json.find('"', *off);
  if (end == std::string::npos) return false;
  *len = end - *off;
  return true;
}
}  // namespace

ObjectPtr ObjectBuilder::WithRv(const ObjectPtr& obj, uint64_t rv) {
  auto copy = std::make_shared<Object>(*obj);
  size_t off = 0, len = 0;
  if (FindRv(copy->json_, &off, &len)) copy->json_.replace(off, len, std::to_string(rv));
  copy->rv_ = rv;
  return copy;
}

std::string ObjectBuilder::JsonWithoutRv(const Object& obj) {
  std::string out = obj.json_;
  size_t off = 0, len = 0;
  if (FindRv(out, &off, &len)) out.erase(off, len);
  return out;
}

}  // namespace kai::localkube
