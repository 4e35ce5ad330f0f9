// Admission webhooks as kube-apiserver calls them (k8s.io/apiserver/pkg/admission/plugin/
// webhook): rule matching, namespace/object selectors, simple matchConditions, AdmissionReview
// v1 over HTTPS verified with caBundle, failurePolicy, timeoutSeconds, sideEffects with dryRun,
// JSONPatch responses, reinvocationPolicy IfNeeded, warnings. Mutating webhooks run in the
// order of configuration names then webhook order; validating webhooks run one after another
// (the real server runs them in parallel; the outcome is the same).
#include "test/localkube/webhooks.h"

#include <curl/curl.h>
#include <glog/logging.h>

#include <algorithm>

#include "kube/base/base64.h"
#include "kube/base/strings.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/patch.h"
#include "test/localkube/selector.h"

namespace kai::localkube {
namespace {

// The 500 the API server answers when calling an admission webhook failed (failurePolicy then
// decides): "Internal error occurred: failed calling webhook "<name>": <detail>".
Status FailedCallingWebhook(std::string_view webhook, std::string_view detail) {
  return kube::NewInternalError(
      StrCat("Internal error occurred: failed calling webhook \"", webhook, "\": ", detail));
}

const GroupVersionResource kMutating{"admissionregistration.k8s.io", "v1",
                                     "mutatingwebhookconfigurations"};
const GroupVersionResource kValidating{"admissionregistration.k8s.io", "v1",
                                       "validatingwebhookconfigurations"};

bool ListMatches(const Json* list, std::string_view value) {
  if (list == nullptr || !list->IsArray()) return false;
  for (const Json& v : list->GetArray()) {
    if (View(v) == "*" || View(v) == value) return true;
  }
  return false;
}

// rules[].{operations, apiGroups, apiVersions, resources, scope}.
bool RuleMatches(const Json& rule, const AdmissionAttributes& a) {
  const ResourceInfo& r = *a.resource;
  if (!ListMatches(Member(rule, "operations"), a.operation)) return false;
  if (!ListMatches(Member(rule, "apiGroups"), r.group)) return false;
  if (!ListMatches(Member(rule, "apiVersions"), r.version)) return false;
  const Json* resources = Member(rule, "resources");
  if (resources == nullptr || !resources->IsArray()) return false;
  bool res_ok = false;
  for (const Json& v : resources->GetArray()) {
    const std::string_view s = View(v);
    const size_t slash = s.find('/');
    const std::string_view res = s.substr(0, slash);
    const std::string_view sub = slash == std::string_view::npos ? "" : s.substr(slash + 1);
    const bool res_match = res == "*" || res == r.resource;
    const bool sub_match = slash == std::string_view::npos ? a.subresource.empty()
                                                           : (sub == "*" || sub == a.subresource);
    if (res_match && sub_match) res_ok = true;
  }
  if (!res_ok) return false;
  const std::string scope = GetStr(rule, {"scope"});
  if (scope == "Cluster" && r.namespaced) return false;
  if (scope == "Namespaced" && !r.namespaced) return false;
  return true;
}

Labels LabelsOf(const Json* obj) {
  Labels out;
  if (obj == nullptr) return out;
  if (const Json* l = Path(*obj, {"metadata", "labels"}); l && l->IsObject()) {
    for (auto it = l->MemberBegin(); it != l->MemberEnd(); ++it) {
      out.emplace_back(std::string(View(it->name)), std::string(View(it->value)));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A small subset of CEL matchConditions: "true", "false", and
// request.operation ==/!= 'OP' (optionally joined by &&). Anything else counts as matching.
bool EvalCondition(const std::string& expr, const AdmissionAttributes& a, bool* supported) {
  *supported = true;
  std::string e(StripWhitespace(expr));
  if (e == "true") return true;
  if (e == "false") return false;
  if (e.find("&&") != std::string::npos) {
    bool all = true;
    size_t start = 0;
    while (start < e.size()) {
      size_t amp = e.find("&&", start);
      if (amp == std::string::npos) amp = e.size();
      bool sup = true;
      all = EvalCondition(e.substr(start, amp - start), a, &sup) && all;
      if (!sup) *supported = false;
      start = amp + 2;
    }
    return all;
  }
  for (const char* op : {"==", "!="}) {
    const size_t p = e.find(op);
    if (p == std::string::npos) continue;
    const std::string lhs(StripWhitespace(e.substr(0, p)));
    std::string rhs(StripWhitespace(e.substr(p + 2)));
    if (rhs.size() >= 2 && (rhs.front() == '\'' || rhs.front() == '"')) {
      rhs = rhs.substr(1, rhs.size() - 2);
    }
    std::string value;
    if (lhs == "request.operation") {
      value = a.operation;
    } else if (lhs == "request.namespace") {
      value = a.ns;
    } else if (lhs == "request.name") {
      value = a.name;
    } else if (lhs == "request.subResource") {
      value = a.subresource;
    } else if (lhs == "request.userInfo.username") {
      value = a.user ? a.user->username : "";
    } else {
      break;
    }
    return (value == rhs) == (std::string(op) == "==");
  }
  *supported = false;
  return true;
}

size_t Sink(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}

}  // namespace

WebhookAdmission::WebhookAdmission(Store* store, const std::vector<std::string>& service_map)
    : store_(store) {
  for (const std::string& m : service_map) {
    const size_t eq = m.find('=');
    if (eq != std::string::npos) service_map_[m.substr(0, eq)] = m.substr(eq + 1);
  }
}

bool WebhookAdmission::Enabled() const {
  return store_->Count(kMutating.gr()) > 0 || store_->Count(kValidating.gr()) > 0;
}

namespace {

struct CallResult {
  bool called = false;
  bool allowed = true;
  Status error;       // denial or call failure (already failurePolicy-resolved)
  std::string patch;  // decoded JSONPatch
};

}  // namespace

// Calls one webhook. `object` may be null (DELETE). Returns the outcome.
static CallResult CallWebhook(const std::map<std::string, std::string>& service_map,
                              const Json& hook, const AdmissionAttributes& a, const Json* object,
                              Random* random) {
  CallResult res;
  const std::string name = GetStr(hook, {"name"});
  const std::string failure =
      GetStr(hook, {"failurePolicy"}).empty() ? "Fail" : GetStr(hook, {"failurePolicy"});
  const std::string side_effects = GetStr(hook, {"sideEffects"});
  if (a.dry_run && side_effects != "None" && side_effects != "NoneOnDryRun") {
    res.called = true;
    res.allowed = false;
    res.error = kube::NewBadRequest("admission webhook \"" + name + "\" does not support dry run");
    return res;
  }
  // AdmissionReview request.
  JsonDoc review;
  review.SetObject();
  JsonAlloc& al = review.GetAllocator();
  review.AddMember("kind", "AdmissionReview", al);
  review.AddMember("apiVersion", "admission.k8s.io/v1", al);
  Json req(rapidjson::kObjectType);
  const std::string uid = random->Uuid();
  req.AddMember("uid", Str(uid, al), al);
  const ResourceInfo& r = *a.resource;
  auto gvk = [&]() {
    Json k(rapidjson::kObjectType);
    k.AddMember("group", Str(r.group, al), al);
    k.AddMember("version", Str(r.version, al), al);
    k.AddMember("kind", Str(r.kind, al), al);
    return k;
  };
  auto gvr = [&]() {
    Json k(rapidjson::kObjectType);
    k.AddMember("group", Str(r.group, al), al);
    k.AddMember("version", Str(r.version, al), al);
    k.AddMember("resource", Str(r.resource, al), al);
    return k;
  };
  req.AddMember("kind", gvk(), al);
  req.AddMember("resource", gvr(), al);
  if (!a.subresource.empty()) req.AddMember("subResource", Str(a.subresource, al), al);
  req.AddMember("requestKind", gvk(), al);
  req.AddMember("requestResource", gvr(), al);
  if (!a.subresource.empty()) req.AddMember("requestSubResource", Str(a.subresource, al), al);
  req.AddMember("name", Str(a.name, al), al);
  if (!a.ns.empty()) req.AddMember("namespace", Str(a.ns, al), al);
  req.AddMember("operation", Str(a.operation, al), al);
  Json user(rapidjson::kObjectType);
  if (a.user != nullptr) {
    user.AddMember("username", Str(a.user->username, al), al);
    if (!a.user->uid.empty()) user.AddMember("uid", Str(a.user->uid, al), al);
    Json groups(rapidjson::kArrayType);
    for (const auto& g : a.user->groups) groups.PushBack(Str(g, al), al);
    user.AddMember("groups", groups, al);
  }
  req.AddMember("userInfo", user, al);
  req.AddMember("object", object ? Json(*object, al) : Json(), al);
  req.AddMember("oldObject", a.old_object ? Json(*a.old_object, al) : Json(), al);
  req.AddMember("dryRun", a.dry_run, al);
  Json options(rapidjson::kObjectType);
  options.AddMember("kind", Str(a.options_kind, al), al);
  options.AddMember("apiVersion", "meta.k8s.io/v1", al);
  if (!a.field_manager.empty()) options.AddMember("fieldManager", Str(a.field_manager, al), al);
  req.AddMember("options", options, al);
  review.AddMember("request", req, al);
  const std::string body = Serialize(review);

  // Endpoint.
  std::string url = GetStr(hook, {"clientConfig", "url"});
  std::string resolve;
  if (url.empty()) {
    const Json* svc = Path(hook, {"clientConfig", "service"});
    if (svc == nullptr) {
      res.error = kube::NewInternalError("webhook " + name + " has no clientConfig");
    } else {
      const std::string sns = GetStr(*svc, {"namespace"});
      const std::string sname = GetStr(*svc, {"name"});
      const int64_t port = GetInt(*svc, {"port"}).value_or(443);
      std::string path = GetStr(*svc, {"path"});
      const std::string host = sname + "." + sns + ".svc";
      auto it = service_map.find(sns + "/" + sname + ":" + std::to_string(port));
      if (it == service_map.end()) it = service_map.find(sns + "/" + sname);
      std::string target =
          it != service_map.end() ? it->second : "127.0.0.1:" + std::to_string(port);
      const size_t colon = target.rfind(':');
      const std::string tip = target.substr(0, colon);
      const std::string tport =
          colon == std::string::npos ? std::to_string(port) : target.substr(colon + 1);
      // Connect to the mapped address while verifying the certificate for <svc>.<ns>.svc.
      url = "https://" + host + ":" + tport + path;
      resolve = host + ":" + tport + ":" + tip;
    }
  }
  std::string ca;
  if (res.error.ok()) {
    StatusOr<std::string> decoded = kube::Base64Decode(GetStr(hook, {"clientConfig", "caBundle"}));
    if (decoded.ok()) {
      ca = *std::move(decoded);
    } else {
      res.error =
          FailedCallingWebhook(name, StrCat("clientConfig.caBundle: ", decoded.status().message()));
    }
  }
  if (res.error.ok()) {
    const int64_t timeout = GetInt(hook, {"timeoutSeconds"}).value_or(10);
    std::string response;
    CURL* c = curl_easy_init();
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Accept: application/json");
    curl_slist* resolves = resolve.empty() ? nullptr : curl_slist_append(nullptr, resolve.c_str());
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    if (resolves) curl_easy_setopt(c, CURLOPT_RESOLVE, resolves);
    curl_blob blob{const_cast<char*>(ca.data()), ca.size(), CURL_BLOB_COPY};
    if (!ca.empty()) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout * 1000));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &response);
    const CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(headers);
    if (resolves) curl_slist_free_all(resolves);
    curl_easy_cleanup(c);
    res.called = true;
    if (rc != CURLE_OK) {
      res.error = FailedCallingWebhook(
          name, StrCat("failed to call webhook: Post \"", url, "\": ", curl_easy_strerror(rc)));
    } else if (code != 200) {
      res.error = FailedCallingWebhook(
          name, StrCat("received invalid webhook response: HTTP ", std::to_string(code)));
    } else {
      auto doc = Parse(response);
      const Json* resp = doc.ok() ? Member(*doc, "response") : nullptr;
      if (resp == nullptr || !resp->IsObject()) {
        res.error =
            FailedCallingWebhook(name, "received invalid webhook response: missing response");
      } else if (GetStr(*resp, {"uid"}) != uid) {
        res.error = FailedCallingWebhook(name, StrCat("expected response.uid=\"", uid, "\", got \"",
                                                      GetStr(*resp, {"uid"}), "\""));
      } else {
        if (a.warnings != nullptr) {
          if (const Json* w = Member(*resp, "warnings"); w && w->IsArray()) {
            for (const Json& x : w->GetArray()) a.warnings->emplace_back(View(x));
          }
        }
        res.allowed = GetBool(*resp, {"allowed"}, false);
        if (!res.allowed) {
          const Json* st = Member(*resp, "status");
          int scode = st ? static_cast<int>(GetInt(*st, {"code"}).value_or(400)) : 400;
          if (scode < 400) scode = 400;
          const std::string msg = st ? GetStr(*st, {"message"}) : "";
          const std::string reason = st ? GetStr(*st, {"reason"}) : "";
          std::string text = "admission webhook \"" + name + "\" denied the request";
          if (!msg.empty()) {
            text += ": " + msg;
          } else if (!reason.empty()) {
            text += ": " + reason;
          } else {
            text += " without explanation";
          }
          Status s(StatusCode::kPermissionDenied, text);
          s.SetHttpCode(scode).SetReason(reason);
          res.error = s;
          return res;  // denials are never subject to failurePolicy
        }
        const std::string patch_type = GetStr(*resp, {"patchType"});
        const std::string patch = GetStr(*resp, {"patch"});
        if (!patch.empty()) {
          if (patch_type != "JSONPatch") {
            res.error =
                FailedCallingWebhook(name, StrCat("unsupported patch type \"", patch_type, "\""));
          } else {
            StatusOr<std::string> decoded = kube::Base64Decode(patch);
            if (decoded.ok()) {
              res.patch = *std::move(decoded);
            } else {
              res.error = FailedCallingWebhook(name, StrCat("patch: ", decoded.status().message()));
            }
          }
        }
      }
    }
  }
  if (!res.error.ok() && failure == "Ignore") {
    LOG(WARNING) << "ignoring webhook failure (failurePolicy Ignore): " << res.error.message();
    res.error = Status::OK();
    res.patch.clear();
  }
  if (!res.error.ok()) res.allowed = false;
  return res;
}

namespace {

struct Hook {
  std::string config;
  JsonDoc doc;  // the webhook entry
};

std::vector<Hook> LoadHooks(Store* store, const GroupVersionResource& gvr) {
  std::vector<Hook> out;
  auto list = store->List(gvr, "", {});
  if (!list.ok()) return out;
  for (const ObjectPtr& cfg : list->items) {  // sorted by name
    auto doc = Parse(cfg->json());
    if (!doc.ok()) continue;
    const Json* hooks = Member(*doc, "webhooks");
    if (hooks == nullptr || !hooks->IsArray()) continue;
    for (const Json& h : hooks->GetArray()) out.push_back(Hook{cfg->name(), Clone(h)});
  }
  return out;
}

}  // namespace

// Does the webhook apply to this request (rules, selectors, matchConditions)?
static bool Applies(Store* store, const Json& hook, const AdmissionAttributes& a,
                    const Json* object) {
  if (a.resource == nullptr) return false;
  bool rule = false;
  if (const Json* rules = Member(hook, "rules"); rules && rules->IsArray()) {
    for (const Json& r : rules->GetArray()) rule = rule || RuleMatches(r, a);
  }
  if (!rule) return false;
  // Never call webhooks on webhook configurations themselves (as the real server).
  if (a.resource->group == "admissionregistration.k8s.io") return false;
  if (const Json* os = Member(hook, "objectSelector");
      os && os->IsObject() && os->MemberCount() > 0) {
    auto sel = LabelSelector::FromJson(Serialize(*os));
    if (!sel.ok()) return false;
    const bool m1 = object && sel->Matches(LabelsOf(object));
    const bool m2 = a.old_object && sel->Matches(LabelsOf(a.old_object));
    if (!m1 && !m2) return false;
  }
  if (const Json* ns = Member(hook, "namespaceSelector");
      ns && ns->IsObject() && ns->MemberCount() > 0) {
    auto sel = LabelSelector::FromJson(Serialize(*ns));
    if (!sel.ok()) return false;
    if (a.resource->group.empty() && a.resource->resource == "namespaces") {
      if (!sel->Matches(LabelsOf(object ? object : a.old_object))) return false;
    } else if (a.resource->namespaced) {
      auto nso = store->Get({"", "v1", "namespaces"}, "", a.ns);
      Labels labels;
      if (nso.ok()) labels = (*nso)->labels();
      if (!sel->Matches(labels)) return false;
    }
  }
  if (const Json* mc = Member(hook, "matchConditions"); mc && mc->IsArray()) {
    for (const Json& c : mc->GetArray()) {
      bool supported = true;
      if (!EvalCondition(GetStr(c, {"expression"}), a, &supported)) return false;
      if (!supported) {
        LOG_FIRST_N(WARNING, 10) << "matchCondition not evaluated (treated as true): "
                                 << GetStr(c, {"expression"});
      }
    }
  }
  return true;
}

Status WebhookAdmission::Mutate(const AdmissionAttributes& attrs, JsonDoc* obj) {
  if (store_->Count(kMutating.gr()) == 0) return Status::OK();
  std::vector<Hook> hooks = LoadHooks(store_, kMutating);
  // Version of the object each IfNeeded webhook last saw, for reinvocation.
  std::vector<int> seen(hooks.size(), -1);
  int version = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < hooks.size(); ++i) {
      const Json& h = hooks[i].doc;
      if (pass == 1) {
        if (GetStr(h, {"reinvocationPolicy"}) != "IfNeeded" || seen[i] < 0 || seen[i] == version) {
          continue;
        }
      }
      if (!Applies(store_, h, attrs, obj)) continue;
      CallResult r = CallWebhook(service_map_, h, attrs, obj, SeededRandom::Default());
      if (!r.error.ok()) return r.error;
      seen[i] = version;
      if (!r.patch.empty()) {
        auto patch = Parse(r.patch);
        if (!patch.ok()) {
          return FailedCallingWebhook(GetStr(h, {"name"}),
                                      StrCat("invalid JSONPatch: ", patch.status().message()));
        }
        JsonDoc before = Clone(*obj);
        Status ps = ApplyJsonPatch(*obj, *patch, obj->GetAllocator());
        if (!ps.ok()) {
          return FailedCallingWebhook(GetStr(h, {"name"}),
                                      StrCat("JSONPatch could not be applied: ", ps.message()));
        }
        if (!(before == *obj)) {
          ++version;
          seen[i] = version;
        }
      }
    }
    if (version == 0) break;
  }
  return Status::OK();
}

Status WebhookAdmission::Validate(const AdmissionAttributes& attrs, const Json* obj) {
  if (store_->Count(kValidating.gr()) == 0) return Status::OK();
  for (const Hook& hook : LoadHooks(store_, kValidating)) {
    if (!Applies(store_, hook.doc, attrs, obj)) continue;
    CallResult r = CallWebhook(service_map_, hook.doc, attrs, obj, SeededRandom::Default());
    if (!r.error.ok()) return r.error;
  }
  return Status::OK();
}

}  // namespace kai::localkube
