// ReclaimerInfo / victim chunks: the inputs of the reclaim rules.
#pragma once

#include <string>
#include <vector>

#include "scheduler/plugins/proportion/resource_share/queue_table.h"

namespace kai::proportion {

struct ReclaimerInfo {
  std::string name;
  std::string namespace_name;
  QueueIndex queue = kNoQueue;  // the reclaimer's leaf queue
  bool is_preemptible = true;
  // Tasks-to-allocate resources (GPU-memory requests converted to GPUs, MIG counted as GPUs).
  ResourceQuantities required;
  // Resources the reclaimer "involves" in the saturation check. KAI tests the raw GPU entry of
  // the job's resource vector, which does not include MIG instances, so a MIG-only job does not
  // involve GPUs; callers compute the mask accordingly (Positive() for plain jobs).
  ResourceMask involved = 0;
};

// Resources taken from one victim queue by one eviction "chunk": a whole gang (the tasks up to
// each PodSet's minAvailable) or one elastic task above it.
struct VictimChunk {
  ResourceQuantities resources;
  ResourceMask involved = 0;  // as ReclaimerInfo::involved
};

// All chunks a scenario takes from one (leaf) victim queue, in eviction order.
struct VictimQueueChunks {
  QueueIndex queue = kNoQueue;
  std::vector<VictimChunk> chunks;
};

}  // namespace kai::proportion
