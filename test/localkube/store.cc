// The store's tables, creates, reads and updates; deletes, bindings and watches are in
// store_delete.cc, store_binding.cc and store_watch.cc.
#include "test/localkube/store.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "kube/base/base64.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/admission.h"
#include "test/localkube/builtin_schema.h"
#include "test/localkube/errors.h"
#include "test/localkube/gc.h"
#include "test/localkube/json.h"
#include "test/localkube/managed_fields.h"
#include "test/localkube/mutable_object.h"
#include "test/localkube/object_builder.h"
#include "test/localkube/patch.h"
#include "test/localkube/store_internal.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

Status StatusFromCauses(const ResourceInfo& r, std::string_view name,
                        std::vector<StatusCause> errs) {
  return kube::NewInvalid(QualifiedKind(r), name, std::move(errs));
}

// What admission webhooks see of a create (`old_object` null) or an update by `opts`.
AdmissionAttributes WriteAttributes(const ResourceInfo* resource, std::string_view ns,
                                    std::string_view name, const Json* old_object,
                                    const WriteOptions& opts) {
  AdmissionAttributes attrs;
  attrs.resource = resource;
  attrs.operation = old_object == nullptr ? "CREATE" : "UPDATE";
  attrs.subresource = opts.subresource;
  attrs.ns = std::string(ns);
  attrs.name = std::string(name);
  attrs.old_object = old_object;
  attrs.user = &opts.user;
  attrs.dry_run = opts.dry_run;
  attrs.options_kind = old_object == nullptr ? "CreateOptions" : "UpdateOptions";
  attrs.field_manager = opts.field_manager;
  attrs.warnings = opts.warnings;
  return attrs;
}

// Keys of fields clients may not change through the main resource / status subresource.
void CopyMember(const Json& from, Json& to, std::string_view name, JsonAlloc& a) {
  const Json* v = Member(from, name);
  if (v == nullptr) {
    RemoveMember(to, name);
  } else {
    Json copy(*v, a);
    SetMember(to, name, std::move(copy), a);
  }
}

// True when obj and old differ outside metadata (and status when the type has a status
// subresource): the change that bumps metadata.generation.
bool SpecChanged(const ResourceInfo& r, const Json& old_obj, const Json& obj) {
  auto count = [&](const Json& o) {
    size_t n = 0;
    for (auto it = o.MemberBegin(); it != o.MemberEnd(); ++it) {
      const std::string_view k = View(it->name);
      if (k == "metadata" || k == "apiVersion" || k == "kind" ||
          (r.has_status() && k == "status")) {
        continue;
      }
      ++n;
    }
    return n;
  };
  if (count(old_obj) != count(obj)) return true;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (k == "metadata" || k == "apiVersion" || k == "kind" || (r.has_status() && k == "status")) {
      continue;
    }
    const Json* o = Member(old_obj, k);
    if (o == nullptr || !(*o == it->value)) return true;
  }
  return false;
}

// Generic server-managed metadata on create.
void InitMetadata(Json& obj, JsonAlloc& a, const ResourceInfo& r, std::string_view ns,
                  Random* random, WallTime now) {
  Json& meta = EnsureObject(obj, "metadata", a);
  SetString(meta, "uid", random->Uuid(), a);
  SetString(meta, "creationTimestamp", FormatRfc3339(now), a);
  RemoveMember(meta, "resourceVersion");
  RemoveMember(meta, "deletionTimestamp");
  RemoveMember(meta, "deletionGracePeriodSeconds");
  RemoveMember(meta, "selfLink");
  if (r.track_generation) {
    SetInt(meta, "generation", 1, a);
  } else {
    RemoveMember(meta, "generation");
  }
  if (r.namespaced) {
    SetString(meta, "namespace", ns, a);
  } else {
    RemoveMember(meta, "namespace");
  }
  // Empty maps and lists are dropped like omitempty does.
  for (std::string_view k : {"labels", "annotations", "finalizers", "ownerReferences"}) {
    const Json* v = Member(meta, k);
    if (v != nullptr &&
        ((v->IsObject() && v->MemberCount() == 0) || (v->IsArray() && v->Empty()) || v->IsNull())) {
      RemoveMember(meta, k);
    }
  }
}

// etcd3's store refuses a create whose resourceVersion parses as a non-zero version (a copy of
// a stored object, most likely); the error is a plain one, so the API server answers 500 with
// no reason. An unparsable version ("-1", "abc") is ignored and dropped, as there.
Status CheckNoResourceVersionOnCreate(const Json& meta) {
  uint64_t version = 0;
  if (!ParseDecimalUint64(GetStr(meta, {"resourceVersion"}), &version) || version == 0) {
    return Status::OK();
  }
  return kube::NewInternalError("resourceVersion should not be set on objects to be created");
}

}  // namespace

Status CheckPreconditions(std::string_view what, std::string_view name, std::string_view uid,
                          std::string_view resource_version, const Object& old) {
  if (!uid.empty() && uid != old.uid()) {
    return kube::NewPreconditionFailed(what, name, "UID", uid, old.uid());
  }
  const std::string rv = std::to_string(old.resource_version());
  if (!resource_version.empty() && resource_version != rv) {
    return kube::NewPreconditionFailed(what, name, "ResourceVersion", resource_version, rv);
  }
  return Status::OK();
}

std::string_view EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
    case EventType::kBookmark:
      return "BOOKMARK";
    case EventType::kError:
      return "ERROR";
  }
  return "ERROR";
}

std::string WatchFrame(EventType type, std::string_view object_json) {
  std::string f;
  f.reserve(object_json.size() + 32);
  f += "{\"type\":\"";
  f += EventTypeName(type);
  f += "\",\"object\":";
  f += object_json;
  f += "}\n";
  return f;
}

StatusOr<ResourcePtr> StorageResource(const ResourcePtr& r, const ResourceRegistry& registry) {
  if (r->version == r->storage_version && r->gr() == r->storage) return r;
  ResourcePtr storage = registry.Find(r->storage.group, r->storage_version, r->storage.resource);
  if (!storage) return kube::NewInternalError("no storage version for " + ResourceWhat(*r));
  return storage;
}

ObjectPtr WithResourceVersion(const ObjectPtr& obj, uint64_t rv) {
  return ObjectBuilder::WithRv(obj, rv);
}

// ---------------------------------------------------------------------------------------------

Store::Store(ResourceRegistry* registry, Clock* clock, Random* random, StoreOptions options)
    : registry_(registry), clock_(clock), random_(random), options_(std::move(options)) {
  for (const ResourcePtr& r : registry_->All()) EnsureTable(r);
  gc_ = std::make_unique<GarbageCollector>(this);
}

Store::~Store() { Shutdown(); }

void Store::Start() { gc_->Start(); }

void Store::AddObserver(ChangeObserver observer) { gc_->AddObserver(std::move(observer)); }

void Store::WaitForGarbageCollector() { gc_->WaitIdle(); }

