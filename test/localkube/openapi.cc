// OpenAPI v3 as kubectl uses it. kubectl 1.32 fetches /openapi/v3 and the group-version documents
// to learn (a) whether the server supports the fieldValidation query parameter on PATCH for a
// kind (then it validates server-side and sends fieldValidation=Strict), and (b) whether a kind
// supports strategic merge patch through OpenAPI (we say no, so kubectl computes strategic
// patches from its compiled-in types, and merge patches for custom resources, exactly as it
// does against servers without schemas). Component schemas are not served: `kubectl explain`
// is not supported. /openapi/v2 answers 404 (kubectl then uses its compiled-in types).
#include "test/localkube/openapi.h"

#include <algorithm>
#include <map>

#include "kube/base/strings.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"

namespace kai::localkube {
namespace {

std::string GvPath(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

uint64_t Fnv(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
  return h;
}

std::string Hex(uint64_t v) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<size_t>(i)] = kHex[v & 15];
    v >>= 4;
  }
  return out;
}

std::string Param(const char* name, const char* desc) {
  return std::string("{\"name\":\"") + name +
         "\",\"in\":\"query\",\"description\":" + Quoted(desc) +
         ",\"schema\":{\"type\":\"string\",\"uniqueItems\":true}}";
}

std::string Gvk(const ResourceInfo& r) {
  return "{\"group\":" + Quoted(r.group) + ",\"version\":" + Quoted(r.version) +
         ",\"kind\":" + Quoted(r.kind) + "}";
}

std::string Operation(const ResourceInfo& r, const std::string& action, bool patch) {
  std::string op = "{\"operationId\":" + Quoted(action + r.kind) +
                   ",\"x-kubernetes-action\":" + Quoted(action) +
                   ",\"x-kubernetes-group-version-kind\":" + Gvk(r) +
                   ",\"responses\":{\"200\":{\"description\":\"OK\"}}";
  if (patch || action == "put" || action == "post") {
    op += ",\"parameters\":[" + Param("dryRun", "When present, modifications are not persisted.") +
          "," + Param("fieldManager", "A name associated with the actor making these changes.") +
          "," +
          Param("fieldValidation",
                "Instructs the server how to handle objects in the request containing unknown or "
                "duplicate fields. Valid values are Ignore, Warn, Strict.");
    if (patch) op += "," + Param("force", "Force is going to \"force\" Apply requests.");
    op += "]";
    op += ",\"requestBody\":{\"content\":{";
    if (patch) {
      op +=
          "\"application/apply-patch+yaml\":{\"schema\":{\"type\":\"object\"}},"
          "\"application/json-patch+json\":{\"schema\":{\"type\":\"object\"}},"
          "\"application/merge-patch+json\":{\"schema\":{\"type\":\"object\"}}";
    } else {
      op += "\"*/*\":{\"schema\":{\"type\":\"object\"}}";
    }
    op += "},\"required\":true}";
  }
  return op + "}";
}

std::string GroupVersionDoc(const ResourceRegistry& reg, const std::string& group,
                            const std::string& version) {
  std::string paths;
  for (const ResourcePtr& r : reg.All()) {
    if (r->group != group || r->version != version) continue;
    if (std::find(r->verbs.begin(), r->verbs.end(), "get") == r->verbs.end()) continue;
    const std::string base = "/" + GvPath(group, version) +
                             (r->namespaced ? "/namespaces/{namespace}/" : "/") + r->resource;
    if (!paths.empty()) paths += ",";
    paths += Quoted(base) + ":{\"get\":" + Operation(*r, "list", false) +
             ",\"post\":" + Operation(*r, "post", false) + "}";
    paths += "," + Quoted(base + "/{name}") + ":{\"get\":" + Operation(*r, "get", false) +
             ",\"put\":" + Operation(*r, "put", false) +
             ",\"patch\":" + Operation(*r, "patch", true) +
             ",\"delete\":" + Operation(*r, "delete", false) + "}";
    if (r->has_status()) {
      paths += "," + Quoted(base + "/{name}/status") + ":{\"get\":" + Operation(*r, "get", false) +
               ",\"put\":" + Operation(*r, "put", false) +
               ",\"patch\":" + Operation(*r, "patch", true) + "}";
    }
  }
  return "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"Kubernetes\",\"version\":\"v1.32.0\"},"
         "\"paths\":{" +
         paths + "},\"components\":{\"schemas\":{}}}";
}

Status NotFound() {
  Status s(StatusCode::kNotFound, "the server could not find the requested resource");
  s.SetReason("NotFound").SetHttpCode(404);
  return s;
}

}  // namespace

StatusOr<std::string> OpenApiDocument(const ResourceRegistry& registry, const std::string& path) {
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    std::string out = "{\"paths\":{";
    bool first = true;
    for (const auto& [group, versions] : registry.Groups()) {
      for (const std::string& v : versions) {
        const std::string gv = GvPath(group, v);
        const std::string hash = Hex(Fnv(GroupVersionDoc(registry, group, v)));
        if (!first) out += ",";
        first = false;
        out += StrCat(Quoted(gv), ":{\"serverRelativeURL\":",
                      Quoted(StrCat("/openapi/v3/", gv, "?hash=", hash)), "}");
      }
    }
    return out + "}}";
  }
  const std::string prefix = "/openapi/v3/";
  if (path.rfind(prefix, 0) == 0) {
    const std::string gv = path.substr(prefix.size());
    for (const auto& [group, versions] : registry.Groups()) {
      for (const std::string& v : versions) {
        if (GvPath(group, v) == gv) return GroupVersionDoc(registry, group, v);
      }
    }
  }
  return NotFound();
}

}  // namespace kai::localkube
