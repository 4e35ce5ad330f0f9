// Registry of the typed kinds: where each lives in the API (group, version, kind, plural,
// scope). Used to build REST paths, route requests in localkube, and map list/watch payloads to
// C++ types.
#pragma once

#include <span>
#include <string_view>

#include "api/type_info.h"

namespace kai::api {

// Every top-level type of api/ with a codec, in a fixed order (core kinds, then KAI's).
std::span<const TypeInfo> AllKinds();

// By apiVersion ("v1", "scheduling.run.ai/v2") and kind ("Pod"); nullptr when unknown.
const TypeInfo* FindKind(std::string_view api_version, std::string_view kind);

// By group ("" for core) and plural resource name ("pods", "podgroups"); nullptr when unknown.
// An empty version matches any version.
const TypeInfo* FindResource(std::string_view group, std::string_view resource,
                             std::string_view version = {});

}  // namespace kai::api
