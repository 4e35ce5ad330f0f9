// Test helper for JobsOrderByQueues (job_order.h).
#pragma once

#include <string>
#include <vector>

#include "scheduler/actions/common/job_order.h"

namespace kai::scheduler::testing {

// The names of the jobs `q` pops, in order, until it is empty.
inline std::vector<std::string> PopAll(JobsOrderByQueues* q) {
  std::vector<std::string> out;
  while (PodGroupInfo* j = q->PopNextJob()) out.push_back(j->name());
  return out;
}

}  // namespace kai::scheduler::testing
