// Typed decoders for informers: every cached object carries a decoded api/ type, built once.
//
//   auto* pods = factory.InformerFor<api::Pod>();               // JSON + typed view
//   auto* lean = factory.InformerFor<api::Pod>(/*keep_json=*/false);  // typed view only
//   pods->AddEventHandler({.on_add = [](const ObjectPtr& o, bool) {
//     const api::Pod& pod = *o->As<api::Pod>(); ... }});
//   // decoded on first As<api::Pod>(); spec.nodeName and the labels read with the metadata:
//   auto* lazy = factory.InformerFor(GvrOf<api::Pod>(),
//                                    LazyTypedDecoder<api::Pod>({{"spec", "nodeName"}}, true));
#pragma once

#include <memory>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "api/codec.h"
#include "kube/cache/object.h"

namespace kai::kube {

template <class T>
Decoder TypedDecoder(bool keep_json = true) {
  return [keep_json](std::string json) -> StatusOr<ObjectPtr> {
    auto obj = std::make_shared<T>();
    KAI_RETURN_IF_ERROR(DecodeJson(json, obj.get()));
    // The decoder kept the text as the typed object's RawDocument: share that one buffer.
    std::shared_ptr<const std::string> text = obj->raw.json;
    if (!keep_json) {
      obj->raw.json.reset();
      text.reset();
    }
    return MakeTypedObject<T>(std::shared_ptr<const T>(std::move(obj)), std::move(text));
  };
}

// Keeps the JSON and decodes the typed view on the first Object::As<T>() instead of for every
// event: for caches whose handlers need only a few objects typed. `fields` (read with the
// metadata, Object::field(i)) and `labels` (Object::labels()) serve handlers, indexes and
// selectors without the decode. As<T>() returns an object equal to TypedDecoder<T>'s.
template <class T>
Decoder LazyTypedDecoder(std::vector<FieldPath> fields = {}, bool labels = false) {
  return ScanningDecoder(
      std::move(fields), labels, &typeid(T),
      [](const std::shared_ptr<const std::string>& json) -> StatusOr<std::shared_ptr<const void>> {
        auto obj = std::make_shared<T>();
        KAI_RETURN_IF_ERROR(DecodeJson(*json, obj.get()));
        obj->raw.json = json;  // the same text: share the object's buffer instead of a copy
        return std::shared_ptr<const void>(std::shared_ptr<const T>(std::move(obj)));
      });
}

}  // namespace kai::kube
