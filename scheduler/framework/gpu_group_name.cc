#include "scheduler/framework/gpu_group_name.h"

#include <cstdio>

namespace kai::scheduler {
namespace {

// FNV-1a over the bytes, then SplitMix64's finalizer: stable across builds and platforms.
uint64_t Mix(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t Finalize(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string Format(uint64_t hi, uint64_t lo) {
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant 10
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xFFFF),
                static_cast<unsigned long long>(hi & 0xFFFF),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

}  // namespace

std::string DeriveGpuGroupName(uint64_t seed, std::string_view pod_uid, std::string_view node,
                               size_t position,
                               const std::function<bool(const std::string&)>& taken) {
  uint64_t h = Mix(0xcbf29ce484222325ULL ^ seed, pod_uid);
  h = Mix(h, std::string_view("\0", 1));
  h = Mix(h, node);
  for (uint64_t attempt = 0;; ++attempt) {
    const uint64_t base = Finalize(h ^ Finalize(position * 0x100000001ULL + attempt));
    std::string name = Format(base, Finalize(base ^ seed));
    if (!taken(name)) return name;
  }
}

}  // namespace kai::scheduler
