#include "kube/metrics/metric.h"

#include <algorithm>

namespace kai::metrics {

Histogram::Histogram(std::shared_ptr<const std::vector<double>> bounds)
    : bounds_(std::move(bounds)),
      counts_(std::make_unique<std::atomic<uint64_t>[]>(bounds_->size() + 1)) {}

void Histogram::Observe(double v) {
  // "le" is inclusive: the first bound >= v.
  const auto it = std::lower_bound(bounds_->begin(), bounds_->end(), v);
  counts_[it - bounds_->begin()].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Collect() const {
  Snapshot s;
  s.bounds = *bounds_;
  s.cumulative.resize(bounds_->size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_->size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  // The count is derived from the buckets so that +Inf and _count always agree in one scrape.
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

std::vector<double> DefaultBuckets() { return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}; }

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  double b = start;
  for (int i = 0; i < count; ++i) {
    out.push_back(b);
    b *= factor;
  }
  return out;
}

std::vector<double> LinearBuckets(double start, double width, int count) {
  std::vector<double> out;
  double b = start;
  for (int i = 0; i < count; ++i) {
    out.push_back(b);
    b += width;
  }
  return out;
}

}  // namespace kai::metrics
