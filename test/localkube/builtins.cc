// The built-in resources: discovery data (kinds, short names, categories, verbs, subresources)
// and the server-side defaulting and validation clients rely on (k8s.io/kubernetes pkg/apis/*
// defaults.go and validation.go, reduced to what matters to this project's users).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "api/quantity.h"
#include "api/validation.h"
#include "kube/base/strings.h"
#include "test/localkube/errors.h"
#include "test/localkube/selector.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};

void SetDefault(Json& obj, std::string_view k, Json v, JsonAlloc& a) {
  if (Member(obj, k) == nullptr) obj.AddMember(Str(k, a), v, a);
}
void SetDefaultStr(Json& obj, std::string_view k, std::string_view v, JsonAlloc& a) {
  if (Member(obj, k) == nullptr) obj.AddMember(Str(k, a), Str(v, a), a);
}

// ---- Pod spec defaults (pkg/apis/core/v1/defaults.go)

void DefaultContainer(Json& c, JsonAlloc& a) {
  if (!c.IsObject()) return;
  SetDefaultStr(c, "terminationMessagePath", "/dev/termination-log", a);
  SetDefaultStr(c, "terminationMessagePolicy", "File", a);
  if (Member(c, "imagePullPolicy") == nullptr) {
    const std::string image = GetStr(c, {"image"});
    const size_t slash = image.rfind('/');
    const std::string last = slash == std::string::npos ? image : image.substr(slash + 1);
    const bool has_digest = image.find('@') != std::string::npos;
    const size_t colon = last.find(':');
    const std::string tag = colon == std::string::npos ? "" : last.substr(colon + 1);
    const bool latest = !has_digest && (tag.empty() || tag == "latest");
    SetDefaultStr(c, "imagePullPolicy", latest ? "Always" : "IfNotPresent", a);
  }
  SetDefault(c, "resources", Json(rapidjson::kObjectType), a);
  Json& res = *Member(c, "resources");
  if (res.IsObject()) {
    // Requests default to limits.
    const Json* limits = Member(res, "limits");
    if (limits != nullptr && limits->IsObject() && limits->MemberCount() > 0) {
      Json& req = EnsureObject(res, "requests", a);
      for (auto it = limits->MemberBegin(); it != limits->MemberEnd(); ++it) {
        if (Member(req, View(it->name)) == nullptr) {
          req.AddMember(Json(it->name, a), Json(it->value, a), a);
        }
      }
    }
  }
  if (Json* ports = Member(c, "ports"); ports != nullptr && ports->IsArray()) {
    for (Json& p : ports->GetArray()) {
      if (p.IsObject()) SetDefaultStr(p, "protocol", "TCP", a);
    }
  }
  if (Json* env = Member(c, "env"); env != nullptr && env->IsArray()) {
    for (Json& e : env->GetArray()) {
      Json* fr = Path(e, {"valueFrom", "fieldRef"});
      if (fr != nullptr && fr->IsObject()) SetDefaultStr(*fr, "apiVersion", "v1", a);
    }
  }
}

void DefaultPodSpec(Json& spec, JsonAlloc& a) {
  if (!spec.IsObject()) return;
  SetDefaultStr(spec, "restartPolicy", "Always", a);
  SetDefault(spec, "terminationGracePeriodSeconds", Json(30), a);
  SetDefaultStr(spec, "dnsPolicy", "ClusterFirst", a);
  SetDefault(spec, "securityContext", Json(rapidjson::kObjectType), a);
  SetDefaultStr(spec, "schedulerName", "default-scheduler", a);
  for (const char* list : {"containers", "initContainers"}) {
    if (Json* cs = Member(spec, list); cs != nullptr && cs->IsArray()) {
      for (Json& c : cs->GetArray()) DefaultContainer(c, a);
    }
  }
  if (Json* vols = Member(spec, "volumes"); vols != nullptr && vols->IsArray()) {
    for (Json& v : vols->GetArray()) {
      if (!v.IsObject()) continue;
      bool has_source = false;
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        if (View(it->name) != "name") has_source = true;
      }
      if (!has_source) v.AddMember("emptyDir", Json(rapidjson::kObjectType), a);
      if (Json* cm = Member(v, "configMap"); cm && cm->IsObject()) {
        SetDefault(*cm, "defaultMode", Json(420), a);
      }
      if (Json* s = Member(v, "secret"); s && s->IsObject()) {
        SetDefault(*s, "defaultMode", Json(420), a);
      }
    }
  }
}

void DefaultPodTemplate(Json& obj, std::initializer_list<std::string_view> path, JsonAlloc& a) {
  if (Json* spec = Path(obj, path); spec != nullptr) DefaultPodSpec(*spec, a);
}

