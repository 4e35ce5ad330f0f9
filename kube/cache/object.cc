#include "kube/cache/object.h"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <vector>

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

// Reads metadata.{namespace,name,resourceVersion,uid} of a top-level object and stops as soon
// as the metadata object ends.
struct MetaHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, MetaHandler> {
  int depth = 0;
  bool in_metadata = false;
  bool metadata_done = false;
  std::string root_key;
  std::string meta_key;
  std::string ns, name, rv, uid;

  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (in_metadata && depth == 2) {
      if (meta_key == "namespace") ns.assign(s, n);
      if (meta_key == "name") name.assign(s, n);
      if (meta_key == "resourceVersion") rv.assign(s, n);
      if (meta_key == "uid") uid.assign(s, n);
    }
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (depth == 1) root_key.assign(s, n);
    if (in_metadata && depth == 2) meta_key.assign(s, n);
    return true;
  }
  bool StartObject() {
    ++depth;
    if (depth == 2 && root_key == "metadata") in_metadata = true;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    if (in_metadata && depth == 2) {
      metadata_done = true;
      return false;  // nothing else is needed
    }
    --depth;
    return true;
  }
  bool StartArray() {
    ++depth;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --depth;
    return true;
  }
};

}  // namespace

Decoder RawDecoder() {
  return [](std::string json) -> StatusOr<ObjectPtr> {
    MetaHandler h;
    rapidjson::MemoryStream stream(json.data(), json.size());
    rapidjson::Reader reader;
    rapidjson::ParseResult r = reader.Parse<rapidjson::kParseIterativeFlag>(stream, h);
    if (r.IsError() && !h.metadata_done) {
      return InvalidArgumentError("undecodable object at offset " + std::to_string(r.Offset()));
    }
    if (h.name.empty()) return InvalidArgumentError("object without metadata.name");
    return std::make_shared<const Object>(h.ns, h.name, std::move(h.rv), std::move(h.uid),
                                          std::make_shared<const std::string>(std::move(json)),
                                          nullptr, nullptr);
  };
}

}  // namespace kai::kube
