#include "kube/controller/handlers.h"

#include <set>

#include "kube/controller/controller.h"

namespace kai::controller {

std::string_view GroupOfApiVersion(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

MapFunc MapToObject() {
  return [](const api::ObjectMeta& m) { return std::vector<Request>{{m.namespace_, m.name}}; };
}

namespace {

MapFunc MapOwners(GroupKind owner, bool owner_namespaced, bool only_controller) {
  return [owner = std::move(owner), owner_namespaced, only_controller](const api::ObjectMeta& m) {
    std::vector<Request> out;
    for (const api::OwnerReference& ref : m.owner_references) {
      if (only_controller && !ref.controller.value_or(false)) continue;
      if (ref.kind != owner.kind || GroupOfApiVersion(ref.api_version) != owner.group) continue;
      out.push_back({owner_namespaced ? m.namespace_ : "", ref.name});
      if (only_controller) break;  // at most one controller reference
    }
    return out;
  };
}

}  // namespace

MapFunc MapToControllerOwner(GroupKind owner, bool owner_namespaced) {
  return MapOwners(std::move(owner), owner_namespaced, /*only_controller=*/true);
}

MapFunc MapToOwners(GroupKind owner, bool owner_namespaced) {
  return MapOwners(std::move(owner), owner_namespaced, /*only_controller=*/false);
}

Predicate GenerationChangedPredicate() {
  return {.update = [](const api::ObjectMeta& o, const api::ObjectMeta& n) {
    return o.generation != n.generation;
  }};
}

Predicate ResourceVersionChangedPredicate() {
  return {.update = [](const api::ObjectMeta& o, const api::ObjectMeta& n) {
    return o.resource_version != n.resource_version;
  }};
}

Predicate LabelChangedPredicate() {
  return {.update = [](const api::ObjectMeta& o, const api::ObjectMeta& n) {
    return o.labels != n.labels;
  }};
}

Predicate AnnotationChangedPredicate() {
  return {.update = [](const api::ObjectMeta& o, const api::ObjectMeta& n) {
    return o.annotations != n.annotations;
  }};
}

EnqueueHandler::EnqueueHandler(Enqueue enqueue, MapFunc map, std::vector<Predicate> predicates)
    : enqueue_(std::move(enqueue)), map_(std::move(map)), predicates_(std::move(predicates)) {}

EnqueueHandler::EnqueueHandler(Controller* controller, MapFunc map,
                               std::vector<Predicate> predicates)
    : EnqueueHandler([controller](const Request& r) { controller->Enqueue(r); }, std::move(map),
                     std::move(predicates)) {}

void EnqueueHandler::OnAdd(const api::ObjectMeta& obj) const {
  for (const auto& p : predicates_) {
    if (p.create && !p.create(obj)) return;
  }
  for (const Request& r : map_(obj)) enqueue_(r);
}

void EnqueueHandler::OnUpdate(const api::ObjectMeta& old_obj,
                              const api::ObjectMeta& new_obj) const {
  for (const auto& p : predicates_) {
    if (p.update && !p.update(old_obj, new_obj)) return;
  }
  // Ordered set: deterministic enqueue order, duplicates removed.
  std::set<Request> requests;
  for (Request& r : map_(new_obj)) requests.insert(std::move(r));
  for (Request& r : map_(old_obj)) requests.insert(std::move(r));
  for (const Request& r : requests) enqueue_(r);
}

void EnqueueHandler::OnDelete(const api::ObjectMeta& obj) const {
  for (const auto& p : predicates_) {
    if (p.del && !p.del(obj)) return;
  }
  for (const Request& r : map_(obj)) enqueue_(r);
}

}  // namespace kai::controller