void Store::Shutdown() {
  if (gc_) gc_->Stop();
  DropWatches();
}

void Store::EnsureTable(const ResourcePtr& r) {
  std::lock_guard l(mu_);
  auto& t = tables_[r->storage];
  if (!t) {
    t = std::make_unique<Table>();
    t->compacted_rv = rv_;
  }
  if (!t->info || (r->version == r->storage_version && r->gr() == r->storage)) t->info = r;
}

void Store::DropTable(const GroupResource& storage) {
  std::lock_guard l(mu_);
  auto it = tables_.find(storage);
  if (it == tables_.end()) return;
  it->second->dropped = true;
  it->second->cv.notify_all();
  for (const auto& [key, obj] : it->second->objects) {
    by_uid_.erase(obj->uid());
    // Objects that go with their table are gone for persistence too.
    if (sink_ != nullptr) sink_->Committed(storage, key, rv_, nullptr);
  }
  // Watchers still hold a raw pointer until they notice `dropped`; keep the table alive by
  // parking it (tables are few; CRD deletions are rare).
  static std::vector<std::unique_ptr<Table>>* const graveyard =
      new std::vector<std::unique_ptr<Table>>();
  graveyard->push_back(std::move(it->second));
  tables_.erase(it);
}

Store::Table* Store::FindTable(const GroupResource& gr) const {
  auto it = tables_.find(gr);
  return it == tables_.end() ? nullptr : it->second.get();
}

StatusOr<ResourcePtr> Store::Resolve(const GroupVersionResource& gvr) const {
  ResourcePtr r = registry_->Find(gvr);
  if (!r) {
    return kube::NewNotFound("the server could not find the requested resource", "").WithPrefix("");
  }
  return r;
}

uint64_t Store::CurrentResourceVersion() const {
  std::lock_guard l(mu_);
  return rv_;
}

size_t Store::Count(const GroupResource& storage) const {
  std::lock_guard l(mu_);
  Table* t = FindTable(storage);
  return t ? t->objects.size() : 0;
}

size_t Store::ApproximateBytes() const {
  std::lock_guard l(mu_);
  size_t n = 0;
  for (const auto& [gr, t] : tables_) {
    for (const auto& [k, o] : t->objects) n += o->ByteSize() + k.capacity() + 64;
  }
  return n;
}

ObjectPtr Store::FindByUid(std::string_view uid, GroupResource* storage) const {
  std::lock_guard l(mu_);
  auto it = by_uid_.find(std::string(uid));
  if (it == by_uid_.end()) return nullptr;
  Table* t = FindTable(it->second.storage);
  if (t == nullptr) return nullptr;
  auto oit = t->objects.find(it->second.key);
  if (oit == t->objects.end()) return nullptr;
  if (storage) *storage = it->second.storage;
  return oit->second;
}

std::vector<std::pair<GroupResource, ObjectPtr>> Store::Dependents(
    std::string_view owner_uid) const {
  std::lock_guard l(mu_);
  std::vector<std::pair<GroupResource, ObjectPtr>> out;
  auto deps = dependents_.find(std::string(owner_uid));
  if (deps == dependents_.end()) return out;
  for (const auto& [gr, key] : deps->second) {
    Table* t = FindTable(gr);
    if (t == nullptr) continue;
    auto oit = t->objects.find(key);
    if (oit != t->objects.end()) out.emplace_back(gr, oit->second);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second->namespace_(), a.second->name()) <
           std::tie(b.first, b.second->namespace_(), b.second->name());
  });
  return out;
}

void Store::IndexLocked(const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now) {
  // Most updates keep the uid and the owners: nothing to re-index (and re-indexing would scan
  // every sibling under the same owner).
  if (old && now && old->uid() == now->uid() &&
      old->owner_references().size() == now->owner_references().size() &&
      std::equal(old->owner_references().begin(), old->owner_references().end(),
                 now->owner_references().begin(),
                 [](const OwnerReference& a, const OwnerReference& b) { return a.uid == b.uid; })) {
    return;
  }
  if (old) {
    if (!now || now->uid() != old->uid()) by_uid_.erase(old->uid());
    for (const OwnerReference& o : old->owner_references()) {
      auto deps = dependents_.find(o.uid);
      if (deps == dependents_.end()) continue;
      deps->second.erase({gr, old->Key()});
      if (deps->second.empty()) dependents_.erase(deps);
    }
  }
  if (now) {
    by_uid_[now->uid()] = ObjectLocation{gr, now->Key()};
    for (const OwnerReference& o : now->owner_references()) {
      dependents_[o.uid].insert({gr, now->Key()});
    }
  }
}

void Store::AppendEventLocked(Table* t, EventType type, const ObjectPtr& obj,
                              const ObjectPtr& prev) {
  auto ev = std::make_shared<StoredEvent>();
  ev->type = type;
  ev->rv = obj->resource_version();
  ev->obj = obj;
  ev->prev = prev;
  if (t->watchers > 0) {
    ev->frame = std::make_shared<const std::string>(WatchFrame(type, obj->json()));
  }
  t->ring.push_back(std::move(ev));
  while (t->ring.size() > std::max<size_t>(options_.watch_history, 1)) {
    t->compacted_rv = t->ring.front()->rv;
    t->ring.pop_front();
    ++t->first_seq;
  }
  t->cv.notify_all();
  if (rv_waiters_ > 0) rv_cv_.notify_all();
}

Status Store::WaitForResourceVersionLocked(std::unique_lock<std::mutex>& l, uint64_t want) const {
  if (want <= rv_) return Status::OK();
  const MonoTime deadline = clock_->NowMonotonic() + std::chrono::seconds(3);
  ++rv_waiters_;
  while (want > rv_ && !clock_->WaitUntil(rv_cv_, l, deadline)) {
  }
  --rv_waiters_;
  if (want <= rv_) return Status::OK();
  // storage.NewTooLargeResourceVersionError: a Timeout with a cause, retry after 1 s.
  Status s = kube::NewTimeout("Timeout: Too large resource version: " + std::to_string(want) +
                              ", current: " + std::to_string(rv_));
  s.AddCause({"ResourceVersionTooLarge", "", "Too large resource version"});
  s.SetRetryAfterSeconds(1);
  return s;
}

