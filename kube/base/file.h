// Whole-file reads and atomic writes, with errors as Status.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai {

StatusOr<std::string> ReadFile(const std::string& path);
// Writes to a temporary file in the same directory and renames it over `path`.
Status WriteFileAtomic(const std::string& path, std::string_view contents, int mode = 0644);

}  // namespace kai
