// Internal: metadata.managedFields bookkeeping and server-side apply. Include only from .cc.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/clock.h"
#include "kube/base/status.h"
#include "test/localkube/json.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

// The manager name the real server derives when a request names none: the user agent up to
// its first '/', or "unknown".
std::string ManagerFromUserAgent(std::string_view user_agent);

// Records that `manager` (operation Update) now owns the fields it changed from `old_obj`
// (null on create) to `obj`, and removes those fields from other managers' sets. `obj` is
// edited in place (metadata.managedFields). `subresource` is "" or "status".
void RecordUpdate(const ResourceInfo& r, const Json* old_obj, Json& obj, JsonAlloc& a,
                  std::string_view manager, std::string_view subresource, WallTime now);

// Server-side apply: merges `applied` (the configuration) into `obj` (a copy of the live object,
// or an empty object on create) for `manager`. Fields the manager applied before but omits now
// are removed unless someone else also owns them. Conflicts with other managers' fields give
// 409 Conflict with causes unless `force`.
Status ServerSideApply(const ResourceInfo& r, Json& obj, const Json& applied, JsonAlloc& a,
                       std::string_view manager, bool force, std::string_view subresource,
                       WallTime now);

}  // namespace kai::localkube