StatusOr<ObjectPtr> Store::CommitLocked(Table* t, const std::string& key,
                                        const ObjectPtr& expected_old, Commit&& c) {
  auto it = t->objects.find(key);
  const ObjectPtr current = it == t->objects.end() ? nullptr : it->second;
  const ResourceInfo& r = *t->info;
  if (c.kind == Commit::Kind::kCreate) {
    if (current) {
      return kube::NewAlreadyExists(ResourceWhat(r), current->name());
    }
    if (r.namespaced) {
      Table* nst = FindTable(kNamespaces);
      const ObjectPtr ns_obj = [&]() -> ObjectPtr {
        if (nst == nullptr) return nullptr;
        auto nit = nst->objects.find(c.ns);
        return nit == nst->objects.end() ? nullptr : nit->second;
      }();
      if (!ns_obj) return kube::NewNotFound("namespaces", c.ns);
      if (ns_obj->deleting()) {
        Status s = kube::NewForbidden(c.pending.object->name().empty()
                                          ? "unable to create new content in namespace " + c.ns +
                                                " because it is being terminated"
                                          : ResourceWhat(r) + " \"" + c.pending.object->name() +
                                                "\" is forbidden: unable to create new content in "
                                                "namespace " +
                                                c.ns + " because it is being terminated");
        s.AddCause({"NamespaceTerminating", "metadata.namespace", "namespace is being terminated"});
        return s;
      }
    }
  } else {
    if (current != expected_old) {
      return ErrStaleConflict(ResourceWhat(r), expected_old ? expected_old->name() : key);
    }
  }
  const uint64_t rv = ++rv_;
  if (c.kind == Commit::Kind::kRemove) {
    ObjectPtr gone = WithResourceVersion(current, rv);
    t->objects.erase(it);
    IndexLocked(t->info->storage, current, nullptr);
    AppendEventLocked(t, EventType::kDeleted, gone, current);
    if (sink_ != nullptr) sink_->Committed(t->info->storage, key, rv, nullptr);
    return gone;
  }
  ObjectPtr now = ObjectBuilder::Seal(std::move(c.pending), rv);
  if (current) {
    it->second = now;
  } else {
    t->objects.emplace(key, now);
  }
  IndexLocked(t->info->storage, current, now);
  AppendEventLocked(t, current ? EventType::kModified : EventType::kAdded, now, current);
  if (sink_ != nullptr) sink_->Committed(t->info->storage, key, rv, now);
  return now;
}

StatusOr<ObjectPtr> Store::CommitToTable(const ResourceInfo& r, const GroupResource& storage,
                                         std::string_view name, const std::string& key,
                                         const ObjectPtr& expected_old, Commit&& c) {
  std::lock_guard l(mu_);
  Table* t = FindTable(storage);
  if (t == nullptr) return kube::NewNotFound(ResourceWhat(r), name);
  return CommitLocked(t, key, expected_old, std::move(c));
}

void Store::NotifyGc(const ObjectPtr& old, const ObjectPtr& now, const GroupResource& gr) {
  if (gc_) gc_->Observe(gr, old, now);
}

// ---------------------------------------------------------------------------------------------
// Decoding.

namespace {

Status DecodeObject(const ResourceInfo& r, std::string_view json, JsonDoc* doc) {
  Status s = api::ParseJson(json, doc, kMaxRequestJsonDepth);
  if (!s.ok()) {
    return kube::NewBadRequest("the object provided is unrecognized (must be of type " + r.kind +
                               "): " + std::string(s.message()));
  }
  if (!doc->IsObject()) {
    return kube::NewBadRequest("the object provided is unrecognized (must be of type " + r.kind +
                               "): couldn't get version/kind; json parse error: cannot unmarshal " +
                               "into Go value of type struct");
  }
  JsonAlloc& a = doc->GetAllocator();
  const std::string api_version = GetStr(*doc, {"apiVersion"});
  const std::string kind = GetStr(*doc, {"kind"});
  if (!api_version.empty() && api_version != r.api_version()) {
    return kube::NewBadRequest("the API version in the data (" + api_version +
                               ") does not match the expected API version (" + r.api_version() +
                               ")");
  }
  if (!kind.empty() && kind != r.kind) {
    return kube::NewBadRequest("the kind in the data (" + kind +
                               ") does not match the expected kind (" + r.kind + ")");
  }
  if (const Json* m = Member(*doc, "metadata"); m != nullptr && !m->IsObject() && !m->IsNull()) {
    return kube::NewBadRequest("the object provided is unrecognized (must be of type " + r.kind +
                               "): metadata must be an object");
  }
  // apiVersion and kind first, as the real server serializes them.
  JsonDoc out;
  out.SetObject();
  JsonAlloc& oa = out.GetAllocator();
  out.AddMember("apiVersion", Str(r.api_version(), oa), oa);
  out.AddMember("kind", Str(r.kind, oa), oa);
  for (auto it = doc->MemberBegin(); it != doc->MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (k == "apiVersion" || k == "kind") continue;
    out.AddMember(Json(it->name, oa), Json(it->value, oa), oa);
  }
  (void)a;
  doc->Swap(out);
  return Status::OK();
}

// Converts a decoded object from the request's version to the storage version.
Status ToStorage(const ResourcePtr& r, Json& obj, JsonAlloc& a, const ResourceRegistry& reg) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr storage, StorageResource(r, reg));
  if (storage == r) return Status::OK();
  if (r->hooks && r->hooks->convert) {
    KAI_RETURN_IF_ERROR(r->hooks->convert(obj, a, r->api_version(), storage->api_version()));
  }
  SetString(obj, "apiVersion", storage->api_version(), a);
  SetString(obj, "kind", storage->kind, a);
  return Status::OK();
}

}  // namespace

StatusOr<std::string> Store::ConvertToVersion(const ObjectPtr& obj,
                                              const GroupVersionResource& gvr) const {
  ResourcePtr r = registry_->Find(gvr);
  if (!r || (r->version == r->storage_version && r->gr() == r->storage)) return obj->json();
  KAI_ASSIGN_OR_RETURN(JsonDoc doc, Parse(obj->json()));
  ResourcePtr storage = registry_->Find(r->storage.group, r->storage_version, r->storage.resource);
  if (r->hooks && r->hooks->convert && storage) {
    KAI_RETURN_IF_ERROR(
        r->hooks->convert(doc, doc.GetAllocator(), storage->api_version(), r->api_version()));
  }
  JsonAlloc& a = doc.GetAllocator();
  SetString(doc, "apiVersion", r->api_version(), a);
  SetString(doc, "kind", r->kind, a);
  return ObjectBuilder::Rebuild(doc, {}, obj->resource_version())->json();
}

// ---------------------------------------------------------------------------------------------
// Validation / admission pipeline shared by create and update.

struct Store::WriteContext {
  const ResourceInfo* r;
  ResourcePtr storage;
};

