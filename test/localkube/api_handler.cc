#include "test/localkube/api_handler.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <thread>

#include "api/yaml_json.h"
#include "kube/base/random.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/mutable_object.h"
#include "test/localkube/object_builder.h"
#include "test/localkube/patch.h"
#include "test/localkube/protobuf.h"
#include "test/localkube/store_internal.h"
#include "test/localkube/table.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

constexpr std::string_view kJson = "application/json";

HttpResponse JsonResponse(int code, std::string body) {
  HttpResponse r;
  r.status = code;
  r.SetHeader("Content-Type", std::string(kJson));
  r.body = std::move(body);
  return r;
}

HttpResponse TextResponse(int code, std::string body) {
  HttpResponse r;
  r.status = code;
  r.SetHeader("Content-Type", "text/plain; charset=utf-8");
  r.SetHeader("X-Content-Type-Options", "nosniff");
  r.body = std::move(body);
  return r;
}

std::string SuccessStatus(int code, const std::string& name, const std::string& group,
                          const std::string& kind, const std::string& uid) {
  std::string out =
      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\"";
  if (!name.empty() || !kind.empty()) {
    out += ",\"details\":{\"name\":" + Quoted(name) + ",\"group\":" + Quoted(group) +
           ",\"kind\":" + Quoted(kind);
    if (!uid.empty()) out += ",\"uid\":" + Quoted(uid);
    out += "}";
  }
  if (code != 0) out += ",\"code\":" + std::to_string(code);
  return out + "}";
}

bool AcceptsAs(const HttpRequest& req, std::string_view as) {
  const std::string* accept = req.Header("accept");
  if (accept == nullptr) return false;
  // Take the first acceptable media range that names `as` (clients list preferences in order).
  for (const std::string& part : StrSplit(*accept, ',')) {
    if (part.find("as=" + std::string(as)) != std::string::npos) return true;
  }
  return false;
}

bool IsTrue(const std::string* v) { return v != nullptr && (*v == "true" || *v == "1"); }

std::string Verb(const std::string& method, bool has_name, bool watch) {
  if (method == "GET") {
    if (watch) return "watch";
    return has_name ? "get" : "list";
  }
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return has_name ? "delete" : "deletecollection";
  return "";
}

std::string Warning(const std::string& text) { return "299 - " + Quoted(text); }

// Converts a YAML or JSON body to JSON according to Content-Type.
StatusOr<std::string> BodyJson(const HttpRequest& req, bool allow_yaml) {
  const std::string* ct = req.Header("content-type");
  std::string type = ct ? AsciiToLower(*ct) : std::string(kJson);
  const size_t semi = type.find(';');
  if (semi != std::string::npos) type = type.substr(0, semi);
  type = std::string(StripWhitespace(type));
  if (type.empty() || type == "application/json" || type == "*/*") return req.body;
  if (allow_yaml &&
      (type == "application/yaml" || type == "application/x-yaml" || type == "text/yaml")) {
    auto json = api::YamlToJson(req.body);
    if (!json.ok()) {
      return kube::NewBadRequest(
          "the object provided is unrecognized: error converting YAML to JSON: " +
          std::string(json.status().message()));
    }
    return *json;
  }
  if (type == "application/vnd.kubernetes.protobuf") return KubeProtobufToJson(req.body);
  return kube::NewUnsupportedMediaType(
      "the body of the request was in an unknown format - accepted "
      "media types include: application/json, application/yaml");
}

std::string ObjectJsonFor(Store* store, const ObjectPtr& obj, const ResourceInfo& r) {
  if (r.version == r.storage_version && r.gr() == r.storage) return obj->json();
  auto converted = store->ConvertToVersion(obj, r.gvr());
  return converted.ok() ? *converted : obj->json();
}

// PartialObjectMetadata for an object.
std::string PartialMetadata(const std::string& json, const ResourceInfo& r) {
  auto doc = Parse(json);
  std::string out =
      "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
  const Json* meta = doc.ok() ? Member(*doc, "metadata") : nullptr;
  out += meta ? Serialize(*meta) : "{}";
  (void)r;
  return out + "}";
}

std::string TableColumnsJson(const ResourceInfo& r) {
  std::string out = "[";
  bool first = true;
  for (const TableColumn& c : TableColumns(r)) {
    if (!first) out += ",";
    first = false;
    out += "{\"name\":" + Quoted(c.name) + ",\"type\":" + Quoted(c.type) +
           ",\"format\":" + Quoted(c.format) + ",\"description\":" + Quoted(c.description) +
           ",\"priority\":" + std::to_string(c.priority) + "}";
  }
  return out + "]";
}

std::string TableRow(Store* store, const ObjectPtr& obj, const ResourceInfo& r,
                     const std::string& include, WallTime now) {
  const std::string json = ObjectJsonFor(store, obj, r);
  auto doc = Parse(json);
  std::string out = "{\"cells\":";
  if (doc.ok()) {
    AppendTableCells(r, *doc, now, &out);
  } else {
    out += "[]";
  }
  if (include == "Object") {
    out += ",\"object\":" + json;
  } else if (include != "None") {
    out += ",\"object\":" + PartialMetadata(json, r);
  }
  return out + "}";
}

Status ParseInt64Param(const HttpRequest& req, const char* name, std::optional<int64_t>* out) {
  const std::string* v = req.Query(name);
  if (v == nullptr || v->empty()) return Status::OK();
  try {
    size_t pos = 0;
    const long long n = std::stoll(*v, &pos);
    if (pos != v->size()) throw std::invalid_argument(*v);
    *out = n;
  } catch (...) {
    return kube::NewBadRequest(std::string(name) + ": invalid value " + Quoted(*v));
  }
  return Status::OK();
}

}  // namespace

namespace {

// Recovers metav1.StatusDetails from the messages errors.h builds (`<what> "<name>" ...`), so
// clients (kubectl's "The PodGroup \"x\" is invalid") see the same details as from a real server.
// `s` carries the reason it goes out with.
kube::StatusSubject DetailsOf(const Status& s) {
  kube::StatusSubject d;
  const std::string msg(s.message());
  const std::string_view reason = s.reason();
  std::string_view head = msg;
  constexpr std::string_view kConflict = "Operation cannot be fulfilled on ";
  if (reason == "Conflict") {
    if (msg.rfind(kConflict, 0) != 0) return d;
    head = std::string_view(msg).substr(kConflict.size());
  } else if (reason != "Invalid" && reason != "NotFound" && reason != "AlreadyExists" &&
             reason != "Forbidden") {
    return d;
  }
  const size_t q1 = head.find(" \"");
  if (q1 == std::string_view::npos) return d;
  const size_t q2 = head.find('"', q1 + 2);
  if (q2 == std::string_view::npos) return d;
  const std::string_view what = head.substr(0, q1);
  if (what.find(' ') != std::string_view::npos) return d;
  d.name = std::string(head.substr(q1 + 2, q2 - q1 - 2));
  const size_t dot = what.find('.');
  d.kind = std::string(what.substr(0, dot));
  if (dot != std::string_view::npos) d.group = std::string(what.substr(dot + 1));
  return d;
}

}  // namespace

