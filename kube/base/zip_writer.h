// ZipWriter: builds a zip archive in memory with stored (uncompressed) entries — local headers,
// data, central directory, end record — as the scheduler's /get-snapshot endpoint serves it.
// Entries carry a fixed timestamp (1980-01-01 00:00) so identical input gives identical bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/statusor.h"

namespace kai {

// CRC-32 (IEEE 802.3, as zip and gzip use it).
uint32_t Crc32(std::string_view data);

class ZipWriter {
 public:
  // Appends one entry. Names are used as given ("dir/file.json"). The archive is limited to the
  // classic (non-zip64) format: entries and archive below 4 GiB, at most 65534 entries, names
  // up to 65535 bytes; an entry past a limit is not written and Finish reports it.
  void Add(std::string_view name, std::string_view data);
  // The archive bytes, or ResourceExhausted naming the first entry that did not fit the format.
  // The writer can not be used afterwards.
  StatusOr<std::string> Finish();

 private:
  struct Entry {
    std::string name;
    uint32_t crc = 0;
    uint32_t size = 0;
    uint32_t offset = 0;
  };
  std::string out_;
  std::vector<Entry> entries_;
  uint64_t central_size_ = 0;  // bytes Finish will write for the central directory
  Status error_;
};

}  // namespace kai
