#include "kube/base/zip_reader.h"

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/base/zip_format.h"
#include "kube/base/zip_writer.h"

namespace kai {

namespace {

// An entry name for a message: bytes outside printable ASCII as \xNN.
std::string Printable(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

using zip_format::kCentralHeader;
using zip_format::kCentralHeaderSize;
using zip_format::kEndRecord;
using zip_format::kEndRecordSize;
using zip_format::kLocalHeader;
using zip_format::kLocalHeaderSize;

uint16_t Get16(std::string_view s, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[at]) |
                               (static_cast<uint8_t>(s[at + 1]) << 8));
}

uint32_t Get32(std::string_view s, size_t at) {
  return static_cast<uint32_t>(Get16(s, at)) | (static_cast<uint32_t>(Get16(s, at + 2)) << 16);
}

Status Truncated(std::string_view what) {
  return InvalidArgumentError("truncated zip: " + std::string(what));
}

// Raw deflate (no zlib header), as zip method 8 stores it.
StatusOr<std::string> Inflate(std::string_view in, size_t expected, const std::string& name) {
  std::string out(expected, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return InternalError("inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&zs, Z_FINISH);
  size_t produced = expected - zs.avail_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || produced != expected) {
    return InvalidArgumentError("corrupt deflate data in " + name +
                                (rc == Z_BUF_ERROR      ? " (longer than its recorded size)"
                                 : produced != expected ? " (shorter than its recorded size)"
                                                        : ""));
  }
  return out;
}

}  // namespace

bool LooksLikeZip(std::string_view data) {
  return data.size() >= 4 && Get32(data, 0) == kLocalHeader;
}

StatusOr<std::vector<ZipEntry>> ReadZip(std::string_view a) {
  if (a.size() < 4 || (Get32(a, 0) != kLocalHeader && Get32(a, 0) != kEndRecord)) {
    return InvalidArgumentError("not a zip archive (no \"PK\\x03\\x04\" signature)");
  }
  if (a.size() < kEndRecordSize) return Truncated("no end of central directory record");
  // The end record is the last 22 bytes plus a comment of up to 65535 bytes: search backwards.
  size_t end = std::string_view::npos;
  const size_t lowest = a.size() > kEndRecordSize + 0xffff ? a.size() - kEndRecordSize - 0xffff : 0;
  for (size_t at = a.size() - kEndRecordSize + 1; at-- > lowest;) {
    if (Get32(a, at) == kEndRecord && at + kEndRecordSize + Get16(a, at + 20) == a.size()) {
      end = at;
      break;
    }
  }
  if (end == std::string_view::npos) return Truncated("no end of central directory record");
  const uint16_t count = Get16(a, end + 10);
  const uint32_t cd_size = Get32(a, end + 12);
  const uint32_t cd_offset = Get32(a, end + 16);
  if (Get16(a, end + 4) != 0 || Get16(a, end + 6) != 0 || count != Get16(a, end + 8)) {
    return InvalidArgumentError("multi-disk zip archives are not supported");
  }
  if (count == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
    return InvalidArgumentError("zip64 archives are not supported");
  }
  if (static_cast<uint64_t>(cd_offset) + cd_size > end) {
    return Truncated("central directory outside the archive");
  }
  std::vector<ZipEntry> entries;
  size_t at = cd_offset;
  for (uint16_t i = 0; i < count; ++i) {
    if (at + kCentralHeaderSize > end || Get32(a, at) != kCentralHeader) {
      return Truncated("central directory entry " + std::to_string(i) + " is damaged");
    }
    const uint16_t flags = Get16(a, at + 8);
    const uint16_t method = Get16(a, at + 10);
    const uint32_t crc = Get32(a, at + 16);
    const uint32_t csize = Get32(a, at + 20);
    const uint32_t usize = Get32(a, at + 24);
    const uint16_t name_len = Get16(a, at + 28);
    const uint16_t extra_len = Get16(a, at + 30);
    const uint16_t comment_len = Get16(a, at + 32);
    const uint32_t local = Get32(a, at + 42);
    if (at + kCentralHeaderSize + name_len + extra_len + comment_len > end) {
      return Truncated("central directory entry " + std::to_string(i) + " is damaged");
    }
    ZipEntry e;
    e.name = std::string(a.substr(at + kCentralHeaderSize, name_len));
    const std::string shown = Printable(e.name);  // a damaged name may hold any byte
    at += kCentralHeaderSize + name_len + extra_len + comment_len;
    if (csize == 0xffffffffu || usize == 0xffffffffu || local == 0xffffffffu) {
      return InvalidArgumentError(shown + ": zip64 entries are not supported");
    }
    if (flags & 0x1) return InvalidArgumentError(shown + ": encrypted entries are not supported");
    if (static_cast<uint64_t>(local) + kLocalHeaderSize > cd_offset ||
        Get32(a, local) != kLocalHeader) {
      return Truncated("local header of " + shown + " is missing");
    }
    const uint64_t data_at = static_cast<uint64_t>(local) + kLocalHeaderSize +
                             Get16(a, local + 26) + Get16(a, local + 28);
    if (data_at + csize > cd_offset) return Truncated("data of " + shown + " is cut short");
    std::string_view raw = a.substr(data_at, csize);
    if (method == 0) {
      if (csize != usize) return InvalidArgumentError(shown + ": stored entry sizes differ");
      e.data = std::string(raw);
    } else if (method == 8) {
      // A corrupt header must not make us allocate gigabytes: deflate expands at most ~1032x.
      if (usize > static_cast<uint64_t>(csize) * 1032 + 64) {
        return InvalidArgumentError(shown + ": implausible uncompressed size " +
                                    std::to_string(usize));
      }
      KAI_ASSIGN_OR_RETURN(e.data, Inflate(raw, usize, shown));
    } else {
      return InvalidArgumentError(shown + ": unsupported compression method " +
                                  std::to_string(method) + " (stored and deflate are read)");
    }
    if (Crc32(e.data) != crc) return InvalidArgumentError("CRC mismatch in " + shown);
    entries.push_back(std::move(e));
  }
  return entries;
}

StatusOr<std::string> ReadZipEntry(std::string_view archive, std::string_view name) {
  KAI_ASSIGN_OR_RETURN(std::vector<ZipEntry> entries, ReadZip(archive));
  for (auto& e : entries) {
    if (e.name == name) return std::move(e.data);
  }
  return NotFoundError("no entry " + std::string(name));
}

}  // namespace kai
