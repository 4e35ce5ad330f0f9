// MirroredVersion: a version number that can also be written into a slot of a dense table
// (VersionTable).
//
// Why: caches that ask "did any of these 4,000 nodes change?" for every task would otherwise
// read each NodeInfo (a cache miss per node) just for its accounting version; a session keeps
// the versions of its nodes side by side and the cache reads that table instead. The slot
// belongs to the object, not to its value: a copy does not inherit it (it is another node
// object), an assignment writes the new value through it (the object changed), and the table logs
// every write.
#pragma once

#include <cstdint>

#include "scheduler/api/version_table.h"

namespace kai::scheduler {

class MirroredVersion {
 public:
  MirroredVersion() = default;
  MirroredVersion(const MirroredVersion& o) : value_(o.value_) {}
  MirroredVersion& operator=(const MirroredVersion& o) {
    if (this != &o) Set(o.value_);
    return *this;
  }
  ~MirroredVersion() = default;

  uint64_t get() const { return value_; }
  void Set(uint64_t v) {
    value_ = v;
    if (table_ != nullptr) table_->Write(slot_, v);
  }
  // Starts (table != nullptr: slot `slot` takes the current value) or stops mirroring.
  void MirrorInto(VersionTable* table, size_t slot) {
    table_ = table;
    slot_ = slot;
    if (table != nullptr) table->Write(slot, value_);
  }
  const VersionTable* table() const { return table_; }
  size_t slot() const { return slot_; }

 private:
  uint64_t value_ = 0;
  VersionTable* table_ = nullptr;
  size_t slot_ = 0;
};

}  // namespace kai::scheduler
