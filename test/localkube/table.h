// Internal: server-side printing (meta.k8s.io/v1 Table) with the real server's columns for the
// built-in kinds and CRD additionalPrinterColumns. Include only from .cc files.
#pragma once

#include <string>
#include <vector>

#include "kube/base/clock.h"
#include "test/localkube/json.h"
#include "test/localkube/resource.h"

namespace kai::localkube {

struct TableColumn {
  std::string name;
  std::string type;
  std::string format;
  std::string description;
  int priority = 0;
};

std::vector<TableColumn> TableColumns(const ResourceInfo& r);
// Appends the cells of one object (a JSON array) to `out`.
void AppendTableCells(const ResourceInfo& r, const Json& obj, WallTime now, std::string* out);
// duration.HumanDuration from k8s.io/apimachinery.
std::string HumanDuration(Duration d);
// Evaluates a simple kubectl JSONPath (".spec.x", ".a[0].b", ".a[*].b") to text.
std::string EvalJsonPath(const Json& obj, const std::string& path);

}  // namespace kai::localkube
