#include "test/localkube/resource.h"

#include <algorithm>

namespace kai::localkube {

void ResourceRegistry::Add(ResourcePtr r) {
  std::unique_lock l(mu_);
  if (std::find(group_order_.begin(), group_order_.end(), r->group) == group_order_.end()) {
    group_order_.push_back(r->group);
  }
  auto& versions = group_versions_[r->group];
  if (std::find(versions.begin(), versions.end(), r->version) == versions.end()) {
    versions.push_back(r->version);
  }
  by_gvr_[r->gvr()] = std::move(r);
  ++generation_;
}

void ResourceRegistry::RemoveCrd(const std::string& crd_name) {
  std::unique_lock l(mu_);
  std::string group;
  for (auto it = by_gvr_.begin(); it != by_gvr_.end();) {
    if (it->second->crd_name == crd_name) {
      group = it->second->group;
      it = by_gvr_.erase(it);
    } else {
      ++it;
    }
  }
  if (group.empty()) return;
  // Drop versions (and the group) that no longer serve anything.
  auto& versions = group_versions_[group];
  versions.erase(std::remove_if(versions.begin(), versions.end(),
                                [&](const std::string& v) {
                                  for (const auto& [gvr, _] : by_gvr_) {
                                    if (gvr.group == group && gvr.version == v) return false;
                                  }
                                  return true;
                                }),
                 versions.end());
  if (versions.empty()) {
    group_versions_.erase(group);
    group_order_.erase(std::remove(group_order_.begin(), group_order_.end(), group),
                       group_order_.end());
  }
  ++generation_;
}

ResourcePtr ResourceRegistry::Find(std::string_view group, std::string_view version,
                                   std::string_view resource) const {
  std::shared_lock l(mu_);
  auto it = by_gvr_.find(
      GroupVersionResource{std::string(group), std::string(version), std::string(resource)});
  return it == by_gvr_.end() ? nullptr : it->second;
}

ResourcePtr ResourceRegistry::FindByKind(std::string_view group, std::string_view version,
                                         std::string_view kind) const {
  std::shared_lock l(mu_);
  for (const auto& [gvr, r] : by_gvr_) {
    if (gvr.group == group && gvr.version == version && r->kind == kind) return r;
  }
  return nullptr;
}

ResourcePtr ResourceRegistry::FindStorage(const GroupResource& gr) const {
  std::shared_lock l(mu_);
  for (const auto& [gvr, r] : by_gvr_) {
    if (r->group == gr.group && r->resource == gr.resource && r->storage == gr &&
        r->version == r->storage_version) {
      return r;
    }
  }
  return nullptr;
}

std::vector<ResourcePtr> ResourceRegistry::All() const {
  std::shared_lock l(mu_);
  std::vector<ResourcePtr> out;
  for (const std::string& g : group_order_) {
    auto vit = group_versions_.find(g);
    if (vit == group_versions_.end()) continue;
    for (const std::string& v : vit->second) {
      for (auto it = by_gvr_.lower_bound(GroupVersionResource{g, v, ""});
           it != by_gvr_.end() && it->first.group == g && it->first.version == v; ++it) {
        out.push_back(it->second);
      }
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> ResourceRegistry::Groups() const {
  std::shared_lock l(mu_);
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const std::string& g : group_order_) {
    auto it = group_versions_.find(g);
    if (it != group_versions_.end()) out.emplace_back(g, it->second);
  }
  return out;
}

uint64_t ResourceRegistry::generation() const {
  std::shared_lock l(mu_);
  return generation_;
}

}  // namespace kai::localkube