std::string StatusJson(const Status& s) {
  if (s.ok()) return kube::StatusToJson(s);
  Status wire = s;  // the reason and HTTP code this server maps it to, for errors not from errors.h
  wire.SetReason(ReasonOf(s)).SetHttpCode(HttpCodeOf(s));
  return kube::StatusToJson(wire, DetailsOf(wire));
}

HttpResponse ErrorResponse(const Status& s) {
  HttpResponse r = JsonResponse(HttpCodeOf(s), StatusJson(s));
  if (s.retry_after_seconds() > 0)
    r.SetHeader("Retry-After", std::to_string(s.retry_after_seconds()));
  return r;
}

ApiHandler::ApiHandler(Store* store, Faults* faults, ApiHandlerOptions options)
    : store_(store), faults_(faults), options_(std::move(options)) {}

HttpResponse ApiHandler::Handle(const HttpRequest& req) {
  ++active_;
  struct Dec {
    std::atomic<size_t>* a;
    ~Dec() { --*a; }
  } dec{&active_};
  const std::string& path = req.path;

  // Health endpoints are unauthenticated, as with the real server's default RBAC.
  for (const char* h : {"/healthz", "/livez", "/readyz"}) {
    if (path == h || path.rfind(std::string(h) + "/", 0) == 0) {
      if (req.Query("verbose") != nullptr) {
        std::string body;
        for (const char* check :
             {"ping", "log", "etcd", "poststarthook/start-apiextensions-controllers",
              "poststarthook/crd-informer-synced"}) {
          body += "[+]" + std::string(check) + " ok\n";
        }
        body += std::string(h + 1) + " check passed\n";
        return TextResponse(200, body);
      }
      return TextResponse(200, "ok");
    }
  }

  UserInfo user;
  const std::string* auth = req.Header("authorization");
  if (auth != nullptr && auth->rfind("Bearer ", 0) == 0) {
    const std::string token = auth->substr(7);
    auto it = options_.tokens.find(token);
    bool issued = false;
    if (it == options_.tokens.end()) {
      std::lock_guard l(tokens_mu_);
      auto iss = issued_tokens_.find(token);
      if (iss != issued_tokens_.end()) {
        user = iss->second;
        issued = true;
      }
    }
    if (it != options_.tokens.end()) {
      user = it->second;
    } else if (issued) {
    } else if (!options_.tokens.empty()) {
      return ErrorResponse(kube::NewUnauthorized("Unauthorized"));
    }
  } else if (!options_.tokens.empty() && !options_.allow_anonymous) {
    return ErrorResponse(kube::NewUnauthorized("Unauthorized"));
  } else if (!options_.tokens.empty()) {
    user.username = "system:anonymous";
    user.groups = {"system:unauthenticated"};
  }

  if (path.rfind("/localkube/", 0) == 0) return HandleControl(req);

  bool handled = false;
  HttpResponse d = Discovery(req, &handled);
  if (handled) return d;
  HttpResponse o = OpenApi(req, &handled);
  if (handled) return o;
  if (path.rfind("/api/", 0) == 0 || path.rfind("/apis/", 0) == 0) {
    RequestKey key;
    HttpResponse resp = HandleResource(req, user, &key);
    if (!key.verb.empty()) {
      const std::string* agent = req.Header("user-agent");
      requests_.Record(agent != nullptr ? *agent : "", key.verb, key.resource, key.subresource,
                       resp.status);
    }
    if (options_.after_write && req.method != "GET" && req.method != "HEAD" && resp.status < 400 &&
        !resp.stream) {
      options_.after_write();
    }
    return resp;
  }
  if (path == "/") {
    std::string body =
        "{\"paths\":[\"/api\",\"/api/v1\",\"/apis\",\"/healthz\",\"/livez\","
        "\"/readyz\",\"/version\",\"/openapi/v2\",\"/openapi/v3\"]}";
    return JsonResponse(200, body);
  }
  return ErrorResponse(
      kube::NewNotFound("the server could not find the requested resource", "").WithPrefix(""));
}

// ---------------------------------------------------------------------------------------------
// Resource requests.

