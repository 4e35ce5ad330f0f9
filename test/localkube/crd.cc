#include "test/localkube/crd.h"

#include <algorithm>

#include "api/schema/field_error.h"
#include "api/schema/structural_schema.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/mutable_object.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

StatusCause ToCause(const api::schema::FieldError& e) {
  return StatusCause{std::string(api::schema::FieldErrorCauseType(e.type)), e.field, e.ErrorBody()};
}

// Kubernetes version priority: GA > beta > alpha, higher numbers first, then others by name.
int VersionRank(const std::string& v, int* major, int* minor) {
  *major = 0;
  *minor = 0;
  if (v.size() < 2 || v[0] != 'v' || !std::isdigit(static_cast<unsigned char>(v[1]))) return 0;
  size_t i = 1;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    *major = *major * 10 + (v[i] - '0');
    ++i;
  }
  if (i == v.size()) return 3;
  int kind = 0;
  if (v.compare(i, 4, "beta") == 0) {
    kind = 2;
    i += 4;
  } else if (v.compare(i, 5, "alpha") == 0) {
    kind = 1;
    i += 5;
  } else {
    return 0;
  }
  if (i == v.size()) return 0;
  while (i < v.size()) {
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) return 0;
    *minor = *minor * 10 + (v[i] - '0');
    ++i;
  }
  return kind;
}

bool VersionLess(const std::string& a, const std::string& b) {
  int am, an, bm, bn;
  const int ak = VersionRank(a, &am, &an), bk = VersionRank(b, &bm, &bn);
  if (ak != bk) return ak > bk;
  if (ak == 0) return a < b;
  if (am != bm) return am > bm;
  return an > bn;
}

void DefaultCrd(Json& o, JsonAlloc& a) {
  Json& spec = EnsureObject(o, "spec", a);
  Json& names = EnsureObject(spec, "names", a);
  const std::string kind = GetStr(names, {"kind"});
  if (Member(names, "singular") == nullptr && !kind.empty()) {
    SetString(names, "singular", AsciiToLower(kind), a);
  }
  if (Member(names, "listKind") == nullptr && !kind.empty()) {
    SetString(names, "listKind", kind + "List", a);
  }
  Json& conv = EnsureObject(spec, "conversion", a);
  if (Member(conv, "strategy") == nullptr) SetString(conv, "strategy", "None", a);
}

}  // namespace

void CrdController::RegisterCrdResource(ResourceRegistry* registry) {
  auto r = std::make_shared<ResourceInfo>();
  r->group = "apiextensions.k8s.io";
  r->version = "v1";
  r->resource = "customresourcedefinitions";
  r->kind = "CustomResourceDefinition";
  r->singular = "customresourcedefinition";
  r->list_kind = "CustomResourceDefinitionList";
  r->namespaced = false;
  r->short_names = {"crd", "crds"};
  r->categories = {"api-extensions"};
  r->verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  r->subresources = {"status"};
  r->track_generation = true;
  r->storage = {r->group, r->resource};
  r->storage_version = "v1";
  auto h = std::make_shared<TypeHooks>();
  h->smp_type = "CustomResourceDefinition";
  h->defaults = DefaultCrd;
  h->validate = [](const Json& o, const Json* old, std::string_view sub,
                   std::vector<StatusCause>* errs) {
    if (sub == "status") return;
    auto fe = api::schema::ValidateCustomResourceDefinition(o);
    if (!fe.ok()) {
      errs->push_back({"FieldValueInvalid", "", std::string(fe.status().message())});
      return;
    }
    for (const auto& e : *fe) errs->push_back(ToCause(e));
    if (old != nullptr) {
      for (const char* f : {"group", "scope"}) {
        const std::string now_v = GetStr(o, {"spec", f});
        const std::string old_v = GetStr(*old, {"spec", f});
        if (now_v != old_v) {
          std::string q;
          AppendQuoted(&q, now_v);
          errs->push_back(FieldInvalid(std::string("spec.") + f, q, "field is immutable"));
        }
      }
    }
  };
  r->hooks = h;
  registry->Add(r);
}

CrdController::CrdController(Store* store) : store_(store) {}

void CrdController::Start() {
  store_->AddObserver([this](const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now) {
    if (gr == kCrds) OnChange(gr, old, now);
  });
  // CRDs that exist already (e.g. reloaded state).
  auto list = store_->List(kCrdGvr, "", {});
  if (list.ok()) {
    for (const ObjectPtr& crd : list->items) Apply(crd);
  }
}

