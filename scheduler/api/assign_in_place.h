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

// Rewrites a key-ordered map in one pass: Put() the keys it must hold in ascending order, then
// Finish(). A key already present is updated in place, a new one is inserted, and the keys not
// put are erased.
template <typename Map>
class InPlaceMapWriter {
 public:
  explicit InPlaceMapWriter(Map* map) : map_(map), at_(map->begin()) {}
  // assign(value&) updates an existing value; make() returns a new one. `key` must be greater
  // than every key put before.
  template <typename Assign, typename Make>
  void Put(const typename Map::key_type& key, Assign&& assign, Make&& make) {
    while (at_ != map_->end() && at_->first < key) at_ = map_->erase(at_);
    if (at_ != map_->end() && at_->first == key) {
      assign(at_->second);
      ++at_;
    } else {
      map_->emplace_hint(at_, key, make());
    }
  }
  void Finish() { map_->erase(at_, map_->end()); }

 private:
  Map* map_;
  typename Map::iterator at_;
};

// Makes `*dst` hold exactly `src`'s keys: the value of a key present in both is updated with
// assign(dst_value, src_value), a key only in `src` is inserted with make(src_value), a key only
// in `*dst` is erased. Both maps must order keys with operator<.
template <typename DstMap, typename SrcMap, typename Assign, typename Make>
void AssignMapInPlace(DstMap* dst, const SrcMap& src, Assign&& assign, Make&& make) {
  InPlaceMapWriter<DstMap> w(dst);
  // An entry, not a structured binding: lambdas may not capture bindings before C++20 (clang 14).
  for (const auto& entry : src) {
    const auto& value = entry.second;
    w.Put(
        entry.first, [&](typename DstMap::mapped_type& d) { assign(d, value); },
        [&] { return make(value); });
  }
  w.Finish();
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
