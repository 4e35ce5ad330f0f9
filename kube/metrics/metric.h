// The three Prometheus metric kinds the project exposes: Counter, Gauge, Histogram.
//
// Each is one child of a labelled Family (registry.h). Updating a child is lock-free (relaxed
// atomics), so hot paths look up their child once, keep the reference and then only pay an
// atomic add per update.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace kai::metrics {

class Counter {
 public:
  // `v` must be >= 0 (a counter only goes up); negative increments are ignored.
  void Inc(double v = 1.0) {
    if (v > 0) value_.fetch_add(v, std::memory_order_relaxed);
  }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  void Sub(double v) { value_.fetch_sub(v, std::memory_order_relaxed); }
  void Inc() { Add(1); }
  void Dec() { Sub(1); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Cumulative histogram with fixed upper bounds (Prometheus "le" buckets; +Inf is implicit).
class Histogram {
 public:
  // `bounds` sorted ascending, without +Inf.
  explicit Histogram(std::shared_ptr<const std::vector<double>> bounds);

  void Observe(double v);

  struct Snapshot {
    std::vector<double> bounds;        // upper bounds without +Inf
    std::vector<uint64_t> cumulative;  // one per bound, then the +Inf bucket
    uint64_t count = 0;                // == cumulative.back()
    double sum = 0;
  };
  Snapshot Collect() const;

 private:
  std::shared_ptr<const std::vector<double>> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // bounds_->size() + 1 (last: above all)
  std::atomic<double> sum_{0};
};

// prometheus.DefBuckets: .005 .01 .025 .05 .1 .25 .5 1 2.5 5 10.
std::vector<double> DefaultBuckets();
// start, start*factor, ... (`count` bounds), as prometheus.ExponentialBuckets.
std::vector<double> ExponentialBuckets(double start, double factor, int count);
// start, start+width, ... (`count` bounds), as prometheus.LinearBuckets.
std::vector<double> LinearBuckets(double start, double width, int count);

}  // namespace kai::metrics
