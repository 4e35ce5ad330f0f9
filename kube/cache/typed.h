// Typed decoders for informers: every cached object carries a decoded api/ type, built once.
//
//   auto* pods = factory.InformerFor<api::Pod>();               // JSON + typed view
//   auto* lean = factory.InformerFor<api::Pod>(/*keep_json=*/false);  // typed view only
//   pods->AddEventHandler({.on_add = [](const ObjectPtr& o, bool) {
//     const api::Pod& pod = *o->As<api::Pod>(); ... }});
#pragma once

#include <memory>
#include <string>

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

}  // namespace kai::kube
