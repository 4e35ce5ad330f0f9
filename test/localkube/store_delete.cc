// The store's deletes: graceful deletion, finalizers, propagation and delete-collection.
#include <algorithm>
#include <chrono>
#include <utility>

#include "kube/base/time.h"
#include "test/localkube/admission.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/store.h"
#include "test/localkube/store_internal.h"
#include "test/localkube/types.h"

namespace kai::localkube {

// ---------------------------------------------------------------------------------------------
// Delete.

StatusOr<DeleteResult> Store::Delete(const GroupVersionResource& gvr, std::string_view ns,
                                     std::string_view name, const DeleteOptions& opts) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  return DeleteImpl(r, ns, name, opts);
}

StatusOr<DeleteResult> Store::DeleteImpl(const ResourcePtr& r, std::string_view ns_in,
                                         std::string_view name, const DeleteOptions& opts) {
  const std::string ns = r->namespaced ? std::string(ns_in) : "";
  const std::string key = r->namespaced ? ns + "/" + std::string(name) : std::string(name);
  KAI_ASSIGN_OR_RETURN(ResourcePtr storage, StorageResource(r, *registry_));
  if (!opts.propagation_policy.empty() && opts.propagation_policy != "Background" &&
      opts.propagation_policy != "Foreground" && opts.propagation_policy != "Orphan") {
    return kube::NewInvalid("DeleteOptions.meta.k8s.io", "",
                            {FieldNotSupported("propagationPolicy", Quoted(opts.propagation_policy),
                                               {"Foreground", "Background", "Orphan", "nil"})});
  }
  if (opts.grace_period_seconds && *opts.grace_period_seconds < 0) {
    return kube::NewInvalid(
        "DeleteOptions.meta.k8s.io", "",
        {FieldInvalid("gracePeriodSeconds", std::to_string(*opts.grace_period_seconds),
                      "must be greater than or equal to 0")});
  }
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    ObjectPtr old;
    {
      std::lock_guard l(mu_);
      Table* t = FindTable(storage->storage);
      if (t != nullptr) {
        auto it = t->objects.find(key);
        if (it != t->objects.end()) old = it->second;
      }
    }
    if (!old) return kube::NewNotFound(ResourceWhat(*r), name);
    KAI_RETURN_IF_ERROR(CheckPreconditions(ResourceWhat(*r), name,
                                           opts.precondition_uid.value_or(""),
                                           opts.precondition_resource_version.value_or(""), *old));
    if (admission_ != nullptr && admission_->Enabled()) {
      KAI_ASSIGN_OR_RETURN(JsonDoc old_doc, Parse(old->json()));
      AdmissionAttributes attrs;
      attrs.resource = storage.get();
      attrs.operation = "DELETE";
      attrs.ns = ns;
      attrs.name = std::string(name);
      attrs.old_object = &old_doc;
      attrs.user = &opts.user;
      attrs.dry_run = opts.dry_run;
      attrs.options_kind = "DeleteOptions";
      KAI_RETURN_IF_ERROR(admission_->Validate(attrs, nullptr));
    }
    // Which finalizers deletion adds, and whether a grace period applies.
    std::string policy = opts.propagation_policy;
    if (policy.empty()) {
      if (old->HasFinalizer("orphan")) {
        policy = "Orphan";
      } else if (old->HasFinalizer("foregroundDeletion")) {
        policy = "Foreground";
      } else {
        policy = storage->default_propagation;
      }
    }
    const bool has_dependents = !Dependents(old->uid()).empty();
    std::vector<std::string> add_finalizers;
    std::vector<std::string> remove_finalizers;
    if (policy == "Orphan") {
      if (has_dependents) add_finalizers.push_back("orphan");
      remove_finalizers.push_back("foregroundDeletion");
    } else if (policy == "Foreground") {
      if (has_dependents) add_finalizers.push_back("foregroundDeletion");
      remove_finalizers.push_back("orphan");
    } else if (!opts.propagation_policy.empty()) {
      remove_finalizers = {"orphan", "foregroundDeletion"};
    }
    // Namespaces and CRDs are finalized by their controllers.
    const bool is_namespace = storage->storage == kNamespaces;
    const bool is_crd =
        storage->storage == GroupResource{"apiextensions.k8s.io", "customresourcedefinitions"};
    int64_t grace = 0;
    if (storage->storage == GroupResource{"", "pods"}) {
      KAI_ASSIGN_OR_RETURN(JsonDoc pd, Parse(old->json()));
      const std::string node = GetStr(pd, {"spec", "nodeName"});
      const std::string phase = GetStr(pd, {"status", "phase"});
      grace = opts.grace_period_seconds.value_or(
          GetInt(pd, {"spec", "terminationGracePeriodSeconds"}).value_or(30));
      if (node.empty() || phase == "Succeeded" || phase == "Failed") grace = 0;
      if (old->deleting()) {
        const int64_t cur = GetInt(pd, {"metadata", "deletionGracePeriodSeconds"}).value_or(0);
        grace = std::min(grace, cur);
      }
    }
    std::vector<std::string> finalizers = old->finalizers();
    bool fin_changed = false;
    for (const auto& f : remove_finalizers) {
      auto it = std::find(finalizers.begin(), finalizers.end(), f);
      if (it != finalizers.end()) {
        finalizers.erase(it);
        fin_changed = true;
      }
    }
    for (const auto& f : add_finalizers) {
      if (std::find(finalizers.begin(), finalizers.end(), f) == finalizers.end()) {
        finalizers.push_back(f);
        fin_changed = true;
      }
    }
    if (is_namespace && !old->deleting()) fin_changed = true;
    if (is_crd && !old->deleting()) {
      if (std::find(finalizers.begin(), finalizers.end(),
                    "customresourcecleanup.apiextensions.k8s.io") == finalizers.end()) {
        finalizers.push_back("customresourcecleanup.apiextensions.k8s.io");
      }
      fin_changed = true;
    }
    bool namespace_pending = false;
    if (is_namespace) {
      KAI_ASSIGN_OR_RETURN(JsonDoc nd, Parse(old->json()));
      const Json* sf = Path(nd, {"spec", "finalizers"});
      namespace_pending = (sf != nullptr && sf->IsArray() && !sf->Empty()) || !old->deleting();
    }
    const bool pending = !finalizers.empty() || grace > 0 || namespace_pending;
    if (!pending) {
      if (opts.dry_run) return DeleteResult{old, true};
      Commit c;
      c.kind = Commit::Kind::kRemove;
      StatusOr<ObjectPtr> result =
          CommitToTable(*r, storage->storage, name, key, old, std::move(c));
      if (!result.ok()) {
        if (result.status().reason() == "Conflict") continue;
        return result.status();
      }
      NotifyGc(old, nullptr, storage->storage);
      return DeleteResult{*result, true};
    }
    // Graceful: set deletionTimestamp (once), update finalizers and grace.
    KAI_ASSIGN_OR_RETURN(JsonDoc doc, Parse(old->json()));
    JsonAlloc& a = doc.GetAllocator();
    Json& meta = EnsureObject(doc, "metadata", a);
    bool changed = fin_changed;
    const WallTime now = clock_->Now();
    if (!old->deleting()) {
      SetString(meta, "deletionTimestamp", FormatRfc3339(now + std::chrono::seconds(grace)), a);
      SetInt(meta, "deletionGracePeriodSeconds", grace, a);
      if (storage->track_generation && GetInt(meta, {"generation"}).value_or(0) > 0) {
        SetInt(meta, "generation", GetInt(meta, {"generation"}).value_or(0) + 1, a);
      }
      if (is_namespace) {
        Json& st = EnsureObject(doc, "status", a);
        SetString(st, "phase", "Terminating", a);
      }
      changed = true;
    } else if (grace < GetInt(meta, {"deletionGracePeriodSeconds"}).value_or(0)) {
      SetString(meta, "deletionTimestamp", FormatRfc3339(now + std::chrono::seconds(grace)), a);
      SetInt(meta, "deletionGracePeriodSeconds", grace, a);
      changed = true;
    }
    if (!changed) return DeleteResult{old, false};
    Json fl(rapidjson::kArrayType);
    for (const auto& f : finalizers) fl.PushBack(Str(f, a), a);
    if (finalizers.empty()) {
      RemoveMember(meta, "finalizers");
    } else {
      SetMember(meta, "finalizers", std::move(fl), a);
    }
    Commit c;
    c.kind = (finalizers.empty() && grace == 0 && !namespace_pending) ? Commit::Kind::kRemove
                                                                      : Commit::Kind::kUpdate;
    c.pending = ObjectBuilder::Build(doc, storage->selectable_fields);
    if (opts.dry_run) {
      return DeleteResult{ObjectBuilder::Seal(std::move(c.pending), old->resource_version()),
                          false};
    }
    const bool removed = c.kind == Commit::Kind::kRemove;
    StatusOr<ObjectPtr> result = CommitToTable(*r, storage->storage, name, key, old, std::move(c));
    if (!result.ok()) {
      if (result.status().reason() == "Conflict") continue;
      return result.status();
    }
    NotifyGc(old, removed ? nullptr : *result, storage->storage);
    return DeleteResult{*result, removed};
  }
  return ErrStaleConflict(ResourceWhat(*r), name);
}

StatusOr<std::vector<ObjectPtr>> Store::DeleteCollection(const GroupVersionResource& gvr,
                                                         std::string_view ns,
                                                         const ListOptions& list_opts,
                                                         const DeleteOptions& opts) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  ListOptions lo = list_opts;
  lo.limit = 0;
  lo.continue_token.clear();
  KAI_ASSIGN_OR_RETURN(ListResult list, List(gvr, ns, lo));
  std::vector<ObjectPtr> out;
  for (const ObjectPtr& o : list.items) {
    auto res = DeleteImpl(r, o->namespace_(), o->name(), opts);
    if (res.ok()) {
      out.push_back(res->object);
    } else if (!IsNotFound(res.status())) {
      return res.status();
    }
  }
  return out;
}

}  // namespace kai::localkube
