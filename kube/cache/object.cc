#include "kube/cache/object.h"

#include <glog/logging.h>
#include <rapidjson/document.h>

#include "kube/rest/json_scan.h"

namespace kai::kube {

Object::Object(std::string_view ns, std::string_view name, std::string resource_version,
               std::string uid, std::shared_ptr<const std::string> json,
               std::shared_ptr<const void> typed, const std::type_info* type)
    : key_(ObjectKey(ns, name)),
      ns_len_(ns.size()),
      resource_version_(std::move(resource_version)),
      uid_(std::move(uid)),
      json_(std::move(json)),
      typed_(std::move(typed)),
      type_(type) {}

Object::Object(std::string_view ns, std::string_view name, std::string resource_version,
               std::string uid, std::shared_ptr<const std::string> json, const std::type_info* type,
               TypedDecodeFn decode, ScannedFields fields)
    : key_(ObjectKey(ns, name)),
      ns_len_(ns.size()),
      resource_version_(std::move(resource_version)),
      uid_(std::move(uid)),
      json_(std::move(json)),
      type_(type),
      decode_(json_ != nullptr ? decode : nullptr),
      fields_(std::move(fields)) {}

const void* Object::Typed() const {
  if (decode_ == nullptr) return typed_.get();
  std::call_once(lazy_once_, [this] {
    StatusOr<std::shared_ptr<const void>> typed = decode_(json_);
    if (typed.ok()) {
      typed_ = std::move(*typed);
    } else {
      LOG(ERROR) << "cached object " << key_ << " (resourceVersion " << resource_version_
                 << ") does not decode: " << typed.status();
    }
    decoded_.store(true, std::memory_order_release);
  });
  return typed_.get();
}

bool Object::decoded() const {
  return decode_ == nullptr || decoded_.load(std::memory_order_acquire);
}

const std::string* Object::label(std::string_view key) const {
  for (const auto& [k, v] : fields_.labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string ObjectKey(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  if (!ns.empty()) {
    key.append(ns);
    key.push_back('/');
  }
  key.append(name);
  return key;
}

namespace {

std::string Unescaped(std::string_view raw, bool escaped) {
  if (!escaped) return std::string(raw);
  rapidjson::Document d;
  const std::string quoted = "\"" + std::string(raw) + "\"";
  d.Parse(quoted.data(), quoted.size());
  return d.IsString() ? std::string(d.GetString(), d.GetStringLength()) : std::string(raw);
}

// One structural pass over an object: metadata's identity, the wanted fields and labels.
class ObjectScan {
 public:
  ObjectScan(const std::string& json, const std::vector<FieldPath>& paths, bool labels)
      : json_(json), sc_(json), paths_(paths), want_labels_(labels) {
    fields_.values.resize(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
      all_.push_back(i);
      if (paths[i].size() > 1 && paths[i][0] == "metadata") meta_.push_back(i);
    }
  }

  Status Run() {
    const bool ok = sc_.Members([&](std::string_view key, bool escaped) {
      if (key == "metadata") return Metadata();
      return Descend(key, escaped, 0, all_);
    }) && sc_.AtEnd();
    if (!ok) {
      return InvalidArgumentError("undecodable object at offset " + std::to_string(sc_.offset()));
    }
    if (name_.empty()) return InvalidArgumentError("object without metadata.name");
    return Status::OK();
  }

  std::string ns_, name_, rv_, uid_;
  ScannedFields fields_;

 private:
  using Set = std::vector<size_t>;  // indexes into paths_ still matching

  // The scanner is on the value of member `key` at `depth` of the paths in `live`.
  bool Descend(std::string_view key, bool escaped, size_t depth, const Set& live) {
    Set next;
    for (size_t i : live) {
      if (!escaped && paths_[i].size() > depth && paths_[i][depth] == key) next.push_back(i);
    }
    if (next.empty()) return sc_.SkipValue();
    for (size_t i : next) {
      if (paths_[i].size() == depth + 1) return Scalar(&fields_.values[i]);
    }
    if (!sc_.Peek('{')) return sc_.SkipValue();
    return sc_.Members([&](std::string_view k, bool e) { return Descend(k, e, depth + 1, next); });
  }

  bool Metadata() {
    if (!sc_.Peek('{')) return sc_.SkipValue();
    return sc_.Members([&](std::string_view mkey, bool escaped) {
      std::string* target = mkey == "namespace"         ? &ns_
                            : mkey == "name"            ? &name_
                            : mkey == "resourceVersion" ? &rv_
                            : mkey == "uid"             ? &uid_
                                                        : nullptr;
      if (target != nullptr) {
        std::string_view v;
        bool e;
        if (!sc_.String(&v, &e)) return false;
        *target = Unescaped(v, e);
        return true;
      }
      if (want_labels_ && mkey == "labels") return Labels();
      return Descend(mkey, escaped, 1, meta_);
    });
  }

  bool Labels() {
    if (!sc_.Peek('{')) return sc_.SkipValue();
    return sc_.Members([&](std::string_view k, bool ke) {
      if (!sc_.Peek('"')) return sc_.SkipValue();
      std::string_view v;
      bool ve;
      if (!sc_.String(&v, &ve)) return false;
      fields_.labels.emplace_back(Unescaped(k, ke), Unescaped(v, ve));
      return true;
    });
  }

  // A string's content, a number's or literal's text; objects and arrays are skipped ("").
  bool Scalar(std::string* out) {
    if (sc_.Peek('"')) {
      std::string_view v;
      bool e;
      if (!sc_.String(&v, &e)) return false;
      *out = Unescaped(v, e);
      return true;
    }
    if (sc_.Peek('{') || sc_.Peek('[')) return sc_.SkipValue();
    const size_t start = sc_.offset();
    if (!sc_.SkipValue()) return false;
    *out = json_.substr(start, sc_.offset() - start);
    if (*out == "null") out->clear();
    return true;
  }

  const std::string& json_;
  internal::JsonScanner sc_;
  const std::vector<FieldPath>& paths_;
  const bool want_labels_;
  Set all_, meta_;
};

}  // namespace

Decoder RawDecoder() {
  return [](std::string json) -> StatusOr<ObjectPtr> {
    // Reads metadata.{namespace,name,resourceVersion,uid} and checks the structure of the rest.
    static const std::vector<FieldPath> kNone;
    ObjectScan scan(json, kNone, false);
    KAI_RETURN_IF_ERROR(scan.Run());
    return std::make_shared<const Object>(
        scan.ns_, scan.name_, std::move(scan.rv_), std::move(scan.uid_),
        std::make_shared<const std::string>(std::move(json)), nullptr, nullptr);
  };
}

Decoder ScanningDecoder(std::vector<FieldPath> fields, bool labels, const std::type_info* type,
                        Object::TypedDecodeFn decode) {
  return
      [fields = std::move(fields), labels, type, decode](std::string json) -> StatusOr<ObjectPtr> {
        ObjectScan scan(json, fields, labels);
        KAI_RETURN_IF_ERROR(scan.Run());
        return std::make_shared<const Object>(scan.ns_, scan.name_, std::move(scan.rv_),
                                              std::move(scan.uid_),
                                              std::make_shared<const std::string>(std::move(json)),
                                              type, decode, std::move(scan.fields_));
      };
}

}  // namespace kai::kube