namespace {

Status RunSchema(const ResourceInfo& r, Json& obj, JsonAlloc& a, const WriteOptions& opts,
                 std::vector<StatusCause>* errs) {
  std::vector<std::string> unknown;
  if (!r.hooks || !r.hooks->schema) {
    // Built-in kinds: fields their Go types lack are dropped and reported (skipped for trusted
    // in-process writers that ask for fieldValidation=Ignore).
    if (opts.field_validation == "Ignore" || !r.crd_name.empty()) return Status::OK();
    PruneBuiltinUnknownFields(r.api_version(), r.kind, obj, &unknown);
  } else {
    r.hooks->schema(obj, a, &unknown, errs);
  }
  if (!unknown.empty()) {
    if (opts.field_validation == "Strict") {
      std::string msg = "strict decoding error: ";
      for (size_t i = 0; i < unknown.size(); ++i) {
        if (i > 0) msg += ", ";
        msg += "unknown field \"" + unknown[i] + "\"";
      }
      return kube::NewBadRequest(msg);
    }
    if (opts.field_validation == "Warn" && opts.warnings != nullptr) {
      for (const auto& u : unknown) opts.warnings->push_back("unknown field \"" + u + "\"");
    }
  }
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Create.

StatusOr<ObjectPtr> Store::Create(const GroupVersionResource& gvr, std::string_view ns,
                                  std::string_view json, const WriteOptions& opts) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  MutableObject obj;
  KAI_RETURN_IF_ERROR(DecodeObject(*r, json, &obj.doc()));
  return CreateImpl(r, ns, obj, opts);
}

StatusOr<ObjectPtr> Store::CreateImpl(const ResourcePtr& r, std::string_view ns_in,
                                      MutableObject& obj, const WriteOptions& opts) {
  JsonAlloc& a = obj.alloc();
  Json& doc = obj.doc();
  std::string ns(ns_in);
  const std::string body_ns = obj.namespace_();
  if (r->namespaced) {
    if (ns.empty()) ns = body_ns;
    if (!body_ns.empty() && body_ns != ns) {
      return kube::NewBadRequest(
          "the namespace of the provided object does not match the namespace "
          "sent on the request");
    }
    if (ns.empty()) {
      return kube::NewBadRequest("an empty namespace may not be set during creation");
    }
  }
  KAI_RETURN_IF_ERROR(CheckNoResourceVersionOnCreate(obj.metadata()));
  const WallTime now = clock_->Now();
  InitMetadata(doc, a, *r, ns, random_, now);
  if (r->has_status() && !(r->hooks && r->hooks->keep_status_on_create)) {
    RemoveMember(doc, "status");
  }
  if (r->hooks && r->hooks->prepare_create) r->hooks->prepare_create(doc, a);
  KAI_RETURN_IF_ERROR(ToStorage(r, doc, a, *registry_));
  KAI_ASSIGN_OR_RETURN(ResourcePtr storage, StorageResource(r, *registry_));
  std::vector<StatusCause> errs;
  KAI_RETURN_IF_ERROR(RunSchema(*storage, doc, a, opts, &errs));
  if (storage->hooks && storage->hooks->defaults) storage->hooks->defaults(doc, a);

  const std::string generate_name = GetStr(doc, {"metadata", "generateName"});
  const bool generated = obj.name().empty() && !generate_name.empty();

  // The Priority admission plugin: resolve priorityClassName (or the global default class).
  if (storage->storage == GroupResource{"", "pods"}) {
    Json& spec = EnsureObject(doc, "spec", a);
    std::string pc_name = GetStr(spec, {"priorityClassName"});
    const GroupVersionResource pcs{"scheduling.k8s.io", "v1", "priorityclasses"};
    ObjectPtr pc;
    if (!pc_name.empty()) {
      auto got = Get(pcs, "", pc_name);
      if (!got.ok()) {
        return kube::NewForbidden("pods \"" + (obj.name().empty() ? generate_name : obj.name()) +
                                  "\" is forbidden: no PriorityClass with name " + pc_name +
                                  " was found");
      }
      pc = *got;
    } else {
      auto all = List(pcs, "", {});
      if (all.ok()) {
        for (const ObjectPtr& c : all->items) {
          auto cd = Parse(c->json());
          if (cd.ok() && GetBool(*cd, {"globalDefault"}, false)) pc = c;
        }
      }
    }
    if (pc) {
      auto cd = Parse(pc->json());
      if (cd.ok()) {
        const int64_t value = GetInt(*cd, {"value"}).value_or(0);
        if (auto want = GetInt(spec, {"priority"}); want && *want != value && !pc_name.empty()) {
          return kube::NewForbidden(
              "pods \"" + obj.name() + "\" is forbidden: the integer value of priority (" +
              std::to_string(*want) +
              ") must not be provided in pod spec; priority admission controller "
              "computed " +
              std::to_string(value) + " from the given PriorityClass name");
        }
        SetString(spec, "priorityClassName", pc->name(), a);
        SetInt(spec, "priority", value, a);
        const std::string policy = GetStr(*cd, {"preemptionPolicy"});
        SetString(spec, "preemptionPolicy", policy.empty() ? "PreemptLowerPriority" : policy, a);
      }
    } else {
      if (Member(spec, "priority") == nullptr) SetInt(spec, "priority", 0, a);
      if (Member(spec, "preemptionPolicy") == nullptr) {
        SetString(spec, "preemptionPolicy", "PreemptLowerPriority", a);
      }
    }
  }

  if (admission_ != nullptr && admission_->Enabled()) {
    KAI_RETURN_IF_ERROR(admission_->Mutate(
        WriteAttributes(storage.get(), ns, obj.name(), nullptr, opts), &obj.doc()));
  }

  for (int attempt = 0; attempt < 8; ++attempt) {
    if (generated) {
      static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
      std::string suffix;
      for (int i = 0; i < 5; ++i) suffix += kAlphabet[random_->Uniform(sizeof(kAlphabet) - 1)];
      std::string base = generate_name;
      if (base.size() > 58) base.resize(58);
      SetString(EnsureObject(doc, "metadata", a), "name", base + suffix, a);
    }
    const std::string name = obj.name();
    errs.clear();
    KAI_RETURN_IF_ERROR(RunSchema(*storage, doc, a, opts, &errs));
    ValidateObjectMeta(*storage, doc, nullptr, &errs);
    if (storage->hooks && storage->hooks->validate)
      storage->hooks->validate(doc, nullptr, "", &errs);
    if (!errs.empty()) return StatusFromCauses(*storage, name.empty() ? generate_name : name, errs);
    if (admission_ != nullptr && admission_->Enabled()) {
      KAI_RETURN_IF_ERROR(
          admission_->Validate(WriteAttributes(storage.get(), ns, name, nullptr, opts), &doc));
    }
    const std::string manager =
        opts.field_manager.empty() ? ManagerFromUserAgent(opts.user_agent) : opts.field_manager;
    if (Member(EnsureObject(doc, "metadata", a), "managedFields") == nullptr) {
      RecordUpdate(*storage, nullptr, doc, a, manager, "", now);
    }
    PendingObject pending = ObjectBuilder::Build(doc, storage->selectable_fields);
    const std::string key = r->namespaced ? StrCat(ns, "/", name) : name;
    if (opts.dry_run) {
      std::lock_guard l(mu_);
      Table* t = FindTable(storage->storage);
      if (t == nullptr) return kube::NewNotFound(ResourceWhat(*r), name);
      if (t->objects.count(key)) {
        if (generated) continue;
        return kube::NewAlreadyExists(ResourceWhat(*r), name);
      }
      return ObjectBuilder::Seal(std::move(pending), 0);
    }
    Commit c;
    c.kind = Commit::Kind::kCreate;
    c.pending = std::move(pending);
    c.ns = ns;
    StatusOr<ObjectPtr> result =
        CommitToTable(*r, storage->storage, name, key, nullptr, std::move(c));
    if (!result.ok()) {
      if (generated && result.status().reason() == "AlreadyExists") continue;
      return result.status();
    }
    NotifyGc(nullptr, *result, storage->storage);
    return result;
  }
  return kube::NewAlreadyExists(ResourceWhat(*r), generate_name);
}

// ---------------------------------------------------------------------------------------------
// Reads.

StatusOr<ObjectPtr> Store::Get(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name) const {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  const std::string key =
      r->namespaced ? std::string(ns) + "/" + std::string(name) : std::string(name);
  std::lock_guard l(mu_);
  Table* t = FindTable(r->storage);
  if (t != nullptr) {
    auto it = t->objects.find(key);
    if (it != t->objects.end()) return it->second;
  }
  return kube::NewNotFound(ResourceWhat(*r), name);
}

Status CheckFieldSelector(const ResourceInfo& r, const FieldSelector& fs) {
  for (const FieldRequirement& req : fs.requirements()) {
    if (req.field == "metadata.name" || req.field == "metadata.namespace") continue;
    if (std::find(r.selectable_fields.begin(), r.selectable_fields.end(), req.field) !=
        r.selectable_fields.end()) {
      continue;
    }
    if (!r.crd_name.empty()) {
      std::string allowed = "\"metadata.name\", \"metadata.namespace\"";
      for (const auto& f : r.selectable_fields) allowed += ", \"" + f + "\"";
      return kube::NewBadRequest("\"" + req.field + "\" is not a known field selector: only " +
                                 allowed);
    }
    return kube::NewBadRequest("field label not supported: " + req.field);
  }
  return Status::OK();
}

bool Matches(const ObjectPtr& o, const LabelSelector& ls, const FieldSelector& fs) {
  if (!ls.Empty() && !ls.Matches(o->labels())) return false;
  if (!fs.Empty() && !fs.Matches([&](const std::string& f) { return o->Field(f); })) return false;
  return true;
}

namespace {

std::string ContinueToken(uint64_t rv, std::string_view start, uint64_t snap, size_t offset) {
  std::string json = "{\"v\":\"meta.k8s.io/v1\",\"rv\":" + std::to_string(rv) + ",\"start\":";
  AppendQuoted(&json, start);
  json += ",\"snap\":" + std::to_string(snap) + ",\"off\":" + std::to_string(offset) + "}";
  return kube::Base64Encode(json, kube::Base64Encoding::kRawUrl);
}

constexpr std::string_view kContinueExpired =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.";

}  // namespace

StatusOr<ListResult> Store::List(const GroupVersionResource& gvr, std::string_view ns,
                                 const ListOptions& opts) const {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  KAI_ASSIGN_OR_RETURN(LabelSelector ls, LabelSelector::Parse(opts.label_selector));
  KAI_ASSIGN_OR_RETURN(FieldSelector fs, FieldSelector::Parse(opts.field_selector));
  KAI_RETURN_IF_ERROR(CheckFieldSelector(*r, fs));
  if (opts.limit < 0) return kube::NewBadRequest("limit must be non-negative");
  if (!r->namespaced) ns = "";

  ListResult out;
  std::shared_ptr<const std::vector<ObjectPtr>> items;
  size_t offset = 0;
  uint64_t snap_id = 0;

  if (!opts.continue_token.empty()) {
    if (!opts.resource_version.empty() && opts.resource_version != "0") {
      return kube::NewBadRequest("specifying resource version is not allowed when using continue");
    }
    StatusOr<std::string> decoded =
        kube::Base64Decode(opts.continue_token, kube::Base64Encoding::kRawUrl);
    if (!decoded.ok()) return kube::NewBadRequest("continue key is not valid: illegal base64 data");
    auto doc = Parse(*decoded);
    if (!doc.ok() || !doc->IsObject()) {
      return kube::NewBadRequest("continue key is not valid: invalid character in token");
    }
    const auto snap = GetInt(*doc, {"snap"});
    const auto off = GetInt(*doc, {"off"});
    if (!snap || !off || *off < 0) return kube::NewBadRequest("continue key is not valid");
    std::lock_guard cl(continue_mu_);
    auto it = continue_snapshots_.find(static_cast<uint64_t>(*snap));
    if (it == continue_snapshots_.end() || clock_->NowMonotonic() > it->second.expires) {
      if (it != continue_snapshots_.end()) continue_snapshots_.erase(it);
      return kube::NewExpired(kContinueExpired);
    }
    items = it->second.items;
    out.resource_version = it->second.rv;
    offset = static_cast<size_t>(*off);
    snap_id = it->first;
    if (offset > items->size()) return kube::NewBadRequest("continue key is not valid");
  } else {
    uint64_t want = 0;
    const bool has_rv = !opts.resource_version.empty() && opts.resource_version != "0";
    if (has_rv && !ParseDecimalUint64(opts.resource_version, &want)) {
      return kube::NewBadRequest("invalid resource version \"" + opts.resource_version + "\"");
    }
    if (!opts.resource_version_match.empty() && opts.resource_version_match != "NotOlderThan" &&
        opts.resource_version_match != "Exact") {
      return kube::NewBadRequest("resourceVersionMatch: Unsupported value: \"" +
                                 opts.resource_version_match +
                                 "\": supported values: \"Exact\", \"NotOlderThan\"");
    }
    if (!opts.resource_version_match.empty() && opts.resource_version.empty()) {
      return kube::NewBadRequest(
          "resourceVersionMatch is forbidden unless resourceVersion is provided");
    }
    std::unique_lock l(mu_);
    // The real server waits a few seconds for a future RV, then times out.
    if (has_rv) KAI_RETURN_IF_ERROR(WaitForResourceVersionLocked(l, want));
    if (has_rv && opts.resource_version_match == "Exact" && want != rv_) {
      return kube::NewExpired("too old resource version: " + std::to_string(want) + " (" +
                              std::to_string(rv_) + ")");
    }
    Table* t = FindTable(r->storage);
    auto vec = std::make_shared<std::vector<ObjectPtr>>();
    if (t != nullptr) {
      auto it = ns.empty() ? t->objects.begin() : t->objects.lower_bound(std::string(ns) + "/");
      const std::string prefix = ns.empty() ? "" : std::string(ns) + "/";
      for (; it != t->objects.end(); ++it) {
        if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
        if (Matches(it->second, ls, fs)) vec->push_back(it->second);
      }
    }
    out.resource_version = rv_;
    items = std::move(vec);
  }

  const size_t total = items->size();
  size_t end = total;
  if (opts.limit > 0 && offset + static_cast<size_t>(opts.limit) < total) {
    end = offset + static_cast<size_t>(opts.limit);
  }
  out.items.assign(items->begin() + static_cast<std::ptrdiff_t>(offset),
                   items->begin() + static_cast<std::ptrdiff_t>(end));
  if (end < total) {
    std::lock_guard cl(continue_mu_);
    if (snap_id == 0) {
      snap_id = next_snapshot_id_++;
      continue_snapshots_[snap_id] = ContinueSnapshot{
          items, out.resource_version, clock_->NowMonotonic() + options_.continue_ttl};
      while (continue_snapshots_.size() > options_.max_continue_snapshots) {
        continue_snapshots_.erase(continue_snapshots_.begin());
      }
    }
    out.continue_token =
        ContinueToken(out.resource_version, (*items)[end - 1]->Key(), snap_id, end);
    if (ls.Empty() && fs.Empty()) out.remaining_item_count = static_cast<int64_t>(total - end);
  } else if (snap_id != 0) {
    std::lock_guard cl(continue_mu_);
    continue_snapshots_.erase(snap_id);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Update, patch, mutate.

StatusOr<ObjectPtr> Store::Update(const GroupVersionResource& gvr, std::string_view ns,
                                  std::string_view name, std::string_view json,
                                  const WriteOptions& opts) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  JsonDoc body;
  KAI_RETURN_IF_ERROR(DecodeObject(*r, json, &body));
  const std::string body_name = GetStr(body, {"metadata", "name"});
  if (!body_name.empty() && body_name != name) {
    return kube::NewBadRequest("the name of the object (" + body_name +
                               ") does not match the name on the URL (" + std::string(name) + ")");
  }
  if (r->namespaced) {
    const std::string body_ns = GetStr(body, {"metadata", "namespace"});
    if (!body_ns.empty() && body_ns != ns) {
      return kube::NewBadRequest(
          "the namespace of the provided object does not match the namespace "
          "sent on the request");
    }
  }
  KAI_RETURN_IF_ERROR(ToStorage(r, body, body.GetAllocator(), *registry_));
  const std::string body_rv = GetStr(body, {"metadata", "resourceVersion"});
  const std::string body_uid = GetStr(body, {"metadata", "uid"});
  // Custom resources and CRDs take no unconditional update (their strategies'
  // AllowUnconditionalUpdate is false); built-in kinds take the stored version.
  const bool needs_version = !r->crd_name.empty() || r->gr() == kCrds;
  auto fn = [&](const ObjectPtr& old, MutableObject& obj) -> Status {
    if (needs_version && (body_rv.empty() || body_rv == "0")) {
      return kube::NewInvalid(
          ResourceWhat(*r), name,
          {FieldInvalid("metadata.resourceVersion", "0x0", "must be specified for an update")});
    }
    if (!body_rv.empty() && body_rv != std::to_string(old->resource_version())) {
      return ErrStaleConflict(ResourceWhat(*r), name);
    }
    KAI_RETURN_IF_ERROR(CheckPreconditions(ResourceWhat(*r), name, body_uid, "", *old));
    obj.doc().CopyFrom(body, obj.alloc());
    return Status::OK();
  };
  return UpdateImpl(r, ns, name, fn, opts, /*retry_on_conflict=*/body_rv.empty(),
                    /*allow_create=*/false, false);
}

StatusOr<ObjectPtr> Store::Patch(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, PatchType type, std::string_view patch,
                                 const PatchOptions& opts) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  JsonDoc p;
  Status ps = api::ParseJson(patch, &p, kMaxRequestJsonDepth);
  if (!ps.ok()) return kube::NewBadRequest("error decoding patch: " + std::string(ps.message()));
  if (type == PatchType::kStrategic && (!r->hooks || r->hooks->smp_type.empty())) {
    return kube::NewUnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  }
  if (type == PatchType::kJson && !p.IsArray()) {
    return kube::NewBadRequest(
        "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  if (type != PatchType::kJson && !p.IsObject()) {
    return kube::NewBadRequest("error decoding patch: the patch must be a JSON object");
  }
  if (type == PatchType::kApply) {
    if (opts.field_manager.empty()) {
      return kube::NewBadRequest(
          "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required "
          "value: is required for apply patch");
    }
    JsonDoc applied;
    applied.CopyFrom(p, applied.GetAllocator());
    KAI_RETURN_IF_ERROR(DecodeObject(*r, Serialize(p), &applied));
    const std::string body_name = GetStr(applied, {"metadata", "name"});
    if (!body_name.empty() && body_name != name) {
      return kube::NewBadRequest("the name of the object (" + body_name +
                                 ") does not match the name on the URL (" + std::string(name) +
                                 ")");
    }
  }
  // A resourceVersion inside the patch is an optimistic-concurrency precondition.
  const Json* prv = type == PatchType::kJson ? nullptr : Path(p, {"metadata", "resourceVersion"});
  const bool has_precondition = prv != nullptr && prv->IsString();
  auto fn = [&](const ObjectPtr& old, MutableObject& obj) -> Status {
    if (type == PatchType::kApply) {
      // The applied resourceVersion lands in the object, as in the API server: a precondition
      // on an update, an error on a create.
      if (has_precondition && old == nullptr) {
        KAI_RETURN_IF_ERROR(CheckNoResourceVersionOnCreate(*Path(p, {"metadata"})));
      }
      if (has_precondition && old != nullptr &&
          View(*prv) != std::to_string(old->resource_version())) {
        return ErrStaleConflict(ResourceWhat(*r), name);
      }
      return ServerSideApply(*r, obj.doc(), p, obj.alloc(), opts.field_manager, opts.force,
                             opts.subresource, clock_->Now());
    }
    if (old == nullptr) return kube::NewNotFound(ResourceWhat(*r), name);
    Status s;
    switch (type) {
      case PatchType::kMerge:
        s = ApplyMergePatch(obj.doc(), p, obj.alloc());
        break;
      case PatchType::kJson:
        s = ApplyJsonPatch(obj.doc(), p, obj.alloc());
        break;
      case PatchType::kStrategic:
        s = ApplyStrategicMergePatch(obj.doc(), p, r->hooks->smp_type, obj.alloc());
        break;
      case PatchType::kApply:
        break;
    }
    if (!s.ok()) return s;
    if (!obj.doc().IsObject()) return kube::NewBadRequest("the patch produced a non-object");
    if (has_precondition) {
      const std::string want = GetStr(obj.doc(), {"metadata", "resourceVersion"});
      if (want != std::to_string(old->resource_version())) {
        return ErrStaleConflict(ResourceWhat(*r), name);
      }
    }
    return Status::OK();
  };
  return UpdateImpl(r, ns, name, fn, opts, /*retry_on_conflict=*/!has_precondition,
                    /*allow_create=*/type == PatchType::kApply && opts.subresource.empty(),
                    opts.force);
}

StatusOr<ObjectPtr> Store::Mutate(const GroupVersionResource& gvr, std::string_view ns,
                                  std::string_view name,
                                  const std::function<Status(MutableObject&)>& fn,
                                  const WriteOptions& opts) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  auto wrapped = [&](const ObjectPtr& old, MutableObject& obj) -> Status {
    if (old == nullptr) return kube::NewNotFound(ResourceWhat(*r), name);
    return fn(obj);
  };
  return UpdateImpl(r, ns, name, wrapped, opts, true, false, false);
}

StatusOr<ObjectPtr> Store::UpdateImpl(
    const ResourcePtr& r, std::string_view ns_in, std::string_view name,
    const std::function<Status(const ObjectPtr& old, MutableObject& obj)>& fn,
    const WriteOptions& opts, bool retry_on_conflict, bool allow_create, bool force_apply) {
  (void)force_apply;
  const std::string ns = r->namespaced ? std::string(ns_in) : "";
  const std::string key = r->namespaced ? ns + "/" + std::string(name) : std::string(name);
  KAI_ASSIGN_OR_RETURN(ResourcePtr storage, StorageResource(r, *registry_));
  const bool status_only = opts.subresource == "status";
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    ObjectPtr old;
    {
      std::lock_guard l(mu_);
      Table* t = FindTable(storage->storage);
      if (t == nullptr) return kube::NewNotFound(ResourceWhat(*r), name);
      auto it = t->objects.find(key);
      if (it != t->objects.end()) old = it->second;
    }
    if (!old) {
      if (!allow_create) return kube::NewNotFound(ResourceWhat(*r), name);
      MutableObject obj;
      SetString(obj.doc(), "apiVersion", r->api_version(), obj.alloc());
      SetString(obj.doc(), "kind", r->kind, obj.alloc());
      Json& meta = obj.metadata();
      SetString(meta, "name", name, obj.alloc());
      if (r->namespaced) SetString(meta, "namespace", ns, obj.alloc());
      KAI_RETURN_IF_ERROR(fn(nullptr, obj));
      auto created = CreateImpl(r, ns, obj, opts);
      if (!created.ok() && created.status().reason() == "AlreadyExists" && retry_on_conflict) {
        continue;
      }
      return created;
    }
    KAI_ASSIGN_OR_RETURN(JsonDoc old_doc, Parse(old->json()));
    MutableObject obj(Clone(old_doc));
    JsonAlloc& a = obj.alloc();
    if (r != storage && r->hooks && r->hooks->convert) {
      // Present the object in the requested version to patches and to `fn`.
      KAI_RETURN_IF_ERROR(
          r->hooks->convert(obj.doc(), a, storage->api_version(), r->api_version()));
      SetString(obj.doc(), "apiVersion", r->api_version(), a);
      SetString(obj.doc(), "kind", r->kind, a);
    }
    Status fs = fn(old, obj);
    if (!fs.ok()) return fs;
    Json& doc = obj.doc();
    if (!doc.IsObject()) return kube::NewBadRequest("object must be a JSON object");
    // apiVersion/kind may not be changed by an update.
    if (GetStr(doc, {"apiVersion"}) != r->api_version() && !GetStr(doc, {"apiVersion"}).empty()) {
      return kube::NewBadRequest("the API version in the data (" + GetStr(doc, {"apiVersion"}) +
                                 ") does not match the expected API version (" + r->api_version() +
                                 ")");
    }
    if (GetStr(doc, {"kind"}) != r->kind && !GetStr(doc, {"kind"}).empty()) {
      return kube::NewBadRequest("the kind in the data (" + GetStr(doc, {"kind"}) +
                                 ") does not match the expected kind (" + r->kind + ")");
    }
    SetString(doc, "apiVersion", r->api_version(), a);
    SetString(doc, "kind", r->kind, a);
    if (r != storage) KAI_RETURN_IF_ERROR(ToStorage(r, doc, a, *registry_));
    if (const Json* m = Member(doc, "metadata"); m == nullptr || !m->IsObject()) {
      SetMember(doc, "metadata", Json(rapidjson::kObjectType), a);
    }
    // The uid is immutable (ValidateObjectMetaUpdate), for a patch as for any write; only a
    // custom resource's status subresource takes the stored metadata whatever the request says.
    // (An update naming another uid already failed its 409 precondition.)
    if (const std::string uid = GetStr(doc, {"metadata", "uid"});
        !uid.empty() && uid != old->uid() && !(status_only && !r->crd_name.empty())) {
      return kube::NewInvalid(r->kind, name,
                              {FieldInvalid("metadata.uid", Quoted(uid), "field is immutable")});
    }
    // Subresource semantics.
    if (status_only) {
      JsonDoc merged = Clone(old_doc);
      JsonAlloc& ma = merged.GetAllocator();
      CopyMember(doc, merged, "status", ma);
      const Json& req_meta = *Member(doc, "metadata");
      if (r->crd_name.empty()) {
        // A built-in kind's status strategy resets the spec and keeps the request's metadata
        // but for a few fields per kind (server-managed ones are restored below).
        CopyMember(doc, merged, "metadata", ma);
        Json& merged_meta = *Member(merged, "metadata");
        if (storage->hooks) {
          for (const std::string& k : storage->hooks->status_keeps_stored_metadata) {
            CopyMember(*Member(old_doc, "metadata"), merged_meta, k, ma);
          }
        }
      } else {
        // managedFields follow the request (apply on /status tracks status fields).
        CopyMember(req_meta, EnsureObject(merged, "metadata", ma), "managedFields", ma);
      }
      obj.doc().Swap(merged);
    } else if (storage->has_status()) {
      CopyMember(old_doc, doc, "status", a);
    }
    Json& newdoc = obj.doc();
    JsonAlloc& na = obj.alloc();
    Json& meta = EnsureObject(newdoc, "metadata", na);
    const Json& old_meta = *Member(old_doc, "metadata");
    // Server-managed metadata cannot be changed by clients.
    if (GetStr(meta, {"name"}) != old->name()) {
      if (!GetStr(meta, {"name"}).empty()) {
        return kube::NewBadRequest("the name of the object (" + GetStr(meta, {"name"}) +
                                   ") does not match the name on the URL (" + std::string(name) +
                                   ")");
      }
    }
    for (std::string_view k : {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                               "deletionGracePeriodSeconds", "generation", "generateName"}) {
      if (k == "generateName" && Member(meta, k) != nullptr) continue;
      CopyMember(old_meta, meta, k, na);
    }
    RemoveMember(meta, "resourceVersion");
    RemoveMember(meta, "selfLink");
    for (std::string_view k : {"labels", "annotations", "finalizers", "ownerReferences"}) {
      const Json* v = Member(meta, k);
      if (v != nullptr && ((v->IsObject() && v->MemberCount() == 0) ||
                           (v->IsArray() && v->Empty()) || v->IsNull())) {
        RemoveMember(meta, k);
      }
    }
    std::vector<StatusCause> errs;
    if (!status_only && opts.subresource != "binding") {
      KAI_RETURN_IF_ERROR(RunSchema(*storage, newdoc, na, opts, &errs));
    } else if (storage->hooks && storage->hooks->schema) {
      std::vector<std::string> unknown;
      storage->hooks->schema(newdoc, na, &unknown, &errs);
    }
    if (storage->hooks && storage->hooks->defaults) storage->hooks->defaults(newdoc, na);
    if (admission_ != nullptr && admission_->Enabled()) {
      KAI_RETURN_IF_ERROR(
          admission_->Mutate(WriteAttributes(storage.get(), ns, name, &old_doc, opts), &obj.doc()));
    }
    Json& d2 = obj.doc();
    ValidateObjectMeta(*storage, d2, &old_doc, &errs);
    if (storage->hooks && storage->hooks->validate)
      storage->hooks->validate(d2, &old_doc, opts.subresource, &errs);
    if (!errs.empty()) return StatusFromCauses(*storage, name, errs);
    if (admission_ != nullptr && admission_->Enabled()) {
      KAI_RETURN_IF_ERROR(
          admission_->Validate(WriteAttributes(storage.get(), ns, name, &old_doc, opts), &d2));
    }
    // Generation.
    Json& m2 = EnsureObject(d2, "metadata", na);
    if (storage->track_generation && SpecChanged(*storage, old_doc, d2)) {
      SetInt(m2, "generation", GetInt(old_meta, {"generation"}).value_or(0) + 1, na);
    }
    // managedFields: a request that sets them replaces them; otherwise the manager gains the
    // fields it changed. A no-op write changes nothing (no new resourceVersion, no event).
    const Json* req_mf = Member(m2, "managedFields");
    const Json* old_mf = Member(old_meta, "managedFields");
    const bool mf_from_request = req_mf != nullptr && !(old_mf != nullptr && *req_mf == *old_mf);
    {
      JsonDoc cmp = Clone(d2);
      Json& cm = EnsureObject(cmp, "metadata", cmp.GetAllocator());
      CopyMember(old_meta, cm, "managedFields", cmp.GetAllocator());
      CopyMember(old_meta, cm, "resourceVersion", cmp.GetAllocator());
      if (cmp == old_doc && !mf_from_request) return old;
    }
    if (!mf_from_request && opts.field_manager != "\x01keep") {
      const std::string manager =
          opts.field_manager.empty() ? ManagerFromUserAgent(opts.user_agent) : opts.field_manager;
      if (req_mf == nullptr) CopyMember(old_meta, m2, "managedFields", na);
      RecordUpdate(*storage, &old_doc, d2, na, manager, opts.subresource, clock_->Now());
    } else if (req_mf != nullptr && req_mf->IsArray() && req_mf->Empty()) {
      RemoveMember(m2, "managedFields");
    }
    // Finalization: a deleting object whose finalizers are all gone is removed.
    const bool deleting =
        Member(m2, "deletionTimestamp") != nullptr && !Member(m2, "deletionTimestamp")->IsNull();
    const Json* fin = Member(m2, "finalizers");
    const bool no_finalizers = fin == nullptr || !fin->IsArray() || fin->Empty();
    const int64_t grace = GetInt(m2, {"deletionGracePeriodSeconds"}).value_or(0);
    Commit c;
    c.kind =
        (deleting && no_finalizers && grace == 0) ? Commit::Kind::kRemove : Commit::Kind::kUpdate;
    c.pending = ObjectBuilder::Build(d2, storage->selectable_fields);
    if (opts.dry_run) return ObjectBuilder::Seal(std::move(c.pending), old->resource_version());
    const bool removed = c.kind == Commit::Kind::kRemove;
    StatusOr<ObjectPtr> result = CommitToTable(*r, storage->storage, name, key, old, std::move(c));
    if (!result.ok()) {
      if (result.status().reason() == "Conflict" && retry_on_conflict) continue;
      return result;
    }
    if (removed) {
      NotifyGc(old, nullptr, storage->storage);
    } else {
      NotifyGc(old, *result, storage->storage);
    }
    return result;
  }
  return ErrStaleConflict(ResourceWhat(*r), name);
}

