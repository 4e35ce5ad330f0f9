#include "kube/cache/store.h"

#include <iterator>
#include <utility>

namespace kai::kube {

Indexer::Indexer() {
  funcs_[kNamespaceIndex] = [](const Object& o) -> std::vector<std::string> {
    return {std::string(o.namespace_())};
  };
  indexes_[kNamespaceIndex];
}

Status Indexer::AddIndex(const std::string& name, IndexFunc fn) {
  std::unique_lock<std::shared_mutex> l(mu_);
  if (funcs_.count(name) > 0) return AlreadyExistsError("index \"" + name + "\" already exists");
  funcs_[name] = std::move(fn);
  Index& idx = indexes_[name];
  for (const auto& [key, obj] : items_) AddToIndex(&idx, funcs_[name](*obj), obj.get());
  return Status::OK();
}

void Indexer::AddToIndex(Index* idx, std::vector<std::string> values, const Object* obj) {
  for (std::string& v : values) (*idx)[std::move(v)].insert(obj);
}

void Indexer::RemoveFromIndex(Index* idx, const std::vector<std::string>& values,
                              const Object* obj) {
  for (const std::string& v : values) {
    auto it = idx->find(v);
    if (it == idx->end()) continue;
    it->second.erase(obj);
    if (it->second.empty()) idx->erase(it);
  }
}

void Indexer::IndexLocked(const Object* obj) {
  for (auto& [name, fn] : funcs_) AddToIndex(&indexes_[name], fn(*obj), obj);
}

void Indexer::UnindexLocked(const Object* obj) {
  for (auto& [name, fn] : funcs_) RemoveFromIndex(&indexes_[name], fn(*obj), obj);
}

void Indexer::ReindexLocked(const Object* old, const Object* now) {
  for (auto& [name, fn] : funcs_) {
    Index& idx = indexes_[name];
    std::vector<std::string> before = fn(*old);
    std::vector<std::string> after = fn(*now);
    if (before != after) {
      RemoveFromIndex(&idx, before, old);
      AddToIndex(&idx, std::move(after), now);
      continue;
    }
    // Same values (a pod's namespace, usually its node): swap the pointer in place; the sets
    // are ordered by key, which is the same.
    for (const std::string& v : after) {
      auto it = idx.find(v);
      if (it == idx.end()) {
        idx[v].insert(now);
        continue;
      }
      auto& members = it->second;
      auto pos = members.find(old);
      if (pos == members.end()) {
        members.insert(now);
        continue;
      }
      auto next = std::next(pos);
      auto node = members.extract(pos);
      node.value() = now;
      members.insert(next, std::move(node));
    }
  }
}

ObjectPtr Indexer::ReplaceLocked(std::map<std::string, ObjectPtr, std::less<>>::iterator it,
                                 ObjectPtr obj) {
  ObjectPtr old = std::move(it->second);
  it->second = std::move(obj);
  if (old != nullptr) {
    ReindexLocked(old.get(), it->second.get());
  } else {
    IndexLocked(it->second.get());
  }
  return old;
}

ObjectPtr Indexer::Upsert(ObjectPtr obj) {
  std::unique_lock<std::shared_mutex> l(mu_);
  auto [it, inserted] = items_.try_emplace(obj->key(), nullptr);
  return ReplaceLocked(it, std::move(obj));
}

ObjectPtr Indexer::UpsertIfChanged(ObjectPtr obj, bool* stored) {
  std::unique_lock<std::shared_mutex> l(mu_);
  auto [it, inserted] = items_.try_emplace(obj->key(), nullptr);
  if (!inserted && it->second != nullptr &&
      it->second->resource_version() == obj->resource_version()) {
    *stored = false;
    return it->second;
  }
  *stored = true;
  return ReplaceLocked(it, std::move(obj));
}

ObjectPtr Indexer::Remove(const std::string& key) {
  std::unique_lock<std::shared_mutex> l(mu_);
  auto it = items_.find(key);
  if (it == items_.end()) return nullptr;
  ObjectPtr old = std::move(it->second);
  UnindexLocked(old.get());
  items_.erase(it);
  return old;
}

std::map<std::string, ObjectPtr, std::less<>> Indexer::Replace(std::vector<ObjectPtr> objects) {
  std::unique_lock<std::shared_mutex> l(mu_);
  std::map<std::string, ObjectPtr, std::less<>> old = std::move(items_);
  items_.clear();
  for (auto& [name, idx] : indexes_) idx.clear();
  for (ObjectPtr& o : objects) {
    const std::string& key = o->key();
    items_[key] = std::move(o);
  }
  for (const auto& [key, obj] : items_) IndexLocked(obj.get());
  return old;
}

ObjectPtr Indexer::Get(std::string_view key) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Indexer::List() const {
  std::shared_lock<std::shared_mutex> l(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, obj] : items_) out.push_back(obj);
  return out;
}

std::vector<std::string> Indexer::ListKeys() const {
  std::shared_lock<std::shared_mutex> l(mu_);
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& [key, obj] : items_) out.push_back(key);
  return out;
}

std::vector<ObjectPtr> Indexer::ByIndex(std::string_view index, std::string_view value) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  std::vector<ObjectPtr> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) return out;
  auto it = idx->second.find(value);
  if (it == idx->second.end()) return out;
  out.reserve(it->second.size());
  for (const Object* o : it->second) {
    auto item = items_.find(o->key());
    if (item != items_.end()) out.push_back(item->second);
  }
  return out;
}

std::vector<std::string> Indexer::IndexValues(std::string_view index) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  std::vector<std::string> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) return out;
  for (const auto& [v, keys] : idx->second) out.push_back(v);
  return out;
}

size_t Indexer::size() const {
  std::shared_lock<std::shared_mutex> l(mu_);
  return items_.size();
}

}  // namespace kai::kube
