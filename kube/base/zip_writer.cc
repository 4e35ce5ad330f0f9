#include "kube/base/zip_writer.h"

#include <zlib.h>

#include "kube/base/zip_format.h"

namespace kai {

namespace {

using zip_format::kCentralHeader;
using zip_format::kCentralHeaderSize;
using zip_format::kEndRecord;
using zip_format::kLocalHeader;
using zip_format::kLocalHeaderSize;
using zip_format::kMaxSizeOrOffset;

constexpr uint16_t kVersion = 20;  // 2.0: the minimum for stored entries and directories
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01
constexpr uint16_t kDosTime = 0;

void Put16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>(v >> 8));
}

void Put32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large inputs in chunks.
  constexpr size_t kChunk = 1u << 30;
  for (size_t off = 0; off < data.size(); off += kChunk) {
    size_t n = std::min(kChunk, data.size() - off);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + off), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

void ZipWriter::Add(std::string_view name, std::string_view data) {
  if (!error_.ok()) return;
  // Finish's central directory must also start and end below the offset limit.
  const uint64_t central = central_size_ + kCentralHeaderSize + name.size();
  const uint64_t end = out_.size() + kLocalHeaderSize + name.size() + data.size();
  std::string why;
  if (entries_.size() >= zip_format::kMaxEntries) {
    why = "at most " + std::to_string(zip_format::kMaxEntries) + " entries";
  } else if (name.size() > zip_format::kMaxNameLength) {
    why = "names of at most " + std::to_string(zip_format::kMaxNameLength) + " bytes";
  } else if (data.size() > kMaxSizeOrOffset || end + central > kMaxSizeOrOffset) {
    why = "archives below 4 GiB (this entry has " + std::to_string(data.size()) + " bytes)";
  }
  if (!why.empty()) {
    error_ = ResourceExhaustedError("zip entry " + std::string(name.substr(0, 256)) +
                                    ": the classic zip format allows " + why);
    return;
  }
  central_size_ = central;
  Entry e;
  e.name = std::string(name);
  e.crc = Crc32(data);
  e.size = static_cast<uint32_t>(data.size());
  e.offset = static_cast<uint32_t>(out_.size());
  Put32(&out_, kLocalHeader);
  Put16(&out_, kVersion);
  Put16(&out_, 0);  // flags
  Put16(&out_, 0);  // method: stored
  Put16(&out_, kDosTime);
  Put16(&out_, kDosDate);
  Put32(&out_, e.crc);
  Put32(&out_, e.size);  // compressed size
  Put32(&out_, e.size);  // uncompressed size
  Put16(&out_, static_cast<uint16_t>(e.name.size()));
  Put16(&out_, 0);  // extra field length
  out_ += e.name;
  out_.append(data.data(), data.size());
  entries_.push_back(std::move(e));
}

StatusOr<std::string> ZipWriter::Finish() {
  if (!error_.ok()) return error_;
  const uint32_t cd_offset = static_cast<uint32_t>(out_.size());
  for (const Entry& e : entries_) {
    Put32(&out_, kCentralHeader);
    Put16(&out_, kVersion);  // made by (MS-DOS attributes)
    Put16(&out_, kVersion);  // needed
    Put16(&out_, 0);         // flags
    Put16(&out_, 0);         // method
    Put16(&out_, kDosTime);
    Put16(&out_, kDosDate);
    Put32(&out_, e.crc);
    Put32(&out_, e.size);
    Put32(&out_, e.size);
    Put16(&out_, static_cast<uint16_t>(e.name.size()));
    Put16(&out_, 0);  // extra
    Put16(&out_, 0);  // comment
    Put16(&out_, 0);  // disk number start
    Put16(&out_, 0);  // internal attributes
    Put32(&out_, 0);  // external attributes
    Put32(&out_, e.offset);
    out_ += e.name;
  }
  const uint32_t cd_size = static_cast<uint32_t>(out_.size()) - cd_offset;
  Put32(&out_, kEndRecord);
  Put16(&out_, 0);  // this disk
  Put16(&out_, 0);  // disk with the central directory
  Put16(&out_, static_cast<uint16_t>(entries_.size()));
  Put16(&out_, static_cast<uint16_t>(entries_.size()));
  Put32(&out_, cd_size);
  Put32(&out_, cd_offset);
  Put16(&out_, 0);  // comment length
  entries_.clear();
  return std::move(out_);
}

}  // namespace kai