HttpResponse ApiHandler::HandleResource(const HttpRequest& req, const UserInfo& user,
                                        RequestKey* key) {
  std::vector<std::string> seg;
  for (const std::string& s : StrSplit(req.path, '/')) {
    if (!s.empty()) seg.push_back(s);
  }
  auto not_found = [&]() {
    Status s(StatusCode::kNotFound, "the server could not find the requested resource");
    s.SetReason("NotFound").SetHttpCode(404);
    return ErrorResponse(s);
  };
  std::string group, version;
  size_t i = 0;
  if (seg[0] == "api") {
    if (seg.size() < 2) return not_found();
    version = seg[1];
    i = 2;
  } else {
    if (seg.size() < 3) return not_found();
    group = seg[1];
    version = seg[2];
    i = 3;
  }
  bool watch_prefix = false;
  if (i < seg.size() && seg[i] == "watch") {
    watch_prefix = true;
    ++i;
  }
  std::vector<std::string> rest(seg.begin() + static_cast<std::ptrdiff_t>(i), seg.end());
  std::string ns, resource, name, sub;
  if (rest.size() >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize") {
    ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return not_found();
  resource = rest[0];
  if (rest.size() > 1) name = rest[1];
  if (rest.size() > 2) sub = rest[2];

  ResourcePtr r = store_->registry()->Find(group, version, resource);
  if (!r) return not_found();
  if (!sub.empty() && !r->HasSubresource(sub)) return not_found();
  if (!r->namespaced && !ns.empty()) return not_found();
  if (r->namespaced && !name.empty() && ns.empty()) return not_found();

  const bool watch = watch_prefix || IsTrue(req.Query("watch"));
  const std::string verb = Verb(req.method, !name.empty(), watch);
  if (verb.empty()) {
    return ErrorResponse(
        kube::NewMethodNotAllowed("the server does not allow this method on the "
                                  "requested resource"));
  }
  *key = {verb, resource, sub};
  const GroupVersionResource gvr = r->gvr();

  // Fault injection.
  std::chrono::milliseconds latency{0};
  if (auto fault = faults_->Match(verb, resource, sub, ns, &latency);
      fault || latency.count() > 0) {
    if (latency.count() > 0) store_->clock()->SleepFor(latency);
    if (fault) return ErrorResponse(*fault);
  }

  auto write_opts = [&](WriteOptions* wo) -> Status {
    const std::string* dry = req.Query("dryRun");
    if (dry != nullptr) {
      if (*dry != "All") {
        return kube::NewBadRequest("Invalid dry run value: " + *dry + ". Valid values are: All");
      }
      wo->dry_run = true;
    }
    if (const std::string* fm = req.Query("fieldManager"); fm != nullptr) {
      wo->field_manager = *fm;
      if (fm->size() > 128) {
        return kube::NewInvalid("PatchOptions.meta.k8s.io", "",
                                {FieldTooLong("fieldManager", "", 128)});
      }
    }
    if (const std::string* ua = req.Header("user-agent"); ua != nullptr) wo->user_agent = *ua;
    wo->field_validation = "Warn";
    if (const std::string* fv = req.Query("fieldValidation"); fv != nullptr && !fv->empty()) {
      if (*fv != "Strict" && *fv != "Warn" && *fv != "Ignore") {
        return kube::NewBadRequest("fieldValidation invalid value: " + *fv +
                                   ". Valid values are: Ignore, Warn, Strict");
      }
      wo->field_validation = *fv;
    }
    wo->user = user;
    wo->subresource = sub;
    return Status::OK();
  };

  const std::string what = ResourceWhat(*r);
  std::vector<std::string> warnings;
  auto respond_object = [&](int code, const ObjectPtr& obj) {
    HttpResponse resp = JsonResponse(code, ObjectJsonFor(store_, obj, *r));
    for (const auto& w : warnings) resp.headers.emplace_back("Warning", Warning(w));
    return resp;
  };

  // ---- subresources with their own shapes
  if (sub == "binding" || (resource == "bindings" && verb == "create")) {
    if (req.method != "POST")
      return ErrorResponse(kube::NewMethodNotAllowed("only POST is allowed"));
    auto body = BodyJson(req, true);
    if (!body.ok()) return ErrorResponse(body.status());
    auto doc = Parse(*body);
    if (!doc.ok() || !doc->IsObject()) {
      return ErrorResponse(
          kube::NewBadRequest("the object provided is unrecognized (must be of type Binding)"));
    }
    const std::string body_name = GetStr(*doc, {"metadata", "name"});
    if (sub == "binding" && body_name != name) {
      return ErrorResponse(
          kube::NewBadRequest("name in URL does not match name in Binding object"));
    }
    if (const std::string body_ns = GetStr(*doc, {"metadata", "namespace"});
        !body_ns.empty() && body_ns != ns) {
      return ErrorResponse(
          kube::NewBadRequest("the namespace of the provided object does not match the "
                              "namespace sent on the request"));
    }
    PodBinding binding;
    binding.node = GetStr(*doc, {"target", "name"});
    binding.target_kind = GetStr(*doc, {"target", "kind"});
    // pods/binding keeps the body's uid and resourceVersion as preconditions
    // (SubresourceObjectMetaPreserver).
    binding.uid = GetStr(*doc, {"metadata", "uid"});
    binding.resource_version = GetStr(*doc, {"metadata", "resourceVersion"});
    if (const Json* ann = Path(*doc, {"metadata", "annotations"});
        ann != nullptr && !ann->IsNull()) {
      if (!ann->IsObject()) {
        return ErrorResponse(kube::NewBadRequest(
            "Binding in version \"v1\" cannot be handled as a Binding: json: cannot unmarshal "
            "into Go struct field ObjectMeta.metadata.annotations of type map[string]string"));
      }
      for (const auto& m : ann->GetObject()) {
        if (!m.value.IsString()) {
          return ErrorResponse(kube::NewBadRequest(
              "Binding in version \"v1\" cannot be handled as a Binding: json: cannot unmarshal "
              "into Go struct field ObjectMeta.metadata.annotations of type string"));
        }
        binding.annotations.emplace_back(View(m.name), View(m.value));
      }
    }
    WriteOptions wo;
    if (Status s = write_opts(&wo); !s.ok()) return ErrorResponse(s);
    wo.subresource = "binding";
    auto bound = store_->Bind(ns, body_name, binding, wo);
    if (!bound.ok()) return ErrorResponse(bound.status());
    return JsonResponse(201, SuccessStatus(201, "", "", "", ""));
  }
  if (sub == "token" && resource == "serviceaccounts") {
    if (req.method != "POST")
      return ErrorResponse(kube::NewMethodNotAllowed("only POST is allowed"));
    auto sa = store_->Get(gvr, ns, name);
    if (!sa.ok()) return ErrorResponse(sa.status());
    auto body = BodyJson(req, true);
    if (!body.ok()) return ErrorResponse(body.status());
    auto doc = Parse(body->empty() ? "{}" : *body);
    if (!doc.ok() || !doc->IsObject()) {
      return ErrorResponse(kube::NewBadRequest(
          "the object provided is unrecognized (must be of type TokenRequest)"));
    }
    const int64_t expiration = GetInt(*doc, {"spec", "expirationSeconds"}).value_or(3600);
    if (expiration < 600) {
      return ErrorResponse(
          kube::NewInvalid("TokenRequest.authentication.k8s.io", name,
                           {FieldInvalid("spec.expirationSeconds", std::to_string(expiration),
                                         "may not specify a duration less than 10 minutes")}));
    }
    const std::string token = "localkube-sa-" + SeededRandom::Default()->AlphaNumeric(40);
    UserInfo sa_user;
    sa_user.username = "system:serviceaccount:" + ns + ":" + name;
    sa_user.uid = (*sa)->uid();
    sa_user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns,
                      "system:authenticated"};
    {
      std::lock_guard l(tokens_mu_);
      issued_tokens_[token] = sa_user;
    }
    const WallTime now = store_->clock()->Now();
    std::string audiences = "[]";
    if (const Json* aud = Path(*doc, {"spec", "audiences"});
        aud && aud->IsArray() && !aud->Empty()) {
      audiences = Serialize(*aud);
    }
    return JsonResponse(201,
                        "{\"kind\":\"TokenRequest\",\"apiVersion\":\"authentication.k8s.io/"
                        "v1\",\"metadata\":{\"name\":" +
                            Quoted(name) + ",\"namespace\":" + Quoted(ns) +
                            ",\"creationTimestamp\":" + Quoted(FormatRfc3339(now)) +
                            "},\"spec\":{\"audiences\":" + audiences +
                            ",\"expirationSeconds\":" + std::to_string(expiration) +
                            ",\"boundObjectRef\":null},\"status\":{\"token\":" + Quoted(token) +
                            ",\"expirationTimestamp\":" +
                            Quoted(FormatRfc3339(now + std::chrono::seconds(expiration))) + "}}");
  }
  if ((group == "authorization.k8s.io" || group == "authentication.k8s.io") && verb == "create") {
    auto body = BodyJson(req, true);
    if (!body.ok()) return ErrorResponse(body.status());
    auto doc = Parse(*body);
    if (!doc.ok() || !doc->IsObject()) {
      return ErrorResponse(kube::NewBadRequest(
          "the object provided is unrecognized (must be of type " + r->kind + ")"));
    }
    JsonAlloc& a = doc->GetAllocator();
    SetString(*doc, "apiVersion", r->api_version(), a);
    SetString(*doc, "kind", r->kind, a);
    Json& meta = EnsureObject(*doc, "metadata", a);
    SetMember(meta, "creationTimestamp", Json(), a);
    Json status(rapidjson::kObjectType);
    auto user_json = [&](const UserInfo& u) {
      Json ui(rapidjson::kObjectType);
      ui.AddMember("username", Str(u.username, a), a);
      if (!u.uid.empty()) ui.AddMember("uid", Str(u.uid, a), a);
      Json groups(rapidjson::kArrayType);
      for (const auto& g : u.groups) groups.PushBack(Str(g, a), a);
      ui.AddMember("groups", groups, a);
      return ui;
    };
    if (resource == "selfsubjectrulesreviews") {
      auto parsed = Parse(
          R"({"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false})");
      status.CopyFrom(*parsed, a);
    } else if (resource == "selfsubjectreviews") {
      status.AddMember("userInfo", user_json(user), a);
    } else if (resource == "tokenreviews") {
      const std::string token = GetStr(*doc, {"spec", "token"});
      UserInfo who;
      bool ok = false;
      if (auto it = options_.tokens.find(token); it != options_.tokens.end()) {
        who = it->second;
        ok = true;
      } else {
        std::lock_guard l(tokens_mu_);
        if (auto iss = issued_tokens_.find(token); iss != issued_tokens_.end()) {
          who = iss->second;
          ok = true;
        }
      }
      status.AddMember("authenticated", ok, a);
      if (ok) status.AddMember("user", user_json(who), a);
    } else {
      // No authorization: every request is allowed.
      status.AddMember("allowed", true, a);
      status.AddMember("reason", "localkube does not enforce authorization", a);
    }
    SetMember(*doc, "status", std::move(status), a);
    return JsonResponse(201, Serialize(*doc));
  }
  if (sub == "eviction") {
    if (req.method != "POST")
      return ErrorResponse(kube::NewMethodNotAllowed("only POST is allowed"));
    auto body = BodyJson(req, true);
    if (!body.ok()) return ErrorResponse(body.status());
    auto doc = Parse(*body);
    if (!doc.ok() || !doc->IsObject()) {
      return ErrorResponse(
          kube::NewBadRequest("the object provided is unrecognized (must be of type Eviction)"));
    }
    auto pod = store_->Get(gvr, ns, name);
    if (!pod.ok()) return ErrorResponse(pod.status());
    // PodDisruptionBudgets: refuse when the eviction would take healthy pods below the budget.
    auto pod_doc = Parse((*pod)->json());
    const bool pod_healthy = pod_doc.ok() && GetStr(*pod_doc, {"status", "phase"}) == "Running";
    auto pdbs = store_->List({"policy", "v1", "poddisruptionbudgets"}, ns, {});
    if (pdbs.ok() && pod_healthy && !(*pod)->deleting()) {
      for (const ObjectPtr& pdb : pdbs->items) {
        auto pd = Parse(pdb->json());
        if (!pd.ok()) continue;
        const Json* sel = Path(*pd, {"spec", "selector"});
        if (sel == nullptr) continue;
        auto ls = LabelSelector::FromJson(Serialize(*sel));
        if (!ls.ok() || ls->Empty() || !ls->Matches((*pod)->labels())) continue;
        auto pods = store_->List(gvr, ns, {});
        int64_t healthy = 0, total = 0;
        if (pods.ok()) {
          for (const ObjectPtr& p : pods->items) {
            if (!ls->Matches(p->labels())) continue;
            ++total;
            auto d = Parse(p->json());
            if (d.ok() && GetStr(*d, {"status", "phase"}) == "Running" && !p->deleting()) ++healthy;
          }
        }
        auto resolve = [&](const Json* v) -> int64_t {
          if (v == nullptr) return -1;
          if (v->IsInt64()) return v->GetInt64();
          if (v->IsString()) {
            std::string s(View(*v));
            if (!s.empty() && s.back() == '%') {
              const int64_t pct = std::atoll(s.substr(0, s.size() - 1).c_str());
              return (total * pct + 99) / 100;
            }
            return std::atoll(s.c_str());
          }
          return -1;
        };
        int64_t allowed = 1;
        if (const Json* mina = Path(*pd, {"spec", "minAvailable"}); mina != nullptr) {
          allowed = healthy - resolve(mina);
        } else if (const Json* maxu = Path(*pd, {"spec", "maxUnavailable"}); maxu != nullptr) {
          allowed = resolve(maxu) - (total - healthy);
        }
        if (allowed <= 0) {
          Status s = kube::NewTooManyRequests(
              "Cannot evict pod as it would violate the pod's disruption budget.", 0);
          s.AddCause({"DisruptionBudget", "",
                      "The disruption budget " + pdb->name() + " needs " +
                          std::to_string(healthy - std::max<int64_t>(allowed, 0)) +
                          " healthy pods and has " + std::to_string(healthy) + " currently"});
          return ErrorResponse(s);
        }
      }
    }
    DeleteOptions dopts;
    dopts.user = user;
    if (const Json* d = Member(*doc, "deleteOptions"); d != nullptr && d->IsObject()) {
      if (auto g = GetInt(*d, {"gracePeriodSeconds"})) dopts.grace_period_seconds = *g;
      const std::string uid = GetStr(*d, {"preconditions", "uid"});
      if (!uid.empty()) dopts.precondition_uid = uid;
      const std::string rv = GetStr(*d, {"preconditions", "resourceVersion"});
      if (!rv.empty()) dopts.precondition_resource_version = rv;
      const Json* dry = Member(*d, "dryRun");
      if (dry != nullptr && dry->IsArray() && !dry->Empty()) dopts.dry_run = true;
    }
    if (IsTrue(req.Query("dryRun")) || (req.Query("dryRun") && *req.Query("dryRun") == "All")) {
      dopts.dry_run = true;
    }
    auto del = store_->Delete(gvr, ns, name, dopts);
    if (!del.ok()) return ErrorResponse(del.status());
    return JsonResponse(201, SuccessStatus(201, "", "", "", ""));
  }
  if (sub == "log") {
    if (req.method != "GET") return ErrorResponse(kube::NewMethodNotAllowed("only GET is allowed"));
    auto pod = store_->Get(gvr, ns, name);
    if (!pod.ok()) return ErrorResponse(pod.status());
    return TextResponse(200, "");
  }
  if (sub == "scale") {
    auto obj = store_->Get(gvr, ns, name);
    if (!obj.ok()) return ErrorResponse(obj.status());
    auto scale_json = [&](const ObjectPtr& o) -> std::string {
      auto d = Parse(o->json());
      if (!d.ok()) return "{}";
      const int64_t spec_r = GetInt(*d, {"spec", "replicas"}).value_or(0);
      const Json* st = DottedPath(*d, r->scale_status_replicas_path);
      const int64_t status_r = st && st->IsInt64() ? st->GetInt64() : 0;
      std::string selector;
      if (const Json* sel = Path(*d, {"spec", "selector"}); sel != nullptr && sel->IsObject()) {
        auto ls = LabelSelector::FromJson(Serialize(*sel));
        if (ls.ok()) selector = ls->ToString();
      }
      if (!r->scale_label_selector_path.empty()) {
        const Json* s = DottedPath(*d, r->scale_label_selector_path);
        if (s && s->IsString()) selector = std::string(View(*s));
      }
      std::string out =
          "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\",\"metadata\":{\"name\":" +
          Quoted(o->name());
      if (!o->namespace_().empty()) out += ",\"namespace\":" + Quoted(o->namespace_());
      out += ",\"uid\":" + Quoted(o->uid()) +
             ",\"resourceVersion\":" + Quoted(std::to_string(o->resource_version())) +
             ",\"creationTimestamp\":" + Quoted(GetStr(*d, {"metadata", "creationTimestamp"})) +
             "},\"spec\":{\"replicas\":" + std::to_string(spec_r) +
             "},\"status\":{\"replicas\":" + std::to_string(status_r);
      if (!selector.empty()) out += ",\"selector\":" + Quoted(selector);
      return out + "}}";
    };
    if (req.method == "GET") return JsonResponse(200, scale_json(*obj));
    if (req.method != "PUT" && req.method != "PATCH") {
      return ErrorResponse(kube::NewMethodNotAllowed("the server does not allow this method"));
    }
    auto body = BodyJson(req, true);
    if (req.method == "PATCH") body = req.body;
    if (!body.ok()) return ErrorResponse(body.status());
    auto patch_doc = Parse(*body);
    if (!patch_doc.ok())
      return ErrorResponse(kube::NewBadRequest(std::string(patch_doc.status().message())));
    // Apply the request to the Scale view, then copy spec.replicas into the object.
    auto scale_doc = Parse(scale_json(*obj));
    if (!scale_doc.ok()) return ErrorResponse(kube::NewInternalError("scale"));
    JsonDoc& sd = *scale_doc;
    if (req.method == "PUT") {
      sd.CopyFrom(*patch_doc, sd.GetAllocator());
    } else {
      const std::string* ct = req.Header("content-type");
      const std::string type = ct ? *ct : "";
      Status ps;
      JsonDoc tmp;
      if (type.find("json-patch") != std::string::npos) {
        ps = ApplyJsonPatch(sd, *patch_doc, sd.GetAllocator());
      } else {
        ps = ApplyMergePatch(sd, *patch_doc, sd.GetAllocator());
      }
      if (!ps.ok()) return ErrorResponse(ps);
    }
    const auto replicas = GetInt(sd, {"spec", "replicas"});
    if (!replicas || *replicas < 0) {
      return ErrorResponse(kube::NewInvalid(
          "Scale.autoscaling", name,
          {FieldInvalid("spec.replicas", replicas ? std::to_string(*replicas) : "null",
                        "must be greater than or equal to 0")}));
    }
    const std::string want_rv = GetStr(sd, {"metadata", "resourceVersion"});
    WriteOptions wo;
    if (Status s = write_opts(&wo); !s.ok()) return ErrorResponse(s);
    wo.subresource = "";
    const std::string path = r->scale_spec_replicas_path;
    auto updated = store_->Mutate(
        gvr, ns, name,
        [&](MutableObject& m) -> Status {
          if (req.method == "PUT" && !want_rv.empty() &&
              want_rv != GetStr(m.doc(), {"metadata", "resourceVersion"})) {
            return ErrStaleConflict(what, name);
          }
          Json* cur = &m.doc();
          const auto parts = StrSplit(path, '.');
          for (size_t k = 0; k + 1 < parts.size(); ++k)
            cur = &EnsureObject(*cur, parts[k], m.alloc());
          SetInt(*cur, parts.back(), *replicas, m.alloc());
          return Status::OK();
        },
        wo);
    if (!updated.ok()) return ErrorResponse(updated.status());
    return JsonResponse(200, scale_json(*updated));
  }
  if (sub == "finalize") {
    if (req.method != "PUT") return ErrorResponse(kube::NewMethodNotAllowed("only PUT is allowed"));
    auto body = BodyJson(req, true);
    if (!body.ok()) return ErrorResponse(body.status());
    auto doc = Parse(*body);
    if (!doc.ok()) return ErrorResponse(kube::NewBadRequest(std::string(doc.status().message())));
    JsonDoc fin;
    if (const Json* f = Path(*doc, {"spec", "finalizers"}); f != nullptr) {
      fin.CopyFrom(*f, fin.GetAllocator());
    } else {
      fin.SetArray();
    }
    WriteOptions wo;
    if (Status s = write_opts(&wo); !s.ok()) return ErrorResponse(s);
    wo.subresource = "";
    auto updated = store_->Mutate(
        gvr, ns, name,
        [&](MutableObject& m) -> Status {
          Json& spec = EnsureObject(m.doc(), "spec", m.alloc());
          if (fin.Empty()) {
            RemoveMember(spec, "finalizers");
          } else {
            SetMember(spec, "finalizers", Json(fin, m.alloc()), m.alloc());
          }
          return Status::OK();
        },
        wo);
    if (!updated.ok()) return ErrorResponse(updated.status());
    // A terminating namespace with no finalizers left is removed.
    auto nd = Parse((*updated)->json());
    if ((*updated)->deleting() && nd.ok() && Path(*nd, {"spec", "finalizers"}) == nullptr) {
      store_->Delete(gvr, "", name, {}).status().IgnoreError();
    }
    return respond_object(200, *updated);
  }
  if (!sub.empty() && sub != "status") {
    return ErrorResponse(
        kube::NewMethodNotAllowed("the server does not allow this method on the "
                                  "requested resource"));
  }
  if (sub == "status" && (verb == "create" || verb == "delete")) {
    return ErrorResponse(
        kube::NewMethodNotAllowed("the server does not allow this method on the "
                                  "requested resource"));
  }
  if (std::find(r->verbs.begin(), r->verbs.end(), verb) == r->verbs.end() && sub.empty()) {
    return ErrorResponse(
        kube::NewMethodNotAllowed("the server does not allow this method on the "
                                  "requested resource"));
  }

  const bool as_table = AcceptsAs(req, "Table");
  const bool as_partial = !as_table && (AcceptsAs(req, "PartialObjectMetadataList") ||
                                        AcceptsAs(req, "PartialObjectMetadata"));
  std::string include = "Metadata";
  if (const std::string* io = req.Query("includeObject"); io != nullptr && !io->empty()) {
    include = *io;
  }

  // ---- reads
  if (verb == "get") {
    auto obj = store_->Get(gvr, ns, name);
    if (!obj.ok()) return ErrorResponse(obj.status());
    if (as_table) {
      std::string body =
          "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/"
          "v1\",\"metadata\":{\"resourceVersion\":" +
          Quoted(std::to_string((*obj)->resource_version())) +
          "},\"columnDefinitions\":" + TableColumnsJson(*r) + ",\"rows\":[" +
          TableRow(store_, *obj, *r, include, store_->clock()->Now()) + "]}";
      return JsonResponse(200, body);
    }
    if (as_partial) return JsonResponse(200, PartialMetadata((*obj)->json(), *r));
    return respond_object(200, *obj);
  }
  if (verb == "list") {
    ListOptions lo;
    if (const std::string* v = req.Query("labelSelector")) lo.label_selector = *v;
    if (const std::string* v = req.Query("fieldSelector")) lo.field_selector = *v;
    if (const std::string* v = req.Query("continue")) lo.continue_token = *v;
    if (const std::string* v = req.Query("resourceVersion")) lo.resource_version = *v;
    if (const std::string* v = req.Query("resourceVersionMatch")) lo.resource_version_match = *v;
    std::optional<int64_t> limit;
    if (Status s = ParseInt64Param(req, "limit", &limit); !s.ok()) return ErrorResponse(s);
    lo.limit = limit.value_or(0);
    auto list = store_->List(gvr, ns, lo);
    if (!list.ok()) return ErrorResponse(list.status());
    std::string meta = "{\"resourceVersion\":" + Quoted(std::to_string(list->resource_version));
    if (!list->continue_token.empty()) meta += ",\"continue\":" + Quoted(list->continue_token);
    if (list->remaining_item_count) {
      meta += ",\"remainingItemCount\":" + std::to_string(*list->remaining_item_count);
    }
    meta += "}";
    std::string body;
    if (as_table) {
      const WallTime now = store_->clock()->Now();
      body = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":" + meta +
             ",\"columnDefinitions\":" + TableColumnsJson(*r) + ",\"rows\":[";
      for (size_t k = 0; k < list->items.size(); ++k) {
        if (k > 0) body += ",";
        body += TableRow(store_, list->items[k], *r, include, now);
      }
      body += "]}";
      return JsonResponse(200, body);
    }
    const bool native = r->version == r->storage_version && r->gr() == r->storage;
    if (!as_partial && native && list->items.size() > 1000) {
      // Large lists stream in chunks instead of materializing one huge body.
      HttpResponse resp;
      resp.status = 200;
      resp.SetHeader("Content-Type", std::string(kJson));
      auto items = std::make_shared<std::vector<ObjectPtr>>(std::move(list->items));
      std::string head = "{\"kind\":" + Quoted(r->list_kind) +
                         ",\"apiVersion\":" + Quoted(r->api_version()) + ",\"metadata\":" + meta +
                         ",\"items\":[";
      resp.stream = [items, head](ChunkWriter& out) {
        std::string buf = head;
        buf.reserve(1 << 20);
        for (size_t k = 0; k < items->size(); ++k) {
          if (k > 0) buf += ',';
          buf += (*items)[k]->json();
          if (buf.size() >= (1 << 20)) {
            if (!out.Write(buf)) return;
            buf.clear();
          }
        }
        buf += "]}";
        out.Write(buf);
      };
      return resp;
    }
    size_t total = 64;
    for (const ObjectPtr& o : list->items) total += o->json().size() + 1;
    body.reserve(total + meta.size() + 128);
    if (as_partial) {
      body =
          "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/"
          "v1\",\"metadata\":" +
          meta + ",\"items\":[";
    } else {
      body = "{\"kind\":" + Quoted(r->list_kind) + ",\"apiVersion\":" + Quoted(r->api_version()) +
             ",\"metadata\":" + meta + ",\"items\":[";
    }
    for (size_t k = 0; k < list->items.size(); ++k) {
      if (k > 0) body += ',';
      if (as_partial) {
        body += PartialMetadata(list->items[k]->json(), *r);
      } else {
        body += ObjectJsonFor(store_, list->items[k], *r);
      }
    }
    body += "]}";
    return JsonResponse(200, std::move(body));
  }
  if (verb == "watch") {
    WatchOptions wo;
    if (const std::string* v = req.Query("labelSelector")) wo.label_selector = *v;
    if (const std::string* v = req.Query("fieldSelector")) wo.field_selector = *v;
    if (const std::string* v = req.Query("resourceVersion")) wo.resource_version = *v;
    if (const std::string* v = req.Query("resourceVersionMatch")) wo.resource_version_match = *v;
    wo.allow_bookmarks = IsTrue(req.Query("allowWatchBookmarks"));
    wo.send_initial_events = IsTrue(req.Query("sendInitialEvents"));
    wo.bookmark_interval = options_.bookmark_interval;
    std::optional<int64_t> timeout;
    if (Status s = ParseInt64Param(req, "timeoutSeconds", &timeout); !s.ok())
      return ErrorResponse(s);
    wo.timeout =
        timeout ? Duration(std::chrono::seconds(*timeout)) : options_.default_watch_timeout;
    if (!name.empty()) {
      // Watch of a single object: a field selector on its name.
      wo.field_selector = wo.field_selector.empty() ? "metadata.name=" + name
                                                    : wo.field_selector + ",metadata.name=" + name;
    }
    auto w = store_->StartWatch(gvr, ns, wo);
    if (!w.ok()) return ErrorResponse(w.status());
    HttpResponse resp;
    resp.status = 200;
    resp.SetHeader("Content-Type", std::string(kJson));
    resp.SetHeader("Transfer-Encoding", "chunked");
    std::shared_ptr<Watch> watch(std::move(*w));
    Store* store = store_;
    resp.stream = [watch, store, rr = r, as_table, include](ChunkWriter& out) {
      std::vector<WatchEvent> events;
      const bool native = rr->version == rr->storage_version && rr->gr() == rr->storage;
      std::string buf;
      while (true) {
        events.clear();
        const bool more =
            watch->Next(store->clock()->NowMonotonic() + std::chrono::seconds(1), &events);
        buf.clear();
        for (const WatchEvent& ev : events) {
          if (ev.type == EventType::kError) {
            buf += WatchFrame(EventType::kError, StatusJson(ev.error));
            continue;
          }
          if (ev.type == EventType::kBookmark) {
            std::string obj =
                "{\"kind\":" + Quoted(rr->kind) + ",\"apiVersion\":" + Quoted(rr->api_version()) +
                ",\"metadata\":{\"resourceVersion\":" + Quoted(std::to_string(ev.resource_version));
            if (rr->crd_name.empty()) obj += ",\"creationTimestamp\":null";
            if (ev.initial_events_end) {
              obj += ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
            }
            obj += "}}";
            buf += WatchFrame(EventType::kBookmark, obj);
            continue;
          }
          if (as_table) {
            const std::string table =
                "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/"
                "v1\",\"metadata\":{\"resourceVersion\":" +
                Quoted(std::to_string(ev.object->resource_version())) +
                "},\"columnDefinitions\":" + TableColumnsJson(*rr) + ",\"rows\":[" +
                TableRow(store, ev.object, *rr, include, store->clock()->Now()) + "]}";
            buf += WatchFrame(ev.type, table);
          } else if (native && ev.frame) {
            buf += *ev.frame;
          } else {
            buf += WatchFrame(ev.type, ObjectJsonFor(store, ev.object, *rr));
          }
        }
        if (!buf.empty() && !out.Write(buf)) break;
        if (!more) break;
        if (events.empty() && out.Closed()) break;
      }
      watch->Stop();
    };
    return resp;
  }

  // ---- writes
  if (verb == "create") {
    if (!name.empty()) {
      return ErrorResponse(
          kube::NewMethodNotAllowed("the server does not allow this method on the "
                                    "requested resource"));
    }
    if (req.body.size() > options_.max_body_bytes) {
      return ErrorResponse(
          kube::NewRequestEntityTooLarge("Request entity too large: limit is 3145728"));
    }
    auto body = BodyJson(req, true);
    if (!body.ok()) return ErrorResponse(body.status());
    WriteOptions wo;
    if (Status s = write_opts(&wo); !s.ok()) return ErrorResponse(s);
    wo.warnings = &warnings;
    auto created = store_->Create(gvr, ns, *body, wo);
    if (!created.ok()) return ErrorResponse(created.status());
    return respond_object(201, *created);
  }
  if (verb == "update") {
    auto body = BodyJson(req, true);
    if (!body.ok()) return ErrorResponse(body.status());
    WriteOptions wo;
    if (Status s = write_opts(&wo); !s.ok()) return ErrorResponse(s);
    wo.warnings = &warnings;
    auto updated = store_->Update(gvr, ns, name, *body, wo);
    if (!updated.ok()) return ErrorResponse(updated.status());
    return respond_object(200, *updated);
  }
  if (verb == "patch") {
    const std::string* ct = req.Header("content-type");
    std::string type = ct ? AsciiToLower(*ct) : "";
    const size_t semi = type.find(';');
    if (semi != std::string::npos) type = type.substr(0, semi);
    type = std::string(StripWhitespace(type));
    PatchType pt;
    std::string patch = req.body;
    if (type == "application/merge-patch+json") {
      pt = PatchType::kMerge;
    } else if (type == "application/json-patch+json") {
      pt = PatchType::kJson;
    } else if (type == "application/strategic-merge-patch+json") {
      pt = PatchType::kStrategic;
    } else if (type == "application/apply-patch+yaml" || type == "application/apply-patch+cbor") {
      pt = PatchType::kApply;
      auto json = api::YamlToJson(req.body);
      if (!json.ok()) {
        return ErrorResponse(
            kube::NewBadRequest("error decoding YAML: " + std::string(json.status().message())));
      }
      patch = *json;
    } else {
      return ErrorResponse(kube::NewUnsupportedMediaType(
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json-patch+json, application/merge-patch+json, "
          "application/apply-patch+yaml, application/strategic-merge-patch+json"));
    }
    PatchOptions po;
    if (Status s = write_opts(&po); !s.ok()) return ErrorResponse(s);
    po.warnings = &warnings;
    if (IsTrue(req.Query("force"))) {
      if (pt != PatchType::kApply) {
        return ErrorResponse(kube::NewInvalid(
            "PatchOptions.meta.k8s.io", "",
            {FieldForbidden("force", "may not be specified for non-apply patch")}));
      }
      po.force = true;
    }
    const bool existed = store_->Get(gvr, ns, name).ok();
    auto patched = store_->Patch(gvr, ns, name, pt, patch, po);
    if (!patched.ok()) return ErrorResponse(patched.status());
    return respond_object(pt == PatchType::kApply && !existed ? 201 : 200, *patched);
  }
  if (verb == "delete" || verb == "deletecollection") {
    DeleteOptions dopts;
    dopts.user = user;
    if (!req.body.empty()) {
      auto body = BodyJson(req, true);
      if (!body.ok()) return ErrorResponse(body.status());
      auto doc = Parse(*body);
      if (!doc.ok() || !doc->IsObject()) {
        return ErrorResponse(kube::NewBadRequest(
            "the object provided is unrecognized (must be of type DeleteOptions)"));
      }
      if (auto g = GetInt(*doc, {"gracePeriodSeconds"})) dopts.grace_period_seconds = *g;
      dopts.propagation_policy = GetStr(*doc, {"propagationPolicy"});
      if (const Json* o = Member(*doc, "orphanDependents"); o && o->IsBool()) {
        if (!dopts.propagation_policy.empty()) {
          return ErrorResponse(kube::NewInvalid(
              "DeleteOptions.meta.k8s.io", "",
              {FieldInvalid("propagationPolicy", Quoted(dopts.propagation_policy),
                            "orphanDependents and deletionPropagation cannot be both set")}));
        }
        dopts.propagation_policy = o->GetBool() ? "Orphan" : "Background";
      }
      const std::string uid = GetStr(*doc, {"preconditions", "uid"});
      if (!uid.empty()) dopts.precondition_uid = uid;
      const std::string rv = GetStr(*doc, {"preconditions", "resourceVersion"});
      if (!rv.empty()) dopts.precondition_resource_version = rv;
      if (const Json* d = Member(*doc, "dryRun"); d && d->IsArray() && !d->Empty())
        dopts.dry_run = true;
    }
    if (Status s = ParseInt64Param(req, "gracePeriodSeconds", &dopts.grace_period_seconds);
        !s.ok()) {
      return ErrorResponse(s);
    }
    if (const std::string* p = req.Query("propagationPolicy")) dopts.propagation_policy = *p;
    if (const std::string* o = req.Query("orphanDependents")) {
      dopts.propagation_policy = (*o == "true") ? "Orphan" : "Background";
    }
    if (const std::string* d = req.Query("dryRun")) {
      if (*d != "All") return ErrorResponse(kube::NewBadRequest("Invalid dry run value: " + *d));
      dopts.dry_run = true;
    }
    if (verb == "delete") {
      auto del = store_->Delete(gvr, ns, name, dopts);
      if (!del.ok()) return ErrorResponse(del.status());
      return respond_object(del->deleted ? 200 : 202, del->object);
    }
    ListOptions lo;
    if (const std::string* v = req.Query("labelSelector")) lo.label_selector = *v;
    if (const std::string* v = req.Query("fieldSelector")) lo.field_selector = *v;
    auto dels = store_->DeleteCollection(gvr, ns, lo, dopts);
    if (!dels.ok()) return ErrorResponse(dels.status());
    std::string body = "{\"kind\":" + Quoted(r->list_kind) +
                       ",\"apiVersion\":" + Quoted(r->api_version()) +
                       ",\"metadata\":{\"resourceVersion\":" +
                       Quoted(std::to_string(store_->CurrentResourceVersion())) + "},\"items\":[";
    for (size_t k = 0; k < dels->size(); ++k) {
      if (k > 0) body += ",";
      body += ObjectJsonFor(store_, (*dels)[k], *r);
    }
    return JsonResponse(200, body + "]}");
  }
  return ErrorResponse(
      kube::NewMethodNotAllowed("the server does not allow this method on the "
                                "requested resource"));
}

