#include "test/localkube/gc.h"

#include <algorithm>

#include "kube/base/time.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/mutable_object.h"
#include "test/localkube/store.h"

namespace kai::localkube {
namespace {

const GroupResource kPods{"", "pods"};

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

Status RemoveFinalizer(MutableObject& obj, std::string_view f) {
  Json* fl = Path(obj.doc(), {"metadata", "finalizers"});
  if (fl == nullptr || !fl->IsArray()) return Status::OK();
  for (auto it = fl->Begin(); it != fl->End(); ++it) {
    if (View(*it) == f) {
      fl->Erase(it);
      break;
    }
  }
  return Status::OK();
}

WriteOptions GcWriteOptions() {
  WriteOptions o;
  o.field_manager = "kube-controller-manager";
  o.user.username = "system:serviceaccount:kube-system:generic-garbage-collector";
  return o;
}

}  // namespace

GarbageCollector::GarbageCollector(Store* store) : store_(store) {}

GarbageCollector::~GarbageCollector() { Stop(); }

void GarbageCollector::Start() {
  std::lock_guard l(mu_);
  if (started_) return;
  started_ = true;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void GarbageCollector::Stop() {
  {
    std::lock_guard l(mu_);
    if (!started_) return;
    stop_ = true;
    started_ = false;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GarbageCollector::AddObserver(Observer o) {
  std::lock_guard l(observers_mu_);
  auto next = std::make_shared<std::vector<Observer>>(*observers_);
  next->push_back(std::move(o));
  observers_ = std::move(next);
}

void GarbageCollector::WaitIdle() {
  std::unique_lock l(mu_);
  // Timers that are due count as queued work (a FakeClock advanced by a test makes them due
  // before this thread notices).
  cv_.wait(l, [&] {
    const bool due = !timers_.empty() && timers_.begin()->first <= store_->clock()->NowMonotonic();
    return (queue_.empty() && !busy_ && !due) || stop_ || !started_;
  });
}

void GarbageCollector::Enqueue(Item item) {
  std::lock_guard l(mu_);
  if (!queued_.insert(item.Id()).second) return;
  queue_.push_back(std::move(item));
  cv_.notify_all();
}

void GarbageCollector::EnqueueAfter(Item item, MonoTime when) {
  std::lock_guard l(mu_);
  timers_.emplace(when, std::move(item));
  cv_.notify_all();
}

void GarbageCollector::Observe(const GroupResource& gr, const ObjectPtr& old,
                               const ObjectPtr& now) {
  std::shared_ptr<const std::vector<Observer>> observers;
  {
    std::lock_guard l(observers_mu_);
    observers = observers_;
  }
  for (const Observer& o : *observers) o(gr, old, now);

  if (!now) {
    // Removed: its dependents may now be orphaned, and owners waiting in foreground deletion
    // may be done.
    if (old && !store_->Dependents(old->uid()).empty()) {
      Enqueue(Item{{}, "", old->uid()});
    }
    if (old) {
      for (const OwnerReference& ref : old->owner_references()) {
        GroupResource ogr;
        ObjectPtr owner = store_->FindByUid(ref.uid, &ogr);
        if (owner && owner->deleting()) Enqueue(Item{ogr, owner->Key(), ""});
      }
      if (gr == kNamespaces) return;
      // Namespace waiting for its content.
      if (!old->namespace_().empty()) {
        auto nso = store_->Get({"", "v1", "namespaces"}, "", old->namespace_());
        if (nso.ok() && (*nso)->deleting()) Enqueue(Item{kNamespaces, (*nso)->name(), ""});
      }
      // CRD waiting for its instances.
      if (!old->json().empty() && gr.group.find('.') != std::string::npos && gr != kCrds) {
        auto crd = store_->Get({"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, "",
                               gr.resource + "." + gr.group);
        if (crd.ok() && (*crd)->deleting()) Enqueue(Item{kCrds, (*crd)->name(), ""});
      }
    }
    return;
  }
  const bool owners_changed =
      !old || old->owner_references().size() != now->owner_references().size() ||
      !std::equal(old->owner_references().begin(), old->owner_references().end(),
                  now->owner_references().begin(),
                  [](const OwnerReference& a, const OwnerReference& b) { return a.uid == b.uid; });
  if (now->deleting() || (owners_changed && !now->owner_references().empty())) {
    Enqueue(Item{gr, now->Key(), ""});
  }
}

void GarbageCollector::Run() {
  std::unique_lock l(mu_);
  Clock* clock = store_->clock();
  while (!stop_) {
    const MonoTime now = clock->NowMonotonic();
    while (!timers_.empty() && timers_.begin()->first <= now) {
      Item it = timers_.begin()->second;
      timers_.erase(timers_.begin());
      if (queued_.insert(it.Id()).second) queue_.push_back(std::move(it));
    }
    if (queue_.empty()) {
      cv_.notify_all();  // WaitIdle
      if (timers_.empty()) {
        cv_.wait(l);
      } else {
        clock->WaitUntil(cv_, l, timers_.begin()->first);
      }
      continue;
    }
    Item item = std::move(queue_.front());
    queue_.pop_front();
    queued_.erase(item.Id());
    busy_ = true;
    l.unlock();
    Process(item);
    l.lock();
    busy_ = false;
  }
  cv_.notify_all();
}

void GarbageCollector::Process(const Item& item) {
  if (!item.owner_uid.empty()) {
    ProcessOwnerGone(item.owner_uid);
  } else {
    ProcessObject(item.gr, item.key);
  }
}

void GarbageCollector::ProcessOwnerGone(const std::string& uid) {
  for (const auto& [gr, dep] : store_->Dependents(uid)) {
    ProcessObject(gr, dep->Key());
  }
}

void GarbageCollector::ProcessObject(const GroupResource& gr, const std::string& key) {
  ResourcePtr r = store_->registry()->FindStorage(gr);
  if (!r) return;
  const auto [ns, name] = SplitKey(key);
  auto got = store_->Get(r->gvr(), ns, name);
  if (!got.ok()) return;
  ObjectPtr obj = *got;
  const WriteOptions wo = GcWriteOptions();

  if (obj->deleting()) {
    if (gr == kNamespaces) {
      FinishNamespace(obj);
      return;
    }
    if (gr == kCrds && obj->HasFinalizer("customresourcecleanup.apiextensions.k8s.io")) {
      FinishCrd(obj);
      return;
    }
    if (obj->HasFinalizer("orphan")) {
      for (const auto& [dgr, dep] : store_->Dependents(obj->uid())) {
        ResourcePtr dr = store_->registry()->FindStorage(dgr);
        if (!dr) continue;
        store_
            ->Mutate(
                dr->gvr(), dep->namespace_(), dep->name(),
                [&](MutableObject& m) -> Status {
                  Json* refs = Path(m.doc(), {"metadata", "ownerReferences"});
                  if (refs == nullptr || !refs->IsArray()) return Status::OK();
                  for (auto it = refs->Begin(); it != refs->End();) {
                    if (GetStr(*it, {"uid"}) == obj->uid()) {
                      it = refs->Erase(it);
                    } else {
                      ++it;
                    }
                  }
                  if (refs->Empty()) RemoveMember(*Member(m.doc(), "metadata"), "ownerReferences");
                  return Status::OK();
                },
                wo)
            .status()
            .IgnoreError();
      }
      store_
          ->Mutate(
              r->gvr(), ns, name, [](MutableObject& m) { return RemoveFinalizer(m, "orphan"); }, wo)
          .status()
          .IgnoreError();
      return;
    }
    if (obj->HasFinalizer("foregroundDeletion")) {
      bool blocking = false;
      for (const auto& [dgr, dep] : store_->Dependents(obj->uid())) {
        ResourcePtr dr = store_->registry()->FindStorage(dgr);
        if (!dr) continue;
        for (const OwnerReference& ref : dep->owner_references()) {
          if (ref.uid == obj->uid() && ref.block_owner_deletion) blocking = true;
        }
        if (!dep->deleting()) {
          DeleteOptions d;
          d.propagation_policy = "Foreground";
          store_->Delete(dr->gvr(), dep->namespace_(), dep->name(), d).status().IgnoreError();
        }
      }
      // Re-read: dependents deleted immediately no longer block.
      blocking = false;
      for (const auto& [dgr, dep] : store_->Dependents(obj->uid())) {
        for (const OwnerReference& ref : dep->owner_references()) {
          if (ref.uid == obj->uid() && ref.block_owner_deletion) blocking = true;
        }
      }
      if (!blocking) {
        store_
            ->Mutate(
                r->gvr(), ns, name,
                [](MutableObject& m) { return RemoveFinalizer(m, "foregroundDeletion"); }, wo)
            .status()
            .IgnoreError();
      }
      return;
    }
    if (gr == kPods) {
      // Graceful pod deletion: with no kubelet to confirm, remove it when the grace period ends.
      auto doc = Parse(obj->json());
      if (!doc.ok()) return;
      const int64_t grace = GetInt(*doc, {"metadata", "deletionGracePeriodSeconds"}).value_or(0);
      auto ts = ParseRfc3339(GetStr(*doc, {"metadata", "deletionTimestamp"}));
      const auto& has_kubelet = store_->options_.node_has_kubelet;
      if (grace > 0 && ts.ok() && obj->finalizers().empty() &&
          store_->options_.complete_graceful_deletion &&
          !(has_kubelet && has_kubelet(obj->Field("spec.nodeName")))) {
        Clock* clock = store_->clock();
        const WallTime wall = clock->Now();
        if (*ts > wall) {
          EnqueueAfter(Item{gr, key, ""}, clock->NowMonotonic() + (*ts - wall));
          return;
        }
        DeleteOptions d;
        d.grace_period_seconds = 0;
        d.precondition_uid = obj->uid();
        store_->Delete(r->gvr(), ns, name, d).status().IgnoreError();
      }
    }
    return;
  }

  // Dangling owner references: delete the object when every owner is gone, else drop the
  // dangling references.
  if (obj->owner_references().empty()) return;
  std::vector<std::string> missing;
  for (const OwnerReference& ref : obj->owner_references()) {
    if (!store_->FindByUid(ref.uid)) missing.push_back(ref.uid);
  }
  if (missing.empty()) return;
  if (missing.size() == obj->owner_references().size()) {
    // If any owner that went away was being deleted with Orphan it removed its reference
    // already; what remains is a plain dependent: delete it in the background.
    DeleteOptions d;
    d.precondition_uid = obj->uid();
    d.propagation_policy = "Background";
    store_->Delete(r->gvr(), ns, name, d).status().IgnoreError();
    return;
  }
  store_
      ->Mutate(
          r->gvr(), ns, name,
          [&](MutableObject& m) -> Status {
            Json* refs = Path(m.doc(), {"metadata", "ownerReferences"});
            if (refs == nullptr || !refs->IsArray()) return Status::OK();
            for (auto it = refs->Begin(); it != refs->End();) {
              if (std::find(missing.begin(), missing.end(), GetStr(*it, {"uid"})) !=
                  missing.end()) {
                it = refs->Erase(it);
              } else {
                ++it;
              }
            }
            return Status::OK();
          },
          wo)
      .status()
      .IgnoreError();
}

void GarbageCollector::FinishNamespace(const ObjectPtr& ns) {
  const WriteOptions wo = GcWriteOptions();
  bool remaining = false;
  for (const ResourcePtr& r : store_->registry()->All()) {
    if (!r->namespaced || r->version != r->storage_version || r->gr() != r->storage) continue;
    auto list = store_->List(r->gvr(), ns->name(), {});
    if (!list.ok()) continue;
    for (const ObjectPtr& o : list->items) {
      remaining = true;
      if (o->deleting()) continue;
      DeleteOptions d;
      d.propagation_policy = "Background";
      store_->Delete(r->gvr(), o->namespace_(), o->name(), d).status().IgnoreError();
    }
  }
  if (remaining) {
    // Re-check: content with finalizers keeps the namespace Terminating.
    for (const ResourcePtr& r : store_->registry()->All()) {
      if (!r->namespaced || r->version != r->storage_version || r->gr() != r->storage) continue;
      auto list = store_->List(r->gvr(), ns->name(), {});
      if (list.ok() && !list->items.empty()) return;
    }
  }
  // Content gone: drop the "kubernetes" finalizer; then the namespace is removed.
  store_
      ->Mutate(
          {"", "v1", "namespaces"}, "", ns->name(),
          [](MutableObject& m) -> Status {
            Json* spec = Member(m.doc(), "spec");
            if (spec != nullptr) RemoveMember(*spec, "finalizers");
            return Status::OK();
          },
          wo)
      .status()
      .IgnoreError();
  DeleteOptions d;
  store_->Delete({"", "v1", "namespaces"}, "", ns->name(), d).status().IgnoreError();
}

void GarbageCollector::FinishCrd(const ObjectPtr& crd) {
  // The CRD's storage resource: "<plural>.<group>".
  const size_t dot = crd->name().find('.');
  if (dot == std::string::npos) return;
  const GroupResource gr{crd->name().substr(dot + 1), crd->name().substr(0, dot)};
  ResourcePtr r = store_->registry()->FindStorage(gr);
  if (r) {
    auto list = store_->List(r->gvr(), "", {});
    if (list.ok()) {
      bool remaining = !list->items.empty();
      for (const ObjectPtr& o : list->items) {
        if (o->deleting()) continue;
        store_->Delete(r->gvr(), o->namespace_(), o->name(), {}).status().IgnoreError();
      }
      if (remaining && store_->Count(gr) > 0) return;
    }
  }
  store_
      ->Mutate(
          {"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, "", crd->name(),
          [](MutableObject& m) {
            return RemoveFinalizer(m, "customresourcecleanup.apiextensions.k8s.io");
          },
          GcWriteOptions())
      .status()
      .IgnoreError();
}

}  // namespace kai::localkube
