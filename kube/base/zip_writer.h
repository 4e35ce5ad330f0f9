// ZipWriter: builds a zip archive in memory with stored (uncompressed) entries — local headers,
// data, central directory, end record — as the scheduler's /get-snapshot endpoint serves it.
// Entries carry a fixed timestamp (1980-01-01 00:00) so identical input gives identical bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kai {

// CRC-32 (IEEE 802.3, as zip and gzip use it).
uint32_t Crc32(std::string_view data);

class ZipWriter {
 public:
  // Appends one entry. Names are used as given ("dir/file.json"); the archive is limited to the
  // classic (non-zip64) format: entries and archive below 4 GiB, at most 65535 entries.
  void Add(std::string_view name, std::string_view data);
  // The archive bytes; the writer can not be used afterwards.
  std::string Finish();

 private:
  struct Entry {
    std::string name;
    uint32_t crc = 0;
    uint32_t size = 0;
    uint32_t offset = 0;
  };
  std::string out_;
  std::vector<Entry> entries_;
};

}  // namespace kai