// ---------------------------------------------------------------------------------------------
// Control endpoint (loopback only).

HttpResponse ApiHandler::HandleControl(const HttpRequest& req) {
  if (!req.loopback)
    return ErrorResponse(kube::NewForbidden("the control endpoint is loopback-only"));
  const std::string& p = req.path;
  if (p == "/localkube/healthz") return TextResponse(200, "ok");
  if (req.method != "POST" && !(req.method == "GET" && p == "/localkube/faults") &&
      !(req.method == "GET" && p == "/localkube/stats")) {
    return ErrorResponse(kube::NewMethodNotAllowed("use POST"));
  }
  if (p == "/localkube/watches/drop") {
    store_->DropWatches();
    return JsonResponse(200, "{\"dropped\":true}");
  }
  if (p == "/localkube/history/compact") {
    store_->CompactHistory();
    return JsonResponse(
        200, "{\"compactedAt\":\"" + std::to_string(store_->CurrentResourceVersion()) + "\"}");
  }
  if (p == "/localkube/faults" && req.method == "GET") {
    std::string out = "[";
    bool first = true;
    for (const FaultRule& r : faults_->Rules()) {
      if (!first) out += ",";
      first = false;
      out += "{\"verb\":" + Quoted(r.verb) + ",\"resource\":" + Quoted(r.resource) +
             ",\"namespace\":" + Quoted(r.ns) + ",\"code\":" + std::to_string(r.code) +
             ",\"count\":" + std::to_string(r.remaining) +
             ",\"retryAfter\":" + std::to_string(r.retry_after_seconds) +
             ",\"latencyMs\":" + std::to_string(r.latency_ms) + "}";
    }
    return JsonResponse(200, out + "]");
  }
  if (p == "/localkube/faults") {
    // Body: JSON {"verb":..,"resource":..,"namespace":..,"code":..,"count":..,"retryAfter":..,
    // "latencyMs":..,"message":..} or the flag syntax "verb=create,resource=pods,code=500".
    FaultRule rule;
    auto doc = Parse(req.body);
    if (doc.ok() && doc->IsObject()) {
      rule.verb = GetStr(*doc, {"verb"});
      rule.resource = GetStr(*doc, {"resource"});
      rule.ns = GetStr(*doc, {"namespace"});
      rule.code =
          static_cast<int>(GetInt(*doc, {"code"}).value_or(Member(*doc, "latencyMs") ? 0 : 500));
      rule.remaining = static_cast<int>(GetInt(*doc, {"count"}).value_or(1));
      rule.retry_after_seconds = static_cast<int>(GetInt(*doc, {"retryAfter"}).value_or(0));
      rule.latency_ms = static_cast<int>(GetInt(*doc, {"latencyMs"}).value_or(0));
      rule.message = GetStr(*doc, {"message"});
      if (rule.verb.empty()) rule.verb = "*";
      if (rule.resource.empty()) rule.resource = "*";
    } else {
      auto parsed = ParseFaultRule(req.body);
      if (!parsed.ok())
        return ErrorResponse(kube::NewBadRequest(std::string(parsed.status().message())));
      rule = *parsed;
    }
    faults_->Add(rule);
    return JsonResponse(200, "{\"added\":true}");
  }
  if (p == "/localkube/faults/clear") {
    faults_->Clear();
    return JsonResponse(200, "{\"cleared\":true}");
  }
  if (p == "/localkube/latency") {
    std::optional<int64_t> ms;
    if (Status s = ParseInt64Param(req, "ms", &ms); !s.ok()) return ErrorResponse(s);
    faults_->SetGlobalLatency(std::chrono::milliseconds(ms.value_or(0)));
    return JsonResponse(200, "{\"latencyMs\":" + std::to_string(ms.value_or(0)) + "}");
  }
  if (p == "/localkube/stats") {
    return JsonResponse(200, "{\"resourceVersion\":\"" +
                                 std::to_string(store_->CurrentResourceVersion()) +
                                 "\",\"watches\":" + std::to_string(store_->ActiveWatches()) +
                                 ",\"bytes\":" + std::to_string(store_->ApproximateBytes()) +
                                 ",\"requests\":" + requests_.Json() + "}");
  }
  return ErrorResponse(kube::NewNotFound("localkube control endpoint", p));
}

}  // namespace kai::localkube
