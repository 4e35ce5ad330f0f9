// Discovery (/version, /api, /apis, legacy and aggregated apidiscovery.k8s.io/v2) and OpenAPI.
#include <map>

#include "test/localkube/api_handler.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/openapi.h"

namespace kai::localkube {
namespace {

std::string StrList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + Quoted(v[i]);
  return out + "]";
}

struct SubInfo {
  std::string group, version, kind;
  std::vector<std::string> verbs;
};

bool SubresourceInfo(const ResourceInfo& r, const std::string& sub, SubInfo* out) {
  if (sub == "status") {
    *out = {r.group, r.version, r.kind, {"get", "patch", "update"}};
  } else if (sub == "scale") {
    *out = {"autoscaling", "v1", "Scale", {"get", "patch", "update"}};
  } else if (sub == "binding") {
    *out = {"", "v1", "Binding", {"create"}};
  } else if (sub == "eviction") {
    *out = {"policy", "v1", "Eviction", {"create"}};
  } else if (sub == "log") {
    *out = {"", "v1", "Pod", {"get"}};
  } else if (sub == "finalize") {
    *out = {"", "v1", "Namespace", {"update"}};
  } else if (sub == "ephemeralcontainers" || sub == "resize") {
    *out = {"", "v1", "Pod", {"get", "patch", "update"}};
  } else if (sub == "token") {
    *out = {"authentication.k8s.io", "v1", "TokenRequest", {"create"}};
  } else {
    return false;
  }
  return true;
}

std::string ResourceListJson(const std::string& group_version,
                             const std::vector<ResourcePtr>& resources) {
  std::string out = "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":" +
                    Quoted(group_version) + ",\"resources\":[";
  bool first = true;
  for (const ResourcePtr& r : resources) {
    if (!first) out += ",";
    first = false;
    out += "{\"name\":" + Quoted(r->resource) + ",\"singularName\":" + Quoted(r->singular) +
           ",\"namespaced\":" + (r->namespaced ? "true" : "false") +
           ",\"kind\":" + Quoted(r->kind) + ",\"verbs\":" + StrList(r->verbs);
    if (!r->short_names.empty()) out += ",\"shortNames\":" + StrList(r->short_names);
    if (!r->categories.empty()) out += ",\"categories\":" + StrList(r->categories);
    out += "}";
    for (const std::string& sub : r->subresources) {
      SubInfo si;
      if (!SubresourceInfo(*r, sub, &si)) continue;
      out += ",{\"name\":" + Quoted(r->resource + "/" + sub) +
             ",\"singularName\":\"\",\"namespaced\":" + (r->namespaced ? "true" : "false");
      if (si.group != r->group || si.version != r->version) {
        out += ",\"group\":" + Quoted(si.group) + ",\"version\":" + Quoted(si.version);
      }
      out += ",\"kind\":" + Quoted(si.kind) + ",\"verbs\":" + StrList(si.verbs) + "}";
    }
  }
  return out + "]}";
}

std::string GroupVersionJson(const std::string& group, const std::string& version) {
  const std::string gv = group.empty() ? version : group + "/" + version;
  return "{\"groupVersion\":" + Quoted(gv) + ",\"version\":" + Quoted(version) + "}";
}

std::string GroupJson(const std::string& group, const std::vector<std::string>& versions) {
  std::string out = "{\"name\":" + Quoted(group) + ",\"versions\":[";
  for (size_t i = 0; i < versions.size(); ++i) {
    out += (i ? "," : "") + GroupVersionJson(group, versions[i]);
  }
  out += "],\"preferredVersion\":" + GroupVersionJson(group, versions.front()) + "}";
  return out;
}

std::string AggregatedGroup(const std::string& group, const std::vector<std::string>& versions,
                            const std::vector<ResourcePtr>& all) {
  std::string out =
      "{\"metadata\":{\"name\":" + Quoted(group) + ",\"creationTimestamp\":null},\"versions\":[";
  bool first_v = true;
  for (const std::string& v : versions) {
    if (!first_v) out += ",";
    first_v = false;
    out += "{\"version\":" + Quoted(v) + ",\"resources\":[";
    bool first = true;
    for (const ResourcePtr& r : all) {
      if (r->group != group || r->version != v) continue;
      if (!first) out += ",";
      first = false;
      out += "{\"resource\":" + Quoted(r->resource) +
             ",\"responseKind\":{\"group\":" + Quoted(r->group) +
             ",\"version\":" + Quoted(r->version) + ",\"kind\":" + Quoted(r->kind) +
             "},\"scope\":" + Quoted(r->namespaced ? "Namespaced" : "Cluster") +
             ",\"singularResource\":" + Quoted(r->singular) + ",\"verbs\":" + StrList(r->verbs);
      if (!r->short_names.empty()) out += ",\"shortNames\":" + StrList(r->short_names);
      if (!r->categories.empty()) out += ",\"categories\":" + StrList(r->categories);
      std::string subs;
      for (const std::string& sub : r->subresources) {
        SubInfo si;
        if (!SubresourceInfo(*r, sub, &si)) continue;
        if (!subs.empty()) subs += ",";
        subs += "{\"subresource\":" + Quoted(sub) +
                ",\"responseKind\":{\"group\":" + Quoted(si.group) +
                ",\"version\":" + Quoted(si.version) + ",\"kind\":" + Quoted(si.kind) +
                "},\"verbs\":" + StrList(si.verbs) + "}";
      }
      if (!subs.empty()) out += ",\"subresources\":[" + subs + "]";
      out += "}";
    }
    out += "],\"freshness\":\"Current\"}";
  }
  return out + "]}";
}

bool WantsAggregated(const HttpRequest& req) {
  const std::string* accept = req.Header("accept");
  if (accept == nullptr) return false;
  // Honour the client's first preference.
  const size_t comma = accept->find(',');
  const std::string first = accept->substr(0, comma);
  return first.find("g=apidiscovery.k8s.io") != std::string::npos &&
         first.find("as=APIGroupDiscoveryList") != std::string::npos;
}

std::string AggregatedVersion(const HttpRequest& req) {
  const std::string* accept = req.Header("accept");
  if (accept != nullptr &&
      accept->substr(0, accept->find(',')).find("v=v2beta1") != std::string::npos) {
    return "v2beta1";
  }
  return "v2";
}

HttpResponse Json200(std::string body, const std::string& content_type = "application/json") {
  HttpResponse r;
  r.status = 200;
  r.SetHeader("Content-Type", content_type);
  r.body = std::move(body);
  return r;
}

}  // namespace

