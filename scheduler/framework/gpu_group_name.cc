#include "scheduler/framework/gpu_group_name.h"

#include "kube/base/random.h"

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

}  // namespace

std::string DeriveGpuGroupName(uint64_t seed, std::string_view pod_uid, std::string_view node,
                               size_t position,
                               const std::function<bool(const std::string&)>& taken) {
  uint64_t h = Mix(0xcbf29ce484222325ULL ^ seed, pod_uid);
  h = Mix(h, std::string_view("\0", 1));
  h = Mix(h, node);
  for (uint64_t attempt = 0;; ++attempt) {
    const uint64_t base = Finalize(h ^ Finalize(position * 0x100000001ULL + attempt));
    std::string name = FormatUuidV4(base, Finalize(base ^ seed));
    if (!taken(name)) return name;
  }
}

}  // namespace kai::scheduler
