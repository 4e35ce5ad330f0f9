// Reads the scheduler's debug snapshot (/get-snapshot: a zip holding snapshot.json, or the
// extracted snapshot.json) for `kai-scheduler simulate --snapshot`: rawObjects become the object
// stream simulate loads, "config" the scheduler configuration and "schedulerParams" the flags.
// Snapshots taken from upstream KAI (deflated zips, objects without apiVersion/kind) load too.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/statusor.h"
#include "scheduler/cache/object_loader.h"
#include "scheduler/conf/scheduler_conf.h"

namespace kai::scheduler {

struct DebugSnapshot {
  LoadedObjects objects;
  std::optional<SchedulerConfiguration> conf;  // absent when the snapshot has no "config"
  std::optional<SchedulerParams> params;       // absent without "schedulerParams"
  std::vector<std::string> warnings;           // objects of kinds simulate does not model
};

// A JSON object with a top-level "rawObjects" member (cheap check, then a parse).
bool LooksLikeSnapshotJson(std::string_view text);

// snapshot.json. Errors name the part: "rawObjects.pods[3]: Pod ns/p: spec...: ...",
// "config: ...", "schedulerParams.schedulePeriod: ...".
StatusOr<DebugSnapshot> LoadSnapshotJson(std::string_view json);
// The zip: "no entry snapshot.json", "truncated zip: ...", "CRC mismatch in snapshot.json", or
// the snapshot.json errors prefixed by "snapshot.json: ".
StatusOr<DebugSnapshot> LoadSnapshotZip(std::string_view zip);

// Reads schedulerParams (KAI's JSON, durations in nanoseconds or Go duration strings); members
// that are absent keep the defaults.
StatusOr<SchedulerParams> ParseSchedulerParamsJson(std::string_view json);

}  // namespace kai::scheduler