Status Store::Restore(const GroupResource& storage, std::string_view json) {
  std::lock_guard l(mu_);
  Table* t = FindTable(storage);
  if (t == nullptr) return NotFoundError("no resource " + storage.ToString());
  KAI_ASSIGN_OR_RETURN(ObjectPtr obj, ObjectBuilder::FromJson(json, t->info->selectable_fields));
  const std::string key = obj->Key();
  auto it = t->objects.find(key);
  const ObjectPtr old = it == t->objects.end() ? nullptr : it->second;
  t->objects[key] = obj;
  IndexLocked(storage, old, obj);
  rv_ = std::max(rv_, obj->resource_version());
  return Status::OK();
}

void Store::FinishRestore(uint64_t rv) {
  std::vector<std::pair<GroupResource, ObjectPtr>> gc;
  {
    std::lock_guard l(mu_);
    rv_ = std::max(rv_, rv);
    for (auto& [gr, t] : tables_) {
      t->first_seq += t->ring.size();
      t->ring.clear();
      t->compacted_rv = rv_;
      for (const auto& [key, obj] : t->objects) {
        if (obj->deleting() || !obj->owner_references().empty()) gc.emplace_back(gr, obj);
      }
    }
  }
  for (const auto& [gr, obj] : gc) gc_->Requeue(gr, obj);
}