HttpResponse ApiHandler::Discovery(const HttpRequest& req, bool* handled) {
  *handled = true;
  const std::string& p = req.path;
  ResourceRegistry* reg = store_->registry();
  if (p == "/version" || p == "/version/") {
    return Json200(
        "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":" + Quoted(options_.version_git) +
        ",\"gitCommit\":\"localkube\",\"gitTreeState\":\"clean\",\"buildDate\":"
        "\"2024-12-11T00:00:00Z\",\"goVersion\":\"go1.23.4\",\"compiler\":\"gc\","
        "\"platform\":\"linux/amd64\"}");
  }
  if (p == "/api" || p == "/api/") {
    if (WantsAggregated(req)) {
      const std::string v = AggregatedVersion(req);
      std::string body =
          "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"apidiscovery.k8s.io/" + v +
          "\",\"metadata\":{},\"items\":[" + AggregatedGroup("", {"v1"}, reg->All()) + "]}";
      return Json200(body,
                     "application/json;g=apidiscovery.k8s.io;v=" + v + ";as=APIGroupDiscoveryList");
    }
    return Json200(
        "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":"
        "[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":" +
        Quoted([&] {
          std::lock_guard l(address_mu_);
          return server_address_;
        }()) +
        "}]}");
  }
  if (p == "/apis" || p == "/apis/") {
    const auto groups = reg->Groups();
    if (WantsAggregated(req)) {
      const std::string v = AggregatedVersion(req);
      const auto all = reg->All();
      std::string body =
          "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"apidiscovery.k8s.io/" + v +
          "\",\"metadata\":{},\"items\":[";
      bool first = true;
      for (const auto& [g, versions] : groups) {
        if (g.empty()) continue;
        if (!first) body += ",";
        first = false;
        body += AggregatedGroup(g, versions, all);
      }
      body += "]}";
      return Json200(body,
                     "application/json;g=apidiscovery.k8s.io;v=" + v + ";as=APIGroupDiscoveryList");
    }
    std::string body = "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[";
    bool first = true;
    for (const auto& [g, versions] : groups) {
      if (g.empty()) continue;
      if (!first) body += ",";
      first = false;
      body += GroupJson(g, versions);
    }
    return Json200(body + "]}");
  }
  if (p == "/api/v1" || p == "/api/v1/") {
    std::vector<ResourcePtr> rs;
    for (const ResourcePtr& r : reg->All()) {
      if (r->group.empty() && r->version == "v1") rs.push_back(r);
    }
    return Json200(ResourceListJson("v1", rs));
  }
  if (p.rfind("/apis/", 0) == 0) {
    std::string rest = p.substr(6);
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
    const size_t slash = rest.find('/');
    const auto groups = reg->Groups();
    if (slash == std::string::npos) {
      for (const auto& [g, versions] : groups) {
        if (g == rest && !g.empty()) {
          return Json200("{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\"," +
                         GroupJson(g, versions).substr(1));
        }
      }
      *handled = false;
      return {};
    }
    const std::string group = rest.substr(0, slash);
    const std::string version = rest.substr(slash + 1);
    if (version.find('/') != std::string::npos) {
      *handled = false;
      return {};
    }
    std::vector<ResourcePtr> rs;
    for (const ResourcePtr& r : reg->All()) {
      if (r->group == group && r->version == version) rs.push_back(r);
    }
    if (rs.empty()) {
      *handled = false;
      return {};
    }
    return Json200(ResourceListJson(group + "/" + version, rs));
  }
  *handled = false;
  return {};
}

HttpResponse ApiHandler::OpenApi(const HttpRequest& req, bool* handled) {
  *handled = false;
  if (req.path.rfind("/openapi/", 0) != 0) return {};
  *handled = true;
  if (req.path == "/openapi/v2") {
    // No schemas, as an empty document: kubectl's client-side validation (used for kinds whose
    // OpenAPI v3 has no PATCH with fieldValidation, e.g. Binding) then finds no schema for the
    // kind and skips validation, instead of failing to download the document.
    const std::string* accept = req.Header("accept");
    if (accept != nullptr && accept->find("protobuf") != std::string::npos) {
      return Json200("", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    }
    return Json200(
        "{\"swagger\":\"2.0\",\"info\":{\"title\":\"Kubernetes\",\"version\":\"v1.32.0\"},"
        "\"paths\":{},\"definitions\":{}}");
  }
  auto doc = OpenApiDocument(*store_->registry(), req.path);
  if (!doc.ok()) return ErrorResponse(doc.status());
  HttpResponse r = Json200(*doc);
  return r;
}

}  // namespace kai::localkube
