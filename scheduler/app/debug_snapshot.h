// snapshot.json of the scheduler's debug endpoint /get-snapshot (KAI's snapshot plugin,
// reference §22.5): the effective configuration, the decision-shaping flags and the informer
// caches' raw objects, so that `kai-scheduler simulate --snapshot` can replay one cluster state.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kube/base/statusor.h"
#include "scheduler/conf/scheduler_conf.h"

namespace kai::scheduler {

// One watched kind: the informer resource, its rawObjects list name and the apiVersion/kind
// filled into objects that arrive without them (list and watch items often do).
struct RawObjectKind {
  const char* resource;  // "podgroups"
  const char* list;      // "podGroups"
  const char* api_version;
  const char* kind;
};
const std::vector<RawObjectKind>& SnapshotRawObjectKinds();
// rawObjects lists KAI has for kinds this port does not watch (always written empty).
const std::vector<std::string>& UnwatchedRawObjectLists();
// The entry of a resource ("podgroups") or of a list name ("podGroups"); null when unknown.
const RawObjectKind* RawObjectKindOf(const std::string& resource_or_list);

// Informer resource ("pods") -> the cached objects' JSON (shared with the cache, never copied
// under the model lock).
using RawObjectLists = std::map<std::string, std::vector<std::shared_ptr<const std::string>>>;

// The configuration as KAI's config.yaml / snapshot "config" has it: {"actions": "a, b",
// "tiers": [{"plugins": [{"name", "arguments"}]}], "queueDepthPerAction"}.
std::string SchedulerConfigurationJson(const SchedulerConfiguration& conf);
// The flags as KAI's SchedulerParams JSON (durations in nanoseconds, partitionParams with
// NodePoolLabelKey/NodePoolLabelValue) plus this port's extra label keys.
std::string SchedulerParamsJson(const SchedulerParams& params);

// snapshot.json = {"config", "schedulerParams", "rawObjects"}. Objects are written as received
// with apiVersion and kind set; every list is present (empty when nothing is cached). An object
// that is not valid JSON is an error naming it.
StatusOr<std::string> BuildSnapshotJson(const SchedulerConfiguration& conf,
                                        const SchedulerParams& params, const RawObjectLists& raw);
// The zip /get-snapshot serves: one stored entry "snapshot.json".
StatusOr<std::string> BuildSnapshotZip(const SchedulerConfiguration& conf,
                                       const SchedulerParams& params, const RawObjectLists& raw);

}  // namespace kai::scheduler