// The pod's QoS class as the API server computes it (pkg/apis/core/helper/qos): only cpu and
// memory count, summed over regular and init containers; Guaranteed needs cpu and memory limits
// on every container and total requests equal to total limits.
std::string PodQos(const Json& pod) {
  std::map<std::string, api::Quantity> requests, limits;
  bool guaranteed = true;
  for (const char* field : {"containers", "initContainers"}) {
    const Json* cs = Path(pod, {"spec", field});
    if (cs == nullptr || !cs->IsArray()) continue;
    for (const Json& c : cs->GetArray()) {
      bool cpu_limit = false, memory_limit = false;
      for (const char* kind : {"requests", "limits"}) {
        const Json* list = Path(c, {"resources", kind});
        if (list == nullptr || !list->IsObject()) continue;
        for (auto it = list->MemberBegin(); it != list->MemberEnd(); ++it) {
          const std::string_view name = View(it->name);
          if (name != "cpu" && name != "memory") continue;
          auto q = it->value.IsString() ? api::Quantity::Parse(View(it->value))
                                        : StatusOr<api::Quantity>(api::Quantity());
          if (!q.ok() || q->Sign() <= 0) continue;
          auto& total = (kind[0] == 'r' ? requests : limits)[std::string(name)];
          total.Add(*q);
          if (kind[0] == 'l') (name == "cpu" ? cpu_limit : memory_limit) = true;
        }
      }
      if (!cpu_limit || !memory_limit) guaranteed = false;
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  if (guaranteed) {
    for (const auto& [name, req] : requests) {
      auto it = limits.find(name);
      if (it == limits.end() || it->second.Cmp(req) != 0) guaranteed = false;
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

// ---- validation helpers

void RequireStr(const Json& obj, std::initializer_list<std::string_view> path,
                const std::string& field, std::vector<StatusCause>* errs) {
  if (GetStr(obj, path).empty()) errs->push_back(FieldRequired(field));
}

void ValidateContainers(const Json& spec, const std::string& prefix,
                        std::vector<StatusCause>* errs) {
  const Json* cs = Member(spec, "containers");
  if (cs == nullptr || !cs->IsArray() || cs->Empty()) {
    errs->push_back(FieldRequired(prefix + ".containers"));
  }
  std::set<std::string> names;
  for (const char* list : {"initContainers", "containers"}) {
    const Json* l = Member(spec, list);
    if (l == nullptr || !l->IsArray()) continue;
    for (rapidjson::SizeType i = 0; i < l->Size(); ++i) {
      const Json& c = (*l)[i];
      const std::string p = prefix + "." + list + "[" + std::to_string(i) + "]";
      const std::string name = GetStr(c, {"name"});
      if (name.empty()) {
        errs->push_back(FieldRequired(p + ".name"));
      } else {
        for (const std::string& e : api::IsDns1123Label(name)) {
          errs->push_back(FieldInvalid(p + ".name", Quoted(name), e));
        }
        if (!names.insert(name).second) errs->push_back(FieldDuplicate(p + ".name", Quoted(name)));
      }
      if (GetStr(c, {"image"}).empty()) errs->push_back(FieldRequired(p + ".image"));
      if (const Json* ports = Member(c, "ports"); ports && ports->IsArray()) {
        for (rapidjson::SizeType j = 0; j < ports->Size(); ++j) {
          const auto port = GetInt((*ports)[j], {"containerPort"});
          const std::string pp = p + ".ports[" + std::to_string(j) + "].containerPort";
          if (!port) {
            errs->push_back(FieldRequired(pp));
          } else if (*port < 1 || *port > 65535) {
            errs->push_back(
                FieldInvalid(pp, std::to_string(*port), "must be between 1 and 65535, inclusive"));
          }
        }
      }
    }
  }
}

void ValidatePodSpec(const Json& spec, const std::string& prefix, std::vector<StatusCause>* errs,
                     const std::vector<std::string>& allowed_restart) {
  ValidateContainers(spec, prefix, errs);
  const std::string rp = GetStr(spec, {"restartPolicy"});
  if (std::find(allowed_restart.begin(), allowed_restart.end(), rp) == allowed_restart.end()) {
    if (rp.empty() || allowed_restart.size() < 3) {
      std::string detail = "valid values: ";
      for (size_t i = 0; i < allowed_restart.size(); ++i) {
        detail += (i ? ", " : "") + Quoted(allowed_restart[i]);
      }
      if (rp.empty()) {
        errs->push_back(FieldRequired(prefix + ".restartPolicy", detail));
      } else {
        errs->push_back(FieldNotSupported(prefix + ".restartPolicy", Quoted(rp), allowed_restart));
      }
    } else {
      errs->push_back(FieldNotSupported(prefix + ".restartPolicy", Quoted(rp), allowed_restart));
    }
  }
  if (const auto g = GetInt(spec, {"terminationGracePeriodSeconds"}); g && *g < 0) {
    errs->push_back(FieldInvalid(prefix + ".terminationGracePeriodSeconds", std::to_string(*g),
                                 "must be greater than or equal to 0"));
  }
}

// selector must match the template labels (apps/v1 workloads, ReplicaSets, Jobs with
// manualSelector).
void ValidateSelectorMatchesTemplate(const Json& obj, std::vector<StatusCause>* errs,
                                     bool required) {
  const Json* sel = Path(obj, {"spec", "selector"});
  if (sel == nullptr || !sel->IsObject()) {
    if (required) errs->push_back(FieldRequired("spec.selector"));
    return;
  }
  const Json* ml = Member(*sel, "matchLabels");
  const Json* me = Member(*sel, "matchExpressions");
  const bool empty = (ml == nullptr || !ml->IsObject() || ml->MemberCount() == 0) &&
                     (me == nullptr || !me->IsArray() || me->Empty());
  if (empty) {
    errs->push_back(
        FieldInvalid("spec.selector", Serialize(*sel), "empty selector is invalid for deployment"));
    return;
  }
  auto parsed = LabelSelector::FromJson(Serialize(*sel));
  if (!parsed.ok()) {
    errs->push_back(
        FieldInvalid("spec.selector", Serialize(*sel), std::string(parsed.status().message())));
    return;
  }
  std::map<std::string, std::string> labels;
  if (const Json* l = Path(obj, {"spec", "template", "metadata", "labels"}); l && l->IsObject()) {
    for (auto it = l->MemberBegin(); it != l->MemberEnd(); ++it) {
      labels[std::string(View(it->name))] = std::string(View(it->value));
    }
  }
  if (!parsed->Matches(labels)) {
    std::string m = "map[string]string{";
    bool first = true;
    for (const auto& [k, v] : labels) {
      m += (first ? "" : ", ") + Quoted(k) + ":" + Quoted(v);
      first = false;
    }
    m += "}";
    errs->push_back(FieldInvalid("spec.template.metadata.labels", m,
                                 "`selector` does not match template `labels`"));
  }
}

void ValidateNonNegative(const Json& obj, std::initializer_list<std::string_view> path,
                         const std::string& field, std::vector<StatusCause>* errs) {
  if (const auto v = GetInt(obj, path); v && *v < 0) {
    errs->push_back(FieldInvalid(field, std::to_string(*v), "must be greater than or equal to 0"));
  }
}

void ValidateImmutable(const Json& obj, const Json* old,
                       std::initializer_list<std::string_view> path, const std::string& field,
                       std::vector<StatusCause>* errs) {
  if (old == nullptr) return;
  const Json* a = Path(obj, path);
  const Json* b = Path(*old, path);
  if ((a == nullptr) != (b == nullptr) || (a != nullptr && !(*a == *b))) {
    errs->push_back(FieldInvalid(field, a ? Serialize(*a) : "null", "field is immutable"));
  }
}

// ---- registration

struct Def {
  std::string group, version, resource, kind, singular;
  bool namespaced = true;
  std::vector<std::string> short_names, categories, subresources;
  std::vector<std::string> verbs = kAllVerbs;
  std::vector<std::string> selectable;
  bool generation = false;
  std::shared_ptr<TypeHooks> hooks;
};

std::shared_ptr<TypeHooks> Hooks(std::string smp_type) {
  auto h = std::make_shared<TypeHooks>();
  h->smp_type = std::move(smp_type);
  return h;
}

ResourcePtr Make(const Def& d) {
  auto r = std::make_shared<ResourceInfo>();
  r->group = d.group;
  r->version = d.version;
  r->resource = d.resource;
  r->kind = d.kind;
  r->singular = d.singular.empty() ? AsciiToLower(d.kind) : d.singular;
  r->list_kind = d.kind + "List";
  r->namespaced = d.namespaced;
  r->short_names = d.short_names;
  r->categories = d.categories;
  r->verbs = d.verbs;
  r->subresources = d.subresources;
  r->selectable_fields = d.selectable;
  r->track_generation = d.generation;
  r->storage = {d.group, d.resource};
  r->storage_version = d.version;
  r->hooks = d.hooks ? d.hooks : Hooks(d.kind);
  return r;
}

}  // namespace

void RegisterBuiltins(ResourceRegistry* reg) {
  // ---- core/v1
  {
    auto h = Hooks("Namespace");
    h->name_rule = NameRule::kDnsLabel;
    h->keep_status_on_create = true;
    h->defaults = [](Json& o, JsonAlloc& a) {
      Json& spec = EnsureObject(o, "spec", a);
      if (Member(spec, "finalizers") == nullptr &&
          Member(*Member(o, "metadata"), "deletionTimestamp") == nullptr) {
        Json f(rapidjson::kArrayType);
        f.PushBack("kubernetes", a);
        spec.AddMember("finalizers", f, a);
      }
      Json& st = EnsureObject(o, "status", a);
      SetDefaultStr(st, "phase", "Active", a);
      Json& labels = EnsureObject(EnsureObject(o, "metadata", a), "labels", a);
      SetString(labels, "kubernetes.io/metadata.name", GetStr(o, {"metadata", "name"}), a);
    };
    reg->Add(Make({"",
                   "v1",
                   "namespaces",
                   "Namespace",
                   "",
                   false,
                   {"ns"},
                   {},
                   {"status", "finalize"},
                   {"create", "delete", "get", "list", "patch", "update", "watch"},
                   {"status.phase"},
                   false,
                   h}));
  }
  {
    auto h = Hooks("Node");
    h->keep_status_on_create = true;
    reg->Add(Make({"",
                   "v1",
                   "nodes",
                   "Node",
                   "",
                   false,
                   {"no"},
                   {},
                   {"status", "proxy"},
                   kAllVerbs,
                   {"spec.unschedulable"},
                   false,
                   h}));
  }
  {
    auto h = Hooks("Pod");
    // podStatusStrategy: old kubelets corrupted owner references through pods/status.
    h->status_keeps_stored_metadata = {"ownerReferences"};
    h->prepare_create = [](Json& o, JsonAlloc& a) {
      Json st(rapidjson::kObjectType);
      st.AddMember("phase", "Pending", a);
      SetMember(o, "status", std::move(st), a);
    };
    h->defaults = [](Json& o, JsonAlloc& a) {
      if (Json* spec = Member(o, "spec"); spec != nullptr) {
        DefaultPodSpec(*spec, a);
        SetDefaultStr(*spec, "serviceAccountName", "default", a);
        SetDefaultStr(*spec, "serviceAccount", GetStr(*spec, {"serviceAccountName"}), a);
        SetDefault(*spec, "enableServiceLinks", Json(true), a);
        // DefaultTolerationSeconds admission.
        Json* tol = Member(*spec, "tolerations");
        if (tol == nullptr || !tol->IsArray()) {
          SetMember(*spec, "tolerations", Json(rapidjson::kArrayType), a);
          tol = Member(*spec, "tolerations");
        }
        for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
          bool found = false;
          for (const Json& t : tol->GetArray()) {
            const std::string k = GetStr(t, {"key"});
            const std::string e = GetStr(t, {"effect"});
            if ((k == key || (k.empty() && GetStr(t, {"operator"}) == "Exists")) &&
                (e.empty() || e == "NoExecute")) {
              found = true;
            }
          }
          if (found) continue;
          Json t(rapidjson::kObjectType);
          t.AddMember("key", Str(key, a), a);
          t.AddMember("operator", "Exists", a);
          t.AddMember("effect", "NoExecute", a);
          t.AddMember("tolerationSeconds", 300, a);
          tol->PushBack(t, a);
        }
      }
      Json& st = EnsureObject(o, "status", a);
      SetDefaultStr(st, "phase", "Pending", a);
      if (Member(st, "qosClass") == nullptr) SetString(st, "qosClass", PodQos(o), a);
    };
    h->validate = [](const Json& o, const Json* old, std::string_view sub,
                     std::vector<StatusCause>* errs) {
      const Json* spec = Member(o, "spec");
      if (spec == nullptr || !spec->IsObject()) {
        errs->push_back(FieldRequired("spec.containers"));
        return;
      }
      ValidatePodSpec(*spec, "spec", errs, {"Always", "OnFailure", "Never"});
      if (old != nullptr && sub != "binding" && sub != "status") {
        // Pod updates may only change a few spec fields.
        const Json* os = Member(*old, "spec");
        if (os != nullptr) {
          JsonDoc a = Clone(*spec), b = Clone(*os);
          for (JsonDoc* d : {&a, &b}) {
            for (const char* f :
                 {"activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"}) {
              RemoveMember(*d, f);
            }
            for (const char* list : {"containers", "initContainers"}) {
              if (Json* cs = Member(*d, list); cs && cs->IsArray()) {
                for (Json& c : cs->GetArray()) RemoveMember(c, "image");
              }
            }
          }
          if (!(a == b)) {
            errs->push_back(FieldForbidden(
                "spec",
                "pod updates may not change fields other than `spec.containers[*].image`,"
                "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                "`spec.tolerations` (only additions to existing tolerations),"
                "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
                "previously negative)"));
          }
        }
      }
    };
    reg->Add(Make(
        {"",
         "v1",
         "pods",
         "Pod",
         "",
         true,
         {"po"},
         {"all"},
         {"status", "binding", "eviction", "log", "ephemeralcontainers", "resize"},
         kAllVerbs,
         {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
          "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"},
         false,
         h}));
  }
  {
    auto h = Hooks("Event");
    // apiserver's legacyValidateEvent (both event APIs): an event lives in its object's
    // namespace ("default" for cluster-scoped objects); one with an eventTime names its
    // reporter and action. Fields by their core/v1 names.
    h->validate = [](const Json& o, const Json*, std::string_view, std::vector<StatusCause>* errs) {
      const std::string ns = GetStr(o, {"metadata", "namespace"});
      const std::string involved_ns = GetStr(o, {"involvedObject", "namespace"});
      const bool new_style = !GetStr(o, {"eventTime"}).empty();
      bool matches = involved_ns.empty() ? (ns == "default" || (!new_style && ns.empty()) ||
                                            (new_style && ns == "kube-system"))
                                         : (new_style || ns == involved_ns);
      if (!matches) {
        errs->push_back(FieldInvalid("involvedObject.namespace", Quoted(involved_ns),
                                     "does not match event.namespace"));
      }
      if (!new_style) return;
      for (const auto& [field, limit] :
           std::vector<std::pair<std::string, size_t>>{{"reportingComponent", 0},
                                                       {"reportingInstance", 128},
                                                       {"action", 128},
                                                       {"reason", 128}}) {
        const std::string v = GetStr(o, {field});
        if (v.empty()) {
          errs->push_back(FieldRequired(field));
        } else if (limit > 0 && v.size() > limit) {
          errs->push_back(FieldInvalid(
              field, "\"\"", "can have at most " + std::to_string(limit) + " characters"));
        }
      }
      if (GetStr(o, {"message"}).size() > 1024) {
        errs->push_back(FieldInvalid("message", "\"\"", "can have at most 1024 characters"));
      }
    };
    reg->Add(
        Make({"",
              "v1",
              "events",
              "Event",
              "",
              true,
              {"ev"},
              {},
              {},
              kAllVerbs,
              {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
               "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
               "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
              false,
              h}));
  }
  {
    // events.k8s.io/v1 Event: the same objects as core/v1 events, with renamed fields.
    auto h = Hooks("");
    h->convert = [](Json& o, JsonAlloc& a, std::string_view from, std::string_view to) -> Status {
      static const std::vector<std::pair<std::string, std::string>> kRenames = {
          {"involvedObject", "regarding"},
          {"message", "note"},
          {"firstTimestamp", "deprecatedFirstTimestamp"},
          {"lastTimestamp", "deprecatedLastTimestamp"},
          {"count", "deprecatedCount"},
          {"source", "deprecatedSource"},
          {"reportingComponent", "reportingController"}};
      const bool to_events = to == "events.k8s.io/v1";
      (void)from;
      for (const auto& [core, ev] : kRenames) {
        const std::string& src = to_events ? core : ev;
        const std::string& dst = to_events ? ev : core;
        Json* v = Member(o, src);
        if (v == nullptr) continue;
        Json copy(*v, a);
        RemoveMember(o, src);
        SetMember(o, dst, std::move(copy), a);
      }
      return Status::OK();
    };
    auto r = Make({"events.k8s.io",
                   "v1",
                   "events",
                   "Event",
                   "",
                   true,
                   {"ev"},
                   {},
                   {},
                   kAllVerbs,
                   {},
                   false,
                   h});
    auto mr = std::const_pointer_cast<ResourceInfo>(r);
    mr->storage = {"", "events"};
    mr->storage_version = "v1";
    mr->selectable_fields = {"involvedObject.kind",
                             "involvedObject.namespace",
                             "involvedObject.name",
                             "involvedObject.uid",
                             "reason",
                             "reportingComponent",
                             "type"};
    reg->Add(r);
  }
  {
    auto h = Hooks("ConfigMap");
    h->validate = [](const Json& o, const Json*, std::string_view, std::vector<StatusCause>* errs) {
      for (const char* field : {"data", "binaryData"}) {
        const Json* d = Member(o, field);
        if (d == nullptr || !d->IsObject()) continue;
        for (auto it = d->MemberBegin(); it != d->MemberEnd(); ++it) {
          const std::string_view k = View(it->name);
          bool ok = !k.empty() && k != "." && k != "..";
          for (char c : k) {
            ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.');
          }
          if (!ok) {
            errs->push_back(FieldInvalid(
                std::string(field) + "[" + std::string(k) + "]", Quoted(k),
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                "'[-._a-zA-Z0-9]+')"));
          }
        }
      }
    };
    reg->Add(Make(
        {"", "v1", "configmaps", "ConfigMap", "", true, {"cm"}, {}, {}, kAllVerbs, {}, false, h}));
  }
  {
    auto h = Hooks("Secret");
    h->defaults = [](Json& o, JsonAlloc& a) { SetDefaultStr(o, "type", "Opaque", a); };
    reg->Add(
        Make({"", "v1", "secrets", "Secret", "", true, {}, {}, {}, kAllVerbs, {"type"}, false, h}));
  }
  {
    auto h = Hooks("Service");
    h->name_rule = NameRule::kDns1035Label;
    h->defaults = [](Json& o, JsonAlloc& a) {
      Json& spec = EnsureObject(o, "spec", a);
      SetDefaultStr(spec, "type", "ClusterIP", a);
      SetDefaultStr(spec, "sessionAffinity", "None", a);
      if (GetStr(spec, {"type"}) != "ExternalName") {
        SetDefaultStr(spec, "internalTrafficPolicy", "Cluster", a);
        if (Member(spec, "ipFamilies") == nullptr) {
          Json f(rapidjson::kArrayType);
          f.PushBack("IPv4", a);
          spec.AddMember("ipFamilies", f, a);
        }
        SetDefaultStr(spec, "ipFamilyPolicy", "SingleStack", a);
        if (Member(spec, "clusterIP") == nullptr) {
          // Deterministic per name: 10.96.x.y.
          uint32_t hsh = 2166136261u;
          for (char c :
               GetStr(o, {"metadata", "namespace"}) + "/" + GetStr(o, {"metadata", "name"})) {
            hsh = (hsh ^ static_cast<uint8_t>(c)) * 16777619u;
          }
          const std::string ip =
              "10.96." + std::to_string((hsh >> 8) % 256) + "." + std::to_string(1 + hsh % 254);
          spec.AddMember("clusterIP", Str(ip, a), a);
        }
        if (Member(spec, "clusterIPs") == nullptr && GetStr(spec, {"clusterIP"}) != "None") {
          Json ips(rapidjson::kArrayType);
          ips.PushBack(Str(GetStr(spec, {"clusterIP"}), a), a);
          spec.AddMember("clusterIPs", ips, a);
        }
      }
      if (Json* ports = Member(spec, "ports"); ports && ports->IsArray()) {
        for (Json& p : ports->GetArray()) {
          if (!p.IsObject()) continue;
          SetDefaultStr(p, "protocol", "TCP", a);
          if (Member(p, "targetPort") == nullptr && Member(p, "port") != nullptr) {
            p.AddMember("targetPort", Json(*Member(p, "port"), a), a);
          }
        }
      }
      Json& st = EnsureObject(o, "status", a);
      SetDefault(st, "loadBalancer", Json(rapidjson::kObjectType), a);
    };
    h->validate = [](const Json& o, const Json*, std::string_view, std::vector<StatusCause>* errs) {
      const std::string type = GetStr(o, {"spec", "type"});
      const Json* ports = Path(o, {"spec", "ports"});
      if (type != "ExternalName" && GetStr(o, {"spec", "clusterIP"}) != "None" &&
          (ports == nullptr || !ports->IsArray() || ports->Empty())) {
        errs->push_back(FieldRequired("spec.ports"));
      }
      if (ports && ports->IsArray()) {
        for (rapidjson::SizeType i = 0; i < ports->Size(); ++i) {
          const auto p = GetInt((*ports)[i], {"port"});
          const std::string f = "spec.ports[" + std::to_string(i) + "].port";
          if (!p) {
            errs->push_back(FieldRequired(f));
          } else if (*p < 1 || *p > 65535) {
            errs->push_back(
                FieldInvalid(f, std::to_string(*p), "must be between 1 and 65535, inclusive"));
          }
        }
      }
    };
    reg->Add(Make({"",
                   "v1",
                   "services",
                   "Service",
                   "",
                   true,
                   {"svc"},
                   {"all"},
                   {"status", "proxy"},
                   kAllVerbs,
                   {},
                   false,
                   h}));
  }
  reg->Add(Make({"",
                 "v1",
                 "endpoints",
                 "Endpoints",
                 "endpoints",
                 true,
                 {"ep"},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("Endpoints")}));
  reg->Add(Make({"",
                 "v1",
                 "serviceaccounts",
                 "ServiceAccount",
                 "",
                 true,
                 {"sa"},
                 {},
                 {"token"},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("ServiceAccount")}));
  {
    auto h = Hooks("PersistentVolumeClaim");
    reg->Add(Make({"",
                   "v1",
                   "persistentvolumeclaims",
                   "PersistentVolumeClaim",
                   "",
                   true,
                   {"pvc"},
                   {},
                   {"status"},
                   kAllVerbs,
                   {},
                   false,
                   h}));
  }
  reg->Add(Make({"",
                 "v1",
                 "persistentvolumes",
                 "PersistentVolume",
                 "",
                 false,
                 {"pv"},
                 {},
                 {"status"},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("PersistentVolume")}));
  reg->Add(Make({"",
                 "v1",
                 "podtemplates",
                 "PodTemplate",
                 "",
                 true,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("PodTemplate")}));
  reg->Add(Make({"",
                 "v1",
                 "replicationcontrollers",
                 "ReplicationController",
                 "",
                 true,
                 {"rc"},
                 {"all"},
                 {"status", "scale"},
                 kAllVerbs,
                 {},
                 true,
                 Hooks("ReplicationController")}));
  reg->Add(Make({"",
                 "v1",
                 "resourcequotas",
                 "ResourceQuota",
                 "",
                 true,
                 {"quota"},
                 {},
                 {"status"},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("ResourceQuota")}));
  reg->Add(Make({"",
                 "v1",
                 "limitranges",
                 "LimitRange",
                 "",
                 true,
                 {"limits"},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("LimitRange")}));
  reg->Add(Make({"",
                 "v1",
                 "bindings",
                 "Binding",
                 "",
                 true,
                 {},
                 {},
                 {},
                 {"create"},
                 {},
                 false,
                 Hooks("Binding")}));

  // ---- apps/v1
  auto workload = [&](const std::string& resource, const std::string& kind,
                      std::vector<std::string> short_names, bool scale) {
    auto h = Hooks(kind);
    if (kind == "Deployment") h->status_keeps_stored_metadata = {"labels"};
    h->defaults = [kind](Json& o, JsonAlloc& a) {
      Json& spec = EnsureObject(o, "spec", a);
      if (kind != "DaemonSet") SetDefault(spec, "replicas", Json(1), a);
      SetDefault(spec, "revisionHistoryLimit", Json(10), a);
      if (kind == "Deployment") {
        SetDefault(spec, "progressDeadlineSeconds", Json(600), a);
        Json& strategy = EnsureObject(spec, "strategy", a);
        SetDefaultStr(strategy, "type", "RollingUpdate", a);
        if (GetStr(strategy, {"type"}) == "RollingUpdate") {
          Json& ru = EnsureObject(strategy, "rollingUpdate", a);
          SetDefaultStr(ru, "maxUnavailable", "25%", a);
          SetDefaultStr(ru, "maxSurge", "25%", a);
        }
      } else if (kind == "StatefulSet") {
        SetDefaultStr(spec, "podManagementPolicy", "OrderedReady", a);
        Json& us = EnsureObject(spec, "updateStrategy", a);
        SetDefaultStr(us, "type", "RollingUpdate", a);
        if (GetStr(us, {"type"}) == "RollingUpdate") {
          Json& ru = EnsureObject(us, "rollingUpdate", a);
          SetDefault(ru, "partition", Json(0), a);
        }
        Json& pr = EnsureObject(spec, "persistentVolumeClaimRetentionPolicy", a);
        SetDefaultStr(pr, "whenDeleted", "Retain", a);
        SetDefaultStr(pr, "whenScaled", "Retain", a);
      } else if (kind == "DaemonSet") {
        Json& us = EnsureObject(spec, "updateStrategy", a);
        SetDefaultStr(us, "type", "RollingUpdate", a);
        if (GetStr(us, {"type"}) == "RollingUpdate") {
          Json& ru = EnsureObject(us, "rollingUpdate", a);
          SetDefault(ru, "maxUnavailable", Json(1), a);
          SetDefault(ru, "maxSurge", Json(0), a);
        }
      }
      DefaultPodTemplate(o, {"spec", "template", "spec"}, a);
      if (kind == "ReplicaSet" || kind == "StatefulSet" || kind == "DaemonSet" ||
          kind == "Deployment") {
        EnsureObject(o, "status", a);
      }
    };
    h->validate = [kind](const Json& o, const Json* old, std::string_view sub,
                         std::vector<StatusCause>* errs) {
      if (sub == "status") return;
      ValidateSelectorMatchesTemplate(o, errs, true);
      ValidateNonNegative(o, {"spec", "replicas"}, "spec.replicas", errs);
      const Json* ps = Path(o, {"spec", "template", "spec"});
      if (ps == nullptr) {
        errs->push_back(FieldRequired("spec.template.spec.containers"));
      } else {
        ValidatePodSpec(*ps, "spec.template.spec", errs, {"Always"});
      }
      ValidateImmutable(o, old, {"spec", "selector"}, "spec.selector", errs);
    };
    std::vector<std::string> subs = {"status"};
    if (scale) subs.push_back("scale");
    reg->Add(Make({"apps",
                   "v1",
                   resource,
                   kind,
                   "",
                   true,
                   std::move(short_names),
                   {"all"},
                   subs,
                   kAllVerbs,
                   {},
                   true,
                   h}));
  };
  workload("deployments", "Deployment", {"deploy"}, true);
  workload("replicasets", "ReplicaSet", {"rs"}, true);
  workload("statefulsets", "StatefulSet", {"sts"}, true);
  workload("daemonsets", "DaemonSet", {"ds"}, false);
  reg->Add(Make({"apps",
                 "v1",
                 "controllerrevisions",
                 "ControllerRevision",
                 "",
                 true,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("ControllerRevision")}));

  // ---- batch/v1
  {
    auto h = Hooks("Job");
    h->prepare_create = [](Json& o, JsonAlloc& a) {
      // Generated selector and labels (manualSelector unset).
      Json& spec = EnsureObject(o, "spec", a);
      if (GetBool(spec, {"manualSelector"}, false)) return;
      const std::string uid = GetStr(o, {"metadata", "uid"});
      const std::string name = GetStr(o, {"metadata", "name"});
      Json sel(rapidjson::kObjectType);
      Json ml(rapidjson::kObjectType);
      ml.AddMember("batch.kubernetes.io/controller-uid", Str(uid, a), a);
      sel.AddMember("matchLabels", ml, a);
      SetMember(spec, "selector", std::move(sel), a);
      Json& tmeta = EnsureObject(EnsureObject(spec, "template", a), "metadata", a);
      Json& labels = EnsureObject(tmeta, "labels", a);
      SetString(labels, "batch.kubernetes.io/controller-uid", uid, a);
      SetString(labels, "batch.kubernetes.io/job-name", name, a);
      SetString(labels, "controller-uid", uid, a);
      SetString(labels, "job-name", name, a);
    };
    h->defaults = [](Json& o, JsonAlloc& a) {
      Json& spec = EnsureObject(o, "spec", a);
      const bool has_c = Member(spec, "completions") != nullptr;
      const bool has_p = Member(spec, "parallelism") != nullptr;
      if (!has_c && !has_p) {
        spec.AddMember("completions", 1, a);
        spec.AddMember("parallelism", 1, a);
      }
      SetDefault(spec, "parallelism", Json(1), a);
      SetDefault(spec, "backoffLimit", Json(6), a);
      SetDefaultStr(spec, "completionMode", "NonIndexed", a);
      SetDefault(spec, "suspend", Json(false), a);
      SetDefault(spec, "manualSelector", Json(false), a);
      SetDefaultStr(spec, "podReplacementPolicy", "TerminatingOrFailed", a);
      DefaultPodTemplate(o, {"spec", "template", "spec"}, a);
      EnsureObject(o, "status", a);
    };
    h->validate = [](const Json& o, const Json* old, std::string_view sub,
                     std::vector<StatusCause>* errs) {
      if (sub == "status") return;
      const Json* ps = Path(o, {"spec", "template", "spec"});
      if (ps == nullptr) {
        errs->push_back(FieldRequired("spec.template.spec.containers"));
      } else {
        ValidatePodSpec(*ps, "spec.template.spec", errs, {"OnFailure", "Never"});
      }
      ValidateNonNegative(o, {"spec", "parallelism"}, "spec.parallelism", errs);
      ValidateNonNegative(o, {"spec", "completions"}, "spec.completions", errs);
      ValidateNonNegative(o, {"spec", "backoffLimit"}, "spec.backoffLimit", errs);
      ValidateSelectorMatchesTemplate(o, errs, false);
      ValidateImmutable(o, old, {"spec", "selector"}, "spec.selector", errs);
      ValidateImmutable(o, old, {"spec", "completions"}, "spec.completions", errs);
    };
    reg->Add(Make({"batch",
                   "v1",
                   "jobs",
                   "Job",
                   "",
                   true,
                   {},
                   {"all"},
                   {"status"},
                   kAllVerbs,
                   {"status.successful"},
                   true,
                   h}));
  }
  {
    auto h = Hooks("CronJob");
    h->defaults = [](Json& o, JsonAlloc& a) {
      Json& spec = EnsureObject(o, "spec", a);
      SetDefaultStr(spec, "concurrencyPolicy", "Allow", a);
      SetDefault(spec, "suspend", Json(false), a);
      SetDefault(spec, "successfulJobsHistoryLimit", Json(3), a);
      SetDefault(spec, "failedJobsHistoryLimit", Json(1), a);
      DefaultPodTemplate(o, {"spec", "jobTemplate", "spec", "template", "spec"}, a);
      EnsureObject(o, "status", a);
    };
    h->validate = [](const Json& o, const Json*, std::string_view sub,
                     std::vector<StatusCause>* errs) {
      if (sub == "status") return;
      const std::string schedule = GetStr(o, {"spec", "schedule"});
      if (schedule.empty()) {
        errs->push_back(FieldRequired("spec.schedule"));
      } else if (schedule[0] != '@') {
        int fields = 0;
        bool in = false;
        for (char c : schedule) {
          if (c != ' ' && !in) ++fields;
          in = c != ' ';
        }
        if (fields != 5) {
          errs->push_back(FieldInvalid("spec.schedule", Quoted(schedule),
                                       "unparseable schedule: expected exactly 5 fields, found " +
                                           std::to_string(fields) + ": [" + schedule + "]"));
        }
      }
      const Json* ps = Path(o, {"spec", "jobTemplate", "spec", "template", "spec"});
      if (ps == nullptr) {
        errs->push_back(FieldRequired("spec.jobTemplate.spec.template.spec.containers"));
      } else {
        ValidatePodSpec(*ps, "spec.jobTemplate.spec.template.spec", errs, {"OnFailure", "Never"});
      }
      if (GetStr(o, {"metadata", "name"}).size() > 52) {
        errs->push_back(FieldInvalid("metadata.name", Quoted(GetStr(o, {"metadata", "name"})),
                                     "must be no more than 52 characters"));
      }
    };
    reg->Add(Make({"batch",
                   "v1",
                   "cronjobs",
                   "CronJob",
                   "",
                   true,
                   {"cj"},
                   {"all"},
                   {"status"},
                   kAllVerbs,
                   {},
                   true,
                   h}));
  }

  // ---- policy/v1
  reg->Add(Make({"policy",
                 "v1",
                 "poddisruptionbudgets",
                 "PodDisruptionBudget",
                 "",
                 true,
                 {"pdb"},
                 {},
                 {"status"},
                 kAllVerbs,
                 {},
                 true,
                 Hooks("PodDisruptionBudget")}));

  // ---- coordination, scheduling
  reg->Add(Make({"coordination.k8s.io",
                 "v1",
                 "leases",
                 "Lease",
                 "",
                 true,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("Lease")}));
  {
    auto h = Hooks("PriorityClass");
    h->defaults = [](Json& o, JsonAlloc& a) {
      SetDefaultStr(o, "preemptionPolicy", "PreemptLowerPriority", a);
    };
    h->validate = [](const Json& o, const Json* old, std::string_view,
                     std::vector<StatusCause>* errs) {
      if (Member(o, "value") == nullptr) errs->push_back(FieldRequired("value"));
      if (old != nullptr) {
        ValidateImmutable(o, old, {"value"}, "value", errs);
      }
    };
    reg->Add(Make({"scheduling.k8s.io",
                   "v1",
                   "priorityclasses",
                   "PriorityClass",
                   "",
                   false,
                   {"pc"},
                   {},
                   {},
                   kAllVerbs,
                   {},
                   false,
                   h}));
  }

  // ---- RBAC
  for (const auto& [res, kind, ns] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"roles", "Role", true},
           {"rolebindings", "RoleBinding", true},
           {"clusterroles", "ClusterRole", false},
           {"clusterrolebindings", "ClusterRoleBinding", false}}) {
    auto h = Hooks(kind);
    h->name_rule = NameRule::kPathSegment;
    if (kind.find("Binding") != std::string::npos) {
      h->validate = [](const Json& o, const Json* old, std::string_view,
                       std::vector<StatusCause>* errs) {
        RequireStr(o, {"roleRef", "kind"}, "roleRef.kind", errs);
        RequireStr(o, {"roleRef", "name"}, "roleRef.name", errs);
        if (old != nullptr) {
          const Json* a = Member(o, "roleRef");
          const Json* b = Member(*old, "roleRef");
          if (a && b && !(*a == *b)) {
            errs->push_back(FieldInvalid("roleRef", Serialize(*a), "cannot change roleRef"));
          }
        }
      };
    }
    reg->Add(Make({"rbac.authorization.k8s.io",
                   "v1",
                   res,
                   kind,
                   "",
                   ns,
                   {},
                   {},
                   {},
                   kAllVerbs,
                   {},
                   false,
                   h}));
  }

  // ---- admission registration
  for (const auto& [res, kind, mutating] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"mutatingwebhookconfigurations", "MutatingWebhookConfiguration", true},
           {"validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false}}) {
    auto h = Hooks(kind);
    const bool is_mutating = mutating;
    h->defaults = [is_mutating](Json& o, JsonAlloc& a) {
      Json* hooks = Member(o, "webhooks");
      if (hooks == nullptr || !hooks->IsArray()) return;
      for (Json& w : hooks->GetArray()) {
        if (!w.IsObject()) continue;
        SetDefaultStr(w, "failurePolicy", "Fail", a);
        SetDefaultStr(w, "matchPolicy", "Equivalent", a);
        SetDefault(w, "namespaceSelector", Json(rapidjson::kObjectType), a);
        SetDefault(w, "objectSelector", Json(rapidjson::kObjectType), a);
        SetDefault(w, "timeoutSeconds", Json(10), a);
        if (is_mutating) SetDefaultStr(w, "reinvocationPolicy", "Never", a);
        if (Json* rules = Member(w, "rules"); rules && rules->IsArray()) {
          for (Json& r : rules->GetArray()) {
            if (r.IsObject()) SetDefaultStr(r, "scope", "*", a);
          }
        }
        if (Json* svc = Path(w, {"clientConfig", "service"}); svc && svc->IsObject()) {
          SetDefault(*svc, "port", Json(443), a);
        }
      }
    };
    h->validate = [](const Json& o, const Json*, std::string_view, std::vector<StatusCause>* errs) {
      const Json* hooks = Member(o, "webhooks");
      if (hooks == nullptr || !hooks->IsArray()) return;
      std::set<std::string> names;
      for (rapidjson::SizeType i = 0; i < hooks->Size(); ++i) {
        const Json& w = (*hooks)[i];
        const std::string p = "webhooks[" + std::to_string(i) + "]";
        const std::string name = GetStr(w, {"name"});
        if (name.empty()) {
          errs->push_back(FieldRequired(p + ".name"));
        } else if (!names.insert(name).second) {
          errs->push_back(FieldDuplicate(p + ".name", Quoted(name)));
        } else if (std::count(name.begin(), name.end(), '.') < 2) {
          errs->push_back(FieldInvalid(p + ".name", Quoted(name),
                                       "should be a domain with at least three segments separated "
                                       "by dots"));
        }
        const std::string se = GetStr(w, {"sideEffects"});
        if (se.empty()) {
          errs->push_back(
              FieldRequired(p + ".sideEffects", "must specify one of None, NoneOnDryRun"));
        } else if (se != "None" && se != "NoneOnDryRun") {
          errs->push_back(
              FieldNotSupported(p + ".sideEffects", Quoted(se), {"None", "NoneOnDryRun"}));
        }
        const Json* arv = Member(w, "admissionReviewVersions");
        if (arv == nullptr || !arv->IsArray() || arv->Empty()) {
          errs->push_back(
              FieldRequired(p + ".admissionReviewVersions", "must specify one of v1, v1beta1"));
        }
        const bool has_url = !GetStr(w, {"clientConfig", "url"}).empty();
        const bool has_svc = Path(w, {"clientConfig", "service"}) != nullptr;
        if (has_url == has_svc) {
          errs->push_back(
              FieldRequired(p + ".clientConfig", "exactly one of url or service is required"));
        }
      }
    };
    reg->Add(Make({"admissionregistration.k8s.io",
                   "v1",
                   res,
                   kind,
                   "",
                   false,
                   {},
                   {"api-extensions"},
                   {},
                   kAllVerbs,
                   {},
                   true,
                   h}));
  }

  // ---- authorization/authentication reviews (create-only, answered without storing)
  for (const auto& [group, res, kind, ns] :
       std::vector<std::tuple<std::string, std::string, std::string, bool>>{
           {"authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false},
           {"authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false},
           {"authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true},
           {"authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false},
           {"authentication.k8s.io", "tokenreviews", "TokenReview", false},
           {"authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", false}}) {
    reg->Add(Make({group, "v1", res, kind, "", ns, {}, {}, {}, {"create"}, {}, false, Hooks("")}));
  }

  // ---- storage, networking, discovery, autoscaling, node (served for clients' informers)
  reg->Add(Make({"storage.k8s.io",
                 "v1",
                 "storageclasses",
                 "StorageClass",
                 "",
                 false,
                 {"sc"},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("StorageClass")}));
  reg->Add(Make({"storage.k8s.io",
                 "v1",
                 "csidrivers",
                 "CSIDriver",
                 "",
                 false,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("")}));
  reg->Add(Make({"storage.k8s.io",
                 "v1",
                 "csinodes",
                 "CSINode",
                 "",
                 false,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("")}));
  reg->Add(Make({"storage.k8s.io",
                 "v1",
                 "csistoragecapacities",
                 "CSIStorageCapacity",
                 "",
                 true,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("")}));
  reg->Add(Make({"storage.k8s.io",
                 "v1",
                 "volumeattachments",
                 "VolumeAttachment",
                 "",
                 false,
                 {},
                 {},
                 {"status"},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("")}));
  reg->Add(Make({"networking.k8s.io",
                 "v1",
                 "networkpolicies",
                 "NetworkPolicy",
                 "",
                 true,
                 {"netpol"},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 true,
                 Hooks("")}));
  reg->Add(Make({"networking.k8s.io",
                 "v1",
                 "ingresses",
                 "Ingress",
                 "",
                 true,
                 {"ing"},
                 {},
                 {"status"},
                 kAllVerbs,
                 {},
                 true,
                 Hooks("")}));
  reg->Add(Make({"discovery.k8s.io",
                 "v1",
                 "endpointslices",
                 "EndpointSlice",
                 "",
                 true,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("")}));
  reg->Add(Make({"node.k8s.io",
                 "v1",
                 "runtimeclasses",
                 "RuntimeClass",
                 "",
                 false,
                 {},
                 {},
                 {},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("")}));
  reg->Add(Make({"autoscaling",
                 "v2",
                 "horizontalpodautoscalers",
                 "HorizontalPodAutoscaler",
                 "",
                 true,
                 {"hpa"},
                 {"all"},
                 {"status"},
                 kAllVerbs,
                 {},
                 false,
                 Hooks("")}));
  // DRA (served at v1 as KAI reads it, and v1beta1 as kubectl 1.32 knows it; same storage).
  for (const auto& [res, kind, ns] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"resourceclaims", "ResourceClaim", true},
           {"resourceclaimtemplates", "ResourceClaimTemplate", true},
           {"deviceclasses", "DeviceClass", false},
           {"resourceslices", "ResourceSlice", false}}) {
    for (const char* v : {"v1", "v1beta1"}) {
      Def d{"resource.k8s.io", v, res, kind, "", ns, {}, {}, {}, kAllVerbs, {}, false, Hooks("")};
      if (res == "resourceclaims") d.subresources = {"status"};
      if (res == "resourceslices") d.selectable = {"spec.nodeName", "spec.driver"};
      auto r = Make(d);
      std::const_pointer_cast<ResourceInfo>(r)->storage_version = "v1";
      reg->Add(r);
    }
  }
}

}  // namespace kai::localkube