uint64_t Store::SnapshotAndAttach(CommitSink* sink,
                                  std::vector<std::pair<GroupResource, ObjectPtr>>* objects) {
  std::lock_guard l(mu_);
  sink_ = sink;
  if (objects != nullptr) {
    for (const auto& [gr, t] : tables_) {
      for (const auto& [key, obj] : t->objects) objects->emplace_back(gr, obj);
    }
  }
  return rv_;
}

uint64_t Store::SnapshotObjects(std::vector<std::pair<GroupResource, ObjectPtr>>* objects) const {
  std::lock_guard l(mu_);
  for (const auto& [gr, t] : tables_) {
    for (const auto& [key, obj] : t->objects) objects->emplace_back(gr, obj);
  }
  return rv_;
}

void Store::CompactHistory() {
  std::lock_guard l(mu_);
  for (auto& [gr, t] : tables_) {
    t->first_seq += t->ring.size();
    t->ring.clear();
    t->compacted_rv = rv_;
    t->cv.notify_all();
  }
  std::lock_guard cl(continue_mu_);
  continue_snapshots_.clear();
}

void Store::DropWatches() {
  std::lock_guard l(mu_);
  ++drop_epoch_;
  for (auto& [gr, t] : tables_) t->cv.notify_all();
}

size_t Store::ActiveWatches() const { return active_watches_.load(); }

}  // namespace kai::localkube
