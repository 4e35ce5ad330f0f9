// Reads a zip archive held in memory through its central directory (as Go's archive/zip writes
// them: data descriptors, sizes only in the central directory). Stored and, when built with
// zlib, deflated entries; every entry's CRC-32 is checked. Corrupt or truncated archives are
// errors, never a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/base/statusor.h"

namespace kai {

struct ZipEntry {
  std::string name;
  std::string data;
};

// All entries in central-directory order. Errors: "truncated zip", "not a zip archive",
// "CRC mismatch in <name>", "<name>: unsupported compression method N" ...
StatusOr<std::vector<ZipEntry>> ReadZip(std::string_view archive);

// One entry's data; NotFound "no entry <name>" when the archive lacks it.
StatusOr<std::string> ReadZipEntry(std::string_view archive, std::string_view name);

// The archive starts with a local file header ("PK\3\4").
bool LooksLikeZip(std::string_view data);

}  // namespace kai
