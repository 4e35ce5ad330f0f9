#include "test/localkube/object_cache.h"

#include <algorithm>
#include <shared_mutex>

#include "test/localkube/store.h"

namespace kai::localkube {

struct ObjectCache::Shared {
  std::mutex mu;
  std::map<std::string, ObjectPtr> objects;
  // Keys removed, with the resourceVersion of their last state: a late observer call for an
  // older write must not resurrect them.
  std::unordered_map<std::string, uint64_t> tombstones;
  struct Index {
    IndexFn fn;
    std::unordered_map<std::string, std::set<std::string>> values;
  };
  std::map<std::string, Index> indexes;
  std::vector<Handler> handlers;
  // Handler calls hold it shared; Stop takes it exclusively so no call is in flight after.
  std::shared_mutex calls;
  bool active = false;
  ObjectCache* cache = nullptr;
};

ObjectCache::ObjectCache(Store* store, GroupVersionResource gvr)
    : store_(store), gvr_(std::move(gvr)), shared_(std::make_shared<Shared>()) {
  shared_->cache = this;
}

ObjectCache::~ObjectCache() {
  Stop();
  std::lock_guard l(shared_->mu);
  shared_->cache = nullptr;
}

void ObjectCache::AddHandler(Handler h) {
  std::lock_guard l(shared_->mu);
  shared_->handlers.push_back(std::move(h));
}

void ObjectCache::AddIndex(const std::string& name, IndexFn fn) {
  std::lock_guard l(shared_->mu);
  shared_->indexes[name].fn = std::move(fn);
}

Status ObjectCache::Start() {
  auto r = store_->Resolve(gvr_);
  if (!r.ok()) return r.status();
  storage_ = (*r)->storage;
  {
    std::lock_guard l(shared_->mu);
    shared_->active = true;
  }
  std::shared_ptr<Shared> shared = shared_;
  const GroupResource storage = storage_;
  store_->AddObserver(
      [shared, storage](const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now) {
        if (gr != storage) return;
        std::shared_lock calls(shared->calls);
        ObjectCache* cache = nullptr;
        {
          std::lock_guard l(shared->mu);
          if (!shared->active || shared->cache == nullptr) return;
          cache = shared->cache;
        }
        cache->Apply(old, now, /*from_list=*/false);
      });
  return Resync();
}

void ObjectCache::Stop() {
  {
    std::lock_guard l(shared_->mu);
    shared_->active = false;
  }
  std::unique_lock calls(shared_->calls);  // waits for handler calls in flight
}

void ObjectCache::Apply(const ObjectPtr& old, const ObjectPtr& now, bool from_list) {
  const ObjectPtr& any = now ? now : old;
  if (!any) return;
  const std::string key = any->Key();
  ObjectPtr deliver = now;
  {
    std::lock_guard l(shared_->mu);
    auto it = shared_->objects.find(key);
    const ObjectPtr cur = it == shared_->objects.end() ? nullptr : it->second;
    bool update = true;
    if (now) {
      if (cur && cur->resource_version() >= now->resource_version()) {
        // Older than what the cache has (a late observer call, or a list racing a write).
        if (!from_list) return;
        update = false;
        deliver = cur;
      } else {
        auto tomb = shared_->tombstones.find(key);
        if (tomb != shared_->tombstones.end() && tomb->second >= now->resource_version()) return;
      }
    } else if (!cur || cur->resource_version() > old->resource_version()) {
      return;  // already gone, or re-created since
    }
    if (update) {
      for (auto& [name, index] : shared_->indexes) {
        if (cur) {
          for (const std::string& v : index.fn(*cur)) {
            auto vit = index.values.find(v);
            if (vit == index.values.end()) continue;
            vit->second.erase(key);
            if (vit->second.empty()) index.values.erase(vit);
          }
        }
        if (now) {
          for (const std::string& v : index.fn(*now)) index.values[v].insert(key);
        }
      }
      if (now) {
        if (cur) {
          it->second = now;
        } else {
          shared_->objects.emplace(key, now);
        }
      } else {
        shared_->objects.erase(it);
        uint64_t& t = shared_->tombstones[key];
        t = std::max(t, old->resource_version());
      }
    }
    if (!shared_->active) return;
  }
  // Handlers are only added before Start, so the vector is stable here.
  const ObjectPtr prev = from_list ? deliver : old;
  for (const Handler& h : shared_->handlers) h(prev, deliver);
}

Status ObjectCache::Resync() {
  auto list = store_->List(gvr_, "", {});
  if (!list.ok()) return list.status();
  std::set<std::string> present;
  for (const ObjectPtr& o : list->items) {
    present.insert(o->Key());
    Apply(o, o, /*from_list=*/true);
  }
  // Objects removed before the list was taken (their removal was missed).
  std::vector<ObjectPtr> gone;
  {
    std::lock_guard l(shared_->mu);
    for (const auto& [key, o] : shared_->objects) {
      if (o->resource_version() <= list->resource_version && !present.count(key)) {
        gone.push_back(o);
      }
    }
    for (auto it = shared_->tombstones.begin(); it != shared_->tombstones.end();) {
      it = it->second <= list->resource_version ? shared_->tombstones.erase(it) : std::next(it);
    }
  }
  for (const ObjectPtr& o : gone) Apply(o, nullptr, /*from_list=*/false);
  return Status::OK();
}

ObjectPtr ObjectCache::Get(const std::string& key) const {
  std::lock_guard l(shared_->mu);
  auto it = shared_->objects.find(key);
  return it == shared_->objects.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> ObjectCache::ByIndex(const std::string& name,
                                            const std::string& value) const {
  std::vector<ObjectPtr> out;
  std::lock_guard l(shared_->mu);
  auto iit = shared_->indexes.find(name);
  if (iit == shared_->indexes.end()) return out;
  auto vit = iit->second.values.find(value);
  if (vit == iit->second.values.end()) return out;
  out.reserve(vit->second.size());
  for (const std::string& key : vit->second) {
    auto it = shared_->objects.find(key);
    if (it != shared_->objects.end()) out.push_back(it->second);
  }
  return out;
}

size_t ObjectCache::CountByIndex(const std::string& name, const std::string& value) const {
  std::lock_guard l(shared_->mu);
  auto iit = shared_->indexes.find(name);
  if (iit == shared_->indexes.end()) return 0;
  auto vit = iit->second.values.find(value);
  return vit == iit->second.values.end() ? 0 : vit->second.size();
}

std::vector<ObjectPtr> ObjectCache::List() const {
  std::vector<ObjectPtr> out;
  std::lock_guard l(shared_->mu);
  out.reserve(shared_->objects.size());
  for (const auto& [k, o] : shared_->objects) out.push_back(o);
  return out;
}

size_t ObjectCache::Size() const {
  std::lock_guard l(shared_->mu);
  return shared_->objects.size();
}

std::vector<std::string> ObjectCache::NodeNameIndex(const Object& o) {
  std::string_view n = o.Field("spec.nodeName");
  if (n.empty()) return {};
  return {std::string(n)};
}

std::vector<std::string> ObjectCache::ControllerUidIndex(const Object& o) {
  for (const OwnerReference& r : o.owner_references()) {
    if (r.controller) return {r.uid};
  }
  return {};
}

std::vector<std::string> ObjectCache::NamespaceIndex(const Object& o) { return {o.namespace_()}; }

}  // namespace kai::localkube
