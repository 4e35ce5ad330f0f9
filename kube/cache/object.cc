#include "kube/cache/object.h"

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

}  // namespace

Decoder RawDecoder() {
  return [](std::string json) -> StatusOr<ObjectPtr> {
    // Reads metadata.{namespace,name,resourceVersion,uid} and checks the structure of the rest.
    std::string ns, name, rv, uid;
    internal::JsonScanner sc(json);
    const bool ok = sc.Members([&](std::string_view key, bool) {
      if (key != "metadata") return sc.SkipValue();
      return sc.Members([&](std::string_view mkey, bool) {
        std::string* target = mkey == "namespace"         ? &ns
                              : mkey == "name"            ? &name
                              : mkey == "resourceVersion" ? &rv
                              : mkey == "uid"             ? &uid
                                                          : nullptr;
        if (target == nullptr) return sc.SkipValue();
        std::string_view v;
        bool e;
        if (!sc.String(&v, &e)) return false;
        *target = Unescaped(v, e);
        return true;
      });
    }) && sc.AtEnd();
    if (!ok)
      return InvalidArgumentError("undecodable object at offset " + std::to_string(sc.offset()));
    if (name.empty()) return InvalidArgumentError("object without metadata.name");
    return std::make_shared<const Object>(ns, name, std::move(rv), std::move(uid),
                                          std::make_shared<const std::string>(std::move(json)),
                                          nullptr, nullptr);
  };
}

}  // namespace kai::kube
