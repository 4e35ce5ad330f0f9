// Registry: the process's Prometheus metric families and their text exposition (format 0.0.4).
//
//   auto& reconciles = registry->RegisterCounter("controller_runtime_reconcile_total",
//       "Total number of reconciliations per controller", {"controller", "result"});
//   Counter& ok = reconciles.WithLabelValues({"binder", "success"});  // look up once
//   ok.Inc();                                                          // lock-free afterwards
//
// Registering the same name again with the same type and labels returns the existing family
// (several work queues share one `workqueue_depth`); a different type or label set is a
// programming error and CHECK-fails. Output is deterministic: families sorted by name, children
// by label values, label pairs in label-name order, as Go's client_golang writes them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kube/metrics/metric.h"

namespace kai::metrics {

enum class MetricType { kCounter, kGauge, kHistogram };

class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, std::vector<std::string> label_names,
             MetricType type);
  virtual ~FamilyBase() = default;
  FamilyBase(const FamilyBase&) = delete;
  FamilyBase& operator=(const FamilyBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  MetricType type() const { return type_; }

  // Appends HELP, TYPE and every child's samples; nothing when a labelled family has no child.
  virtual void Write(std::string* out) const = 0;

 protected:
  // Label values reordered into label-name order (the order samples are written and sorted).
  std::vector<std::string> SortedKey(const std::vector<std::string>& values) const;
  // Appends `{a="x",b="y"` + extra label + `}` for a key in label-name order.
  void AppendLabels(std::string* out, const std::vector<std::string>& sorted_values,
                    std::string_view extra_name = {}, std::string_view extra_value = {}) const;
  void WriteHeader(std::string* out) const;
  void WriteChild(std::string* out, const std::vector<std::string>& key, const Counter& c) const;
  void WriteChild(std::string* out, const std::vector<std::string>& key, const Gauge& g) const;
  void WriteChild(std::string* out, const std::vector<std::string>& key, const Histogram& h) const;

 private:
  std::string name_;
  std::string help_;
  std::vector<std::string> label_names_;
  std::vector<size_t> sorted_order_;  // indices of label_names_ sorted by name
  MetricType type_;
};

template <class M>
class Family final : public FamilyBase {
 public:
  using Factory = std::function<std::unique_ptr<M>()>;
  Family(std::string name, std::string help, std::vector<std::string> label_names, MetricType type,
         Factory factory)
      : FamilyBase(std::move(name), std::move(help), std::move(label_names), type),
        factory_(std::move(factory)) {}

  // The child for these label values (in the order the labels were registered), created on
  // first use. The reference stays valid for the registry's lifetime unless Remove()d.
  M& WithLabelValues(const std::vector<std::string>& values);
  // The only child of a family without labels.
  M& Get() { return WithLabelValues({}); }
  // Forgets one child (e.g. a controller that went away); returns whether it existed.
  bool Remove(const std::vector<std::string>& values);

  void Write(std::string* out) const override;

 private:
  Factory factory_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<M>> children_;  // key: label-name order
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

class Registry;

// Keeps a collect hook registered; unregisters (waiting for a running call) when destroyed.
class CollectHook {
 public:
  CollectHook() = default;
  CollectHook(Registry* registry, uint64_t id) : registry_(registry), id_(id) {}
  CollectHook(CollectHook&& other) noexcept;
  CollectHook& operator=(CollectHook&& other) noexcept;
  ~CollectHook();
  void Reset();

 private:
  Registry* registry_ = nullptr;
  uint64_t id_ = 0;
};

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process-wide registry served by every binary's /metrics (never destroyed).
  static Registry* Default();

  CounterFamily& RegisterCounter(std::string_view name, std::string_view help,
                                 std::vector<std::string> label_names = {});
  GaugeFamily& RegisterGauge(std::string_view name, std::string_view help,
                             std::vector<std::string> label_names = {});
  HistogramFamily& RegisterHistogram(std::string_view name, std::string_view help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> buckets);

  // `fn` runs at the start of every Expose(), e.g. to set gauges computed from live state
  // (work-queue unfinished work). It must not register metrics or hooks.
  [[nodiscard]] CollectHook AddCollectHook(std::function<void()> fn);

  // The text exposition of every family; ends with '\n' (empty when there is nothing).
  std::string Expose() const;

  // Looks a family up by name (tests); null when absent.
  const FamilyBase* Find(std::string_view name) const;

 private:
  friend class CollectHook;
  void RemoveHook(uint64_t id);
  FamilyBase& GetOrAdd(std::string_view name, std::string_view help,
                       const std::vector<std::string>& label_names, MetricType type,
                       const std::vector<double>* buckets,
                       const std::function<std::unique_ptr<FamilyBase>()>& make);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<FamilyBase>, std::less<>> families_;
  std::map<std::string, std::vector<double>, std::less<>> histogram_buckets_;

  mutable std::mutex hooks_mu_;
  uint64_t next_hook_id_ = 1;
  std::map<uint64_t, std::function<void()>> hooks_;
};

extern template class Family<Counter>;
extern template class Family<Gauge>;
extern template class Family<Histogram>;

}  // namespace kai::metrics
