// Built-in resources the store's unit tests read and write.
#pragma once

#include "test/localkube/resource.h"

namespace kai::localkube::testing {

inline const GroupVersionResource kNs{"", "v1", "namespaces"};
inline const GroupVersionResource kCms{"", "v1", "configmaps"};
inline const GroupVersionResource kPods{"", "v1", "pods"};
inline const GroupVersionResource kDeploys{"apps", "v1", "deployments"};

}  // namespace kai::localkube::testing
