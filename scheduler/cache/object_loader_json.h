// The snapshot reader for callers that already hold a parsed document (this header includes
// RapidJSON: .cc files only), so an object is not written out and parsed again.
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "scheduler/cache/object_loader.h"

namespace kai::scheduler {

// Adds one object (or List) to `out`, read as LoadObjectJson reads it; errors start with `where`.
Status AddObjectValue(const rapidjson::Value& object, const std::string& where, LoadedObjects* out);

}  // namespace kai::scheduler
