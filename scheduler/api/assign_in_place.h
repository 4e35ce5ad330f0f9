// Copy-assignment that reuses what the destination already holds.
//
// ClusterModel hands every session a copy of its kept snapshot; recycling the previous session's
// ClusterInfo (cache/cluster_model.h) makes that copy an assignment into objects that already
// exist. std::map's own copy-assignment reuses node memory but destroys and re-constructs every
// value (so every string and vector inside is freed and allocated again); these helpers walk two
// maps in key order and copy-assign the values of equal keys in place instead, which for an
// unchanged string or vector is a copy into its existing buffer.
#pragma once

#include <map>
#include <utility>

namespace kai::scheduler {

// Makes `*dst` hold exactly `src`'s keys: the value of a key present in both is updated with
// assign(dst_value, src_value), a key only in `src` is inserted with make(src_value), a key only
// in `*dst` is erased. Both maps must order keys with operator<.
template <typename DstMap, typename SrcMap, typename Assign, typename Make>
void AssignMapInPlace(DstMap* dst, const SrcMap& src, Assign&& assign, Make&& make) {
  auto d = dst->begin();
  for (const auto& [key, value] : src) {
    while (d != dst->end() && d->first < key) d = dst->erase(d);
    if (d != dst->end() && d->first == key) {
      assign(d->second, value);
      ++d;
    } else {
      dst->emplace_hint(d, key, make(value));
    }
  }
  dst->erase(d, dst->end());
}

// A std::map whose copy-assignment is AssignMapInPlace with the values' own copy-assignment, so
// that a class holding one keeps its defaulted (member-wise) copy-assignment and still reuses the
// map's nodes, keys and values.
template <typename K, typename V>
class InPlaceMap : public std::map<K, V> {
 public:
  using std::map<K, V>::map;
  InPlaceMap() = default;
  InPlaceMap(const InPlaceMap&) = default;
  InPlaceMap(InPlaceMap&&) noexcept = default;
  InPlaceMap& operator=(InPlaceMap&&) noexcept = default;
  InPlaceMap& operator=(const InPlaceMap& o) {
    if (this != &o) {
      AssignMapInPlace(
          this, o, [](V& d, const V& s) { d = s; }, [](const V& s) -> const V& { return s; });
    }
    return *this;
  }
};

}  // namespace kai::scheduler
