// MirroredVersion: a version number that can also be written into a slot of a dense table.
//
// Why: caches that ask "did any of these 4,000 nodes change?" for every task would otherwise
// read each NodeInfo (a cache miss per node) just for its accounting version; a session keeps
// the versions of its nodes side by side and the cache reads that table instead. The slot
// belongs to the object, not to its value: a copy does not inherit it (it is another node
// object), an assignment writes the new value through it (the object changed).
#pragma once

#include <cstdint>

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
    if (mirror_ != nullptr) *mirror_ = v;
  }
  // Starts (slot != nullptr: the slot takes the current value) or stops mirroring.
  void MirrorInto(uint64_t* slot) {
    mirror_ = slot;
    if (slot != nullptr) *slot = value_;
  }
  const uint64_t* mirror() const { return mirror_; }

 private:
  uint64_t value_ = 0;
  uint64_t* mirror_ = nullptr;
};

}  // namespace kai::scheduler
