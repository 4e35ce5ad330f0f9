// A canonical text dump of a snapshot (ClusterInfo): every field a session reads, task pointers
// shown by key and checked to belong to the same snapshot. The incremental snapshot is checked
// against a full one by comparing dumps (debug builds, cluster_model_incremental_test).
#pragma once

#include <string>

#include "scheduler/api/cluster_info.h"

namespace kai::scheduler {

std::string DumpSnapshot(const ClusterInfo& c);

// "" when the dumps are equal, else the first differing line of each.
std::string FirstSnapshotDifference(const ClusterInfo& expected, const ClusterInfo& actual);

}  // namespace kai::scheduler
