// A minimal strategic merge patch (Content-Type application/strategic-merge-patch+json) writer
// and applier, for built-in kinds. KAI's scheduler patches pod status conditions this way
// (strategicpatch.CreateTwoWayMergePatch with v1.Pod).
//
// Only what the merge keys table says is "strategic": lists listed there merge element-wise by
// their key (conditions by "type", containers by "name" ...); every other list is replaced, maps
// merge recursively and null deletes, as in a JSON merge patch. Directives understood:
// `$patch: delete` on a keyed list element, `$patch: replace` on a map, `$setElementOrder/<list>`
// and `$retainKeys` are accepted (order is honoured; retainKeys is ignored).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::kube {

// Dotted path of a list field (list elements add no segment) -> its patchMergeKey.
// e.g. {"status.conditions", "type"}, {"spec.containers", "name"}, {"spec.containers.env",
// "name"}. A value of "" marks a set of primitives merged by value (finalizers).
using MergeKeys = std::map<std::string, std::string, std::less<>>;

// core/v1 Pod's merge keys for the lists KAI touches (conditions, containers, env, ports,
// volumes, volumeMounts, tolerations are atomic...).
const MergeKeys& PodMergeKeys();

// The two-way strategic merge patch from `original` to `modified` ("{}" when equal): changed
// keyed elements carry their key plus the changed fields, removed ones `$patch: delete`, and a
// `$setElementOrder/<list>` keeps the new order.
StatusOr<std::string> CreateStrategicMergePatch(std::string_view original,
                                                std::string_view modified,
                                                const MergeKeys& keys = PodMergeKeys());

StatusOr<std::string> ApplyStrategicMergePatch(std::string_view document, std::string_view patch,
                                               const MergeKeys& keys = PodMergeKeys());

// The strategic patch that sets one pod status condition (merged by type into the existing
// ones): {"status":{"conditions":[{"type":...,"status":...,...}]}}. `condition_json` is the
// full v1.PodCondition object.
StatusOr<std::string> PodConditionPatch(std::string_view condition_json);

}  // namespace kai::kube
