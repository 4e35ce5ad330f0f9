#include "kube/base/random.h"

#include <cstdio>

namespace kai {

std::string Random::AlphaNumeric(int n) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out.push_back(kChars[Uniform(sizeof(kChars) - 1)]);
  return out;
}

std::string FormatUuidV4(uint64_t hi, uint64_t lo) {
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

std::string Random::Uuid() {
  const uint64_t hi = Uniform(UINT64_MAX);
  return FormatUuidV4(hi, Uniform(UINT64_MAX));
}

SeededRandom* SeededRandom::Default() {
  static SeededRandom* const r = new SeededRandom(std::random_device{}());
  return r;
}

uint64_t SeededRandom::Uniform(uint64_t n) {
  std::lock_guard<std::mutex> l(mu_);
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(engine_);
}

double SeededRandom::UniformDouble() {
  std::lock_guard<std::mutex> l(mu_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine_);
}

}  // namespace kai
