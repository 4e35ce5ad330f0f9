// Random: injected randomness (names with random suffixes, jitter, GPU-group ids).
#pragma once

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

namespace kai {

// An RFC 4122 version-4 UUID string made of the bits of `hi` and `lo` (version and variant bits
// set over them).
std::string FormatUuidV4(uint64_t hi, uint64_t lo);

class Random {
 public:
  virtual ~Random() = default;
  // Uniform in [0, n); n must be > 0.
  virtual uint64_t Uniform(uint64_t n) = 0;
  // Uniform in [0, 1).
  virtual double UniformDouble() = 0;

  // `n` characters from [a-z0-9] (Kubernetes generateName style).
  std::string AlphaNumeric(int n);
  // A random RFC 4122 version-4 UUID string.
  std::string Uuid();
};

// Seeded Mersenne Twister; thread-safe. With a fixed seed it is the fake for tests.
class SeededRandom final : public Random {
 public:
  explicit SeededRandom(uint64_t seed) : engine_(seed) {}
  // Seeded from std::random_device.
  static SeededRandom* Default();

  uint64_t Uniform(uint64_t n) override;
  double UniformDouble() override;

 private:
  std::mutex mu_;
  std::mt19937_64 engine_;
};

}  // namespace kai