void CrdController::OnChange(const GroupResource&, const ObjectPtr& old, const ObjectPtr& now) {
  if (!now) {
    if (!old) return;
    auto doc = Parse(old->json());
    if (!doc.ok()) return;
    Remove(old->name(),
           {GetStr(*doc, {"spec", "group"}), GetStr(*doc, {"spec", "names", "plural"})});
    return;
  }
  Apply(now);
}

void CrdController::Remove(const std::string& crd_name, const GroupResource& storage) {
  store_->registry()->RemoveCrd(crd_name);
  store_->DropTable(storage);
  std::lock_guard l(mu_);
  applied_generation_.erase(crd_name);
}

void CrdController::Apply(const ObjectPtr& crd) {
  auto parsed = Parse(crd->json());
  if (!parsed.ok()) return;
  const JsonDoc& doc = *parsed;
  {
    std::lock_guard l(mu_);
    auto it = applied_generation_.find(crd->name());
    if (it != applied_generation_.end() && it->second == static_cast<uint64_t>(crd->generation()) &&
        GetStr(doc, {"status", "conditions"}).empty()) {
      // Registered already; only the status may need writing (below).
    }
  }
  const std::string group = GetStr(doc, {"spec", "group"});
  const std::string plural = GetStr(doc, {"spec", "names", "plural"});
  const std::string kind = GetStr(doc, {"spec", "names", "kind"});
  const Json* names = Path(doc, {"spec", "names"});
  const Json* versions = Path(doc, {"spec", "versions"});
  if (names == nullptr || versions == nullptr || !versions->IsArray()) return;
  const bool namespaced = GetStr(doc, {"spec", "scope"}) != "Cluster";
  std::string storage_version;
  std::vector<std::string> served;
  for (const Json& v : versions->GetArray()) {
    if (GetBool(v, {"storage"}, false)) storage_version = GetStr(v, {"name"});
    if (GetBool(v, {"served"}, false)) served.push_back(GetStr(v, {"name"}));
  }
  if (storage_version.empty()) return;
  std::sort(served.begin(), served.end(), VersionLess);
  auto list_of = [](const Json* v) {
    std::vector<std::string> out;
    if (v != nullptr && v->IsArray()) {
      for (const Json& x : v->GetArray()) out.emplace_back(View(x));
    }
    return out;
  };
  // Unregister versions no longer served, then (re-)register served ones in priority order.
  store_->registry()->RemoveCrd(crd->name());
  for (const std::string& vname : served) {
    const Json* v = nullptr;
    for (const Json& x : versions->GetArray()) {
      if (GetStr(x, {"name"}) == vname) v = &x;
    }
    if (v == nullptr) continue;
    auto r = std::make_shared<ResourceInfo>();
    r->group = group;
    r->version = vname;
    r->resource = plural;
    r->kind = kind;
    r->singular =
        GetStr(*names, {"singular"}).empty() ? AsciiToLower(kind) : GetStr(*names, {"singular"});
    r->list_kind =
        GetStr(*names, {"listKind"}).empty() ? kind + "List" : GetStr(*names, {"listKind"});
    r->namespaced = namespaced;
    r->short_names = list_of(Member(*names, "shortNames"));
    r->categories = list_of(Member(*names, "categories"));
    r->verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    r->track_generation = true;
    r->storage = {group, plural};
    r->storage_version = storage_version;
    r->crd_name = crd->name();
    if (Path(*v, {"subresources", "status"}) != nullptr) r->subresources.push_back("status");
    if (const Json* scale = Path(*v, {"subresources", "scale"}); scale != nullptr) {
      r->subresources.push_back("scale");
      auto strip = [](std::string p) { return (!p.empty() && p[0] == '.') ? p.substr(1) : p; };
      r->scale_spec_replicas_path = strip(GetStr(*scale, {"specReplicasPath"}));
      r->scale_status_replicas_path = strip(GetStr(*scale, {"statusReplicasPath"}));
      r->scale_label_selector_path = strip(GetStr(*scale, {"labelSelectorPath"}));
    }
    if (const Json* sf = Member(*v, "selectableFields"); sf != nullptr && sf->IsArray()) {
      for (const Json& f : sf->GetArray()) {
        std::string p = GetStr(f, {"jsonPath"});
        if (!p.empty() && p[0] == '.') p = p.substr(1);
        if (!p.empty()) r->selectable_fields.push_back(p);
      }
    }
    if (const Json* cols = Member(*v, "additionalPrinterColumns");
        cols != nullptr && cols->IsArray()) {
      for (const Json& c : cols->GetArray()) {
        PrinterColumn pc;
        pc.name = GetStr(c, {"name"});
        pc.type = GetStr(c, {"type"});
        pc.format = GetStr(c, {"format"});
        pc.description = GetStr(c, {"description"});
        pc.json_path = GetStr(c, {"jsonPath"});
        pc.priority = static_cast<int>(GetInt(c, {"priority"}).value_or(0));
        r->printer_columns.push_back(std::move(pc));
      }
    }
    auto hooks = std::make_shared<TypeHooks>();
    if (const Json* schema = Path(*v, {"schema", "openAPIV3Schema"}); schema != nullptr) {
      auto compiled = api::schema::StructuralSchema::Compile(*schema);
      if (compiled.ok()) {
        std::shared_ptr<const api::schema::StructuralSchema> engine = *compiled;
        hooks->openapi_schema = std::make_shared<const JsonDoc>(Clone(*schema));
        hooks->schema = [engine](Json& obj, JsonAlloc& a, std::vector<std::string>* unknown,
                                 std::vector<StatusCause>* errs) {
          api::schema::FieldErrorList fe;
          Status s = engine->Admit(&obj, a, &fe, unknown);
          if (!s.ok()) {
            errs->push_back({"FieldValueInvalid", "metadata", std::string(s.message())});
            return;
          }
          for (const auto& e : fe) errs->push_back(ToCause(e));
        };
      }
    }
    r->hooks = hooks;
    store_->registry()->Add(r);
    if (vname == storage_version) store_->EnsureTable(r);
  }
  // The storage version must be registered for the table even when it is not served.
  if (std::find(served.begin(), served.end(), storage_version) == served.end()) {
    auto r = std::make_shared<ResourceInfo>();
    r->group = group;
    r->version = storage_version;
    r->resource = plural;
    r->kind = kind;
    r->storage = {group, plural};
    r->storage_version = storage_version;
    r->crd_name = crd->name();
    store_->EnsureTable(r);
  }
  {
    std::lock_guard l(mu_);
    applied_generation_[crd->name()] = static_cast<uint64_t>(crd->generation());
  }
  // Status: names accepted and established (written once per change of names/versions).
  if (crd->deleting()) return;
  WriteOptions wo;
  wo.field_manager = "kube-apiserver";
  wo.subresource = "status";
  store_
      ->Mutate(
          kCrdGvr, "", crd->name(),
          [&](MutableObject& m) -> Status {
            JsonAlloc& a = m.alloc();
            JsonDoc& d = m.doc();
            Json& status = EnsureObject(d, "status", a);
            const Json* spec_names = Path(d, {"spec", "names"});
            if (spec_names != nullptr) {
              SetMember(status, "acceptedNames", Json(*spec_names, a), a);
            }
            Json stored(rapidjson::kArrayType);
            std::vector<std::string> prev = list_of(Member(status, "storedVersions"));
            if (std::find(prev.begin(), prev.end(), storage_version) == prev.end()) {
              prev.push_back(storage_version);
            }
            for (const auto& s : prev) stored.PushBack(Str(s, a), a);
            SetMember(status, "storedVersions", std::move(stored), a);
            Json* conds = Member(status, "conditions");
            std::string now = FormatRfc3339(store_->clock()->Now());
            auto set_cond = [&](const char* type, const char* reason, const char* message) {
              if (conds == nullptr || !conds->IsArray()) {
                SetMember(status, "conditions", Json(rapidjson::kArrayType), a);
                conds = Member(status, "conditions");
              }
              for (Json& c : conds->GetArray()) {
                if (GetStr(c, {"type"}) == type) {
                  if (GetStr(c, {"status"}) != "True") {
                    SetString(c, "status", "True", a);
                    SetString(c, "lastTransitionTime", now, a);
                  }
                  SetString(c, "reason", reason, a);
                  SetString(c, "message", message, a);
                  return;
                }
              }
              Json c(rapidjson::kObjectType);
              c.AddMember("type", Str(type, a), a);
              c.AddMember("status", "True", a);
              c.AddMember("lastTransitionTime", Str(now, a), a);
              c.AddMember("reason", Str(reason, a), a);
              c.AddMember("message", Str(message, a), a);
              conds->PushBack(c, a);
            };
            set_cond("NamesAccepted", "NoConflicts", "no conflicts found");
            set_cond("Established", "InitialNamesAccepted", "the initial names have been accepted");
            return Status::OK();
          },
          wo)
      .status()
      .IgnoreError();
}

}  // namespace kai::localkube
