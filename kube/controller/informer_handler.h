// InformerHandler: plugs an EnqueueHandler into a kube::SharedInformer.
//
//   pods->AddEventHandler(InformerHandler<api::Pod>(
//       EnqueueHandler(&controller, MapToControllerOwner({"batch", "Job"}))));
//
// With T, the metadata of the informer's typed view is used (owner references, labels,
// generation); without a typed view (RawDecoder, or T = void) the handler sees what every cached
// object knows: namespace, name, resourceVersion and uid (enough for MapToObject). Tombstones
// (deletes noticed on relist) carry the last known object, so they map like any delete.
#pragma once

#include <memory>
#include <type_traits>

#include "api/meta.h"
#include "kube/cache/informer.h"
#include "kube/controller/handlers.h"

namespace kai::controller {

// Namespace, name, resourceVersion and uid of a cached object.
api::ObjectMeta MinimalMeta(const kube::Object& object);

// Calls `f(meta)` with the typed view's metadata (no copy) or the minimal metadata.
template <class T, class F>
void WithMeta(const kube::ObjectPtr& object, F&& f) {
  if constexpr (!std::is_void_v<T>) {
    if (const T* typed = object->As<T>()) {
      f(typed->metadata);
      return;
    }
  }
  f(MinimalMeta(*object));
}

template <class T = void>
kube::ResourceEventHandler InformerHandler(EnqueueHandler handler) {
  auto h = std::make_shared<const EnqueueHandler>(std::move(handler));
  kube::ResourceEventHandler out;
  out.on_add = [h](const kube::ObjectPtr& o, bool) {
    WithMeta<T>(o, [&](const api::ObjectMeta& m) { h->OnAdd(m); });
  };
  out.on_update = [h](const kube::ObjectPtr& old_obj, const kube::ObjectPtr& new_obj) {
    WithMeta<T>(old_obj, [&](const api::ObjectMeta& o) {
      WithMeta<T>(new_obj, [&](const api::ObjectMeta& n) { h->OnUpdate(o, n); });
    });
  };
  out.on_delete = [h](const kube::ObjectPtr& o, bool) {
    WithMeta<T>(o, [&](const api::ObjectMeta& m) { h->OnDelete(m); });
  };
  return out;
}

}  // namespace kai::controller
