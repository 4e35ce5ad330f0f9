#include "kube/rest/resource.h"

#include "kube/rest/options.h"
#include "kube/rest/watch.h"

namespace kai::kube {
namespace {

// Escapes a path segment (RFC 3986 unreserved characters stay as they are).
void AppendSegment(std::string* out, std::string_view seg) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('/');
  for (unsigned char c : seg) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || c == ':' || c == '@') {
      out->push_back(static_cast<char>(c));
    } else {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
}

}  // namespace

std::string ResourcePath(const GroupVersionResource& gvr, std::string_view ns,
                         std::string_view name, std::string_view subresource) {
  std::string path;
  path.reserve(64);
  if (gvr.group.empty()) {
    path = "/api";
  } else {
    path = "/apis";
    AppendSegment(&path, gvr.group);
  }
  AppendSegment(&path, gvr.version);
  if (!ns.empty() && !(gvr.group.empty() && gvr.resource == "namespaces")) {
    path += "/namespaces";
    AppendSegment(&path, ns);
  }
  AppendSegment(&path, gvr.resource);
  if (!name.empty()) {
    AppendSegment(&path, name);
    if (!subresource.empty()) AppendSegment(&path, subresource);
  }
  return path;
}

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

std::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "ERROR";
}

}  // namespace kai::kube
