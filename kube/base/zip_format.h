// The classic (non-zip64) zip format's record signatures, fixed sizes and limits, shared by
// ZipReader and ZipWriter (PKWARE APPNOTE 4.3.7, 4.3.12, 4.3.16).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kai::zip_format {

inline constexpr uint32_t kLocalHeader = 0x04034b50;    // "PK\3\4"
inline constexpr uint32_t kCentralHeader = 0x02014b50;  // "PK\1\2"
inline constexpr uint32_t kEndRecord = 0x06054b50;      // "PK\5\6"
inline constexpr size_t kLocalHeaderSize = 30;
inline constexpr size_t kCentralHeaderSize = 46;
inline constexpr size_t kEndRecordSize = 22;

// 0xffff and 0xffffffff mean "see the zip64 record" in the classic fields, so a classic archive
// holds at most 0xfffe entries and sizes/offsets below 0xffffffff.
inline constexpr size_t kMaxEntries = 0xfffe;
inline constexpr uint64_t kMaxSizeOrOffset = 0xfffffffe;
inline constexpr size_t kMaxNameLength = 0xffff;

}  // namespace kai::zip_format
