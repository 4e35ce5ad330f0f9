// Event -> Request mapping for informer handlers (controller-runtime pkg/handler and
// pkg/predicate), as plain functions over api::ObjectMeta so that any informer can call them:
//
//   EnqueueHandler pods(&controller, MapToControllerOwner({"scheduling.run.ai", "PodGroup"}));
//   informer.AddHandler({.on_add = [&](const Pod& p, bool) { pods.OnAdd(p.metadata); }, ...});
//
// - MapToObject: the object itself (EnqueueRequestForObject).
// - MapToControllerOwner(gk): the owner reference with controller=true whose group and kind
//   match (EnqueueRequestForOwner with OnlyControllerOwner); MapToOwners(gk): every matching
//   owner.
// - Any MapFunc (EnqueueRequestsFromMapFunc).
// Updates enqueue the requests of the old and the new object (deduplicated), so a change of
// owner reaches both. Predicates filter events before mapping.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "kube/controller/request.h"

namespace kai::controller {

class Controller;

struct GroupKind {
  std::string group;  // "" for core
  std::string kind;
};

using MapFunc = std::function<std::vector<Request>(const api::ObjectMeta&)>;

// The group of an apiVersion: "apps/v1" -> "apps", "v1" -> "".
std::string_view GroupOfApiVersion(std::string_view api_version);

MapFunc MapToObject();
// `owner_namespaced` false for cluster-scoped owner kinds (Queue, Node): requests get no
// namespace.
MapFunc MapToControllerOwner(GroupKind owner, bool owner_namespaced = true);
MapFunc MapToOwners(GroupKind owner, bool owner_namespaced = true);

// Filters (controller-runtime predicate.Funcs). A null function lets the event through.
struct Predicate {
  std::function<bool(const api::ObjectMeta&)> create;
  std::function<bool(const api::ObjectMeta& old_obj, const api::ObjectMeta& new_obj)> update;
  std::function<bool(const api::ObjectMeta&)> del;
};
// Updates only when metadata.generation changed (spec changes of kinds with a status
// subresource).
Predicate GenerationChangedPredicate();
// Updates only when metadata.resourceVersion changed (drops resyncs).
Predicate ResourceVersionChangedPredicate();
Predicate LabelChangedPredicate();
Predicate AnnotationChangedPredicate();

class EnqueueHandler {
 public:
  using Enqueue = std::function<void(const Request&)>;
  EnqueueHandler(Enqueue enqueue, MapFunc map, std::vector<Predicate> predicates = {});
  EnqueueHandler(Controller* controller, MapFunc map, std::vector<Predicate> predicates = {});

  void OnAdd(const api::ObjectMeta& obj) const;
  void OnUpdate(const api::ObjectMeta& old_obj, const api::ObjectMeta& new_obj) const;
  // For a tombstone (delete seen only on relist) pass the last known object.
  void OnDelete(const api::ObjectMeta& obj) const;

 private:
  Enqueue enqueue_;
  MapFunc map_;
  std::vector<Predicate> predicates_;
};

}  // namespace kai::controller
