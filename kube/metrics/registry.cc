#include "kube/metrics/registry.h"

#include <glog/logging.h>

#include <algorithm>
#include <numeric>

#include "kube/metrics/text_format.h"

namespace kai::metrics {

FamilyBase::FamilyBase(std::string name, std::string help, std::vector<std::string> label_names,
                       MetricType type)
    : name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)),
      type_(type) {
  sorted_order_.resize(label_names_.size());
  std::iota(sorted_order_.begin(), sorted_order_.end(), 0);
  std::sort(sorted_order_.begin(), sorted_order_.end(),
            [&](size_t a, size_t b) { return label_names_[a] < label_names_[b]; });
}

std::vector<std::string> FamilyBase::SortedKey(const std::vector<std::string>& values) const {
  CHECK_EQ(values.size(), label_names_.size())
      << "metric " << name_ << ": wrong number of label values";
  std::vector<std::string> key;
  key.reserve(values.size());
  for (size_t i : sorted_order_) key.push_back(values[i]);
  return key;
}

void FamilyBase::AppendLabels(std::string* out, const std::vector<std::string>& sorted_values,
                              std::string_view extra_name, std::string_view extra_value) const {
  if (sorted_values.empty() && extra_name.empty()) return;
  out->push_back('{');
  bool first = true;
  for (size_t i = 0; i < sorted_values.size(); ++i) {
    if (!first) out->push_back(',');
    first = false;
    out->append(label_names_[sorted_order_[i]]);
    out->append("=\"");
    AppendEscapedLabelValue(out, sorted_values[i]);
    out->push_back('"');
  }
  if (!extra_name.empty()) {
    if (!first) out->push_back(',');
    out->append(extra_name);
    out->append("=\"");
    AppendEscapedLabelValue(out, extra_value);
    out->push_back('"');
  }
  out->push_back('}');
}

void FamilyBase::WriteHeader(std::string* out) const {
  out->append("# HELP ");
  out->append(name_);
  out->push_back(' ');
  AppendEscapedHelp(out, help_);
  out->append("\n# TYPE ");
  out->append(name_);
  switch (type_) {
    case MetricType::kCounter:
      out->append(" counter\n");
      break;
    case MetricType::kGauge:
      out->append(" gauge\n");
      break;
    case MetricType::kHistogram:
      out->append(" histogram\n");
      break;
  }
}

template <class M>
M& Family<M>::WithLabelValues(const std::vector<std::string>& values) {
  std::vector<std::string> key = SortedKey(values);
  std::lock_guard<std::mutex> l(mu_);
  auto it = children_.find(key);
  if (it == children_.end()) it = children_.emplace(std::move(key), factory_()).first;
  return *it->second;
}

template <class M>
bool Family<M>::Remove(const std::vector<std::string>& values) {
  std::vector<std::string> key = SortedKey(values);
  std::lock_guard<std::mutex> l(mu_);
  return children_.erase(key) > 0;
}

template <class M>
void Family<M>::Write(std::string* out) const {
  std::lock_guard<std::mutex> l(mu_);
  if (children_.empty()) return;
  WriteHeader(out);
  for (const auto& [key, child] : children_) WriteChild(out, key, *child);
}

void FamilyBase::WriteChild(std::string* out, const std::vector<std::string>& key,
                            const Counter& c) const {
  out->append(name_);
  AppendLabels(out, key);
  out->push_back(' ');
  out->append(FormatFloat(c.Value()));
  out->push_back('\n');
}

void FamilyBase::WriteChild(std::string* out, const std::vector<std::string>& key,
                            const Gauge& g) const {
  out->append(name_);
  AppendLabels(out, key);
  out->push_back(' ');
  out->append(FormatFloat(g.Value()));
  out->push_back('\n');
}

void FamilyBase::WriteChild(std::string* out, const std::vector<std::string>& key,
                            const Histogram& h) const {
  const Histogram::Snapshot s = h.Collect();
  auto line = [&](std::string_view suffix, std::string_view le, const std::string& value) {
    out->append(name_);
    out->append(suffix);
    AppendLabels(out, key, le.empty() ? "" : "le", le);
    out->push_back(' ');
    out->append(value);
    out->push_back('\n');
  };
  for (size_t i = 0; i < s.bounds.size(); ++i) {
    line("_bucket", FormatFloat(s.bounds[i]), std::to_string(s.cumulative[i]));
  }
  line("_bucket", "+Inf", std::to_string(s.count));
  line("_sum", "", FormatFloat(s.sum));
  line("_count", "", std::to_string(s.count));
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

CollectHook::CollectHook(CollectHook&& other) noexcept
    : registry_(other.registry_), id_(other.id_) {
  other.registry_ = nullptr;
}

CollectHook& CollectHook::operator=(CollectHook&& other) noexcept {
  if (this != &other) {
    Reset();
    registry_ = other.registry_;
    id_ = other.id_;
    other.registry_ = nullptr;
  }
  return *this;
}

CollectHook::~CollectHook() { Reset(); }

void CollectHook::Reset() {
  if (registry_ != nullptr) registry_->RemoveHook(id_);
  registry_ = nullptr;
}

Registry* Registry::Default() {
  static Registry* const registry = new Registry();
  return registry;
}

FamilyBase& Registry::GetOrAdd(std::string_view name, std::string_view help,
                               const std::vector<std::string>& label_names, MetricType type,
                               const std::vector<double>* buckets,
                               const std::function<std::unique_ptr<FamilyBase>()>& make) {
  CHECK(IsValidMetricName(name)) << "invalid metric name \"" << name << "\"";
  for (const auto& l : label_names) {
    CHECK(IsValidLabelName(l) && l.rfind("__", 0) != 0)
        << "metric " << name << ": invalid label name \"" << l << "\"";
    CHECK(!(type == MetricType::kHistogram && l == "le"))
        << "metric " << name << ": histograms cannot have a label \"le\"";
  }
  std::lock_guard<std::mutex> l(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    const FamilyBase& f = *it->second;
    CHECK(f.type() == type && f.label_names() == label_names)
        << "metric " << name << " registered twice with a different type or labels";
    if (buckets != nullptr) {
      CHECK(histogram_buckets_.find(name)->second == *buckets)
          << "histogram " << name << " registered twice with different buckets";
    }
    return *it->second;
  }
  if (buckets != nullptr) histogram_buckets_.emplace(std::string(name), *buckets);
  return *families_.emplace(std::string(name), make()).first->second;
}

CounterFamily& Registry::RegisterCounter(std::string_view name, std::string_view help,
                                         std::vector<std::string> label_names) {
  auto make = [&]() -> std::unique_ptr<FamilyBase> {
    auto f = std::make_unique<CounterFamily>(std::string(name), std::string(help), label_names,
                                             MetricType::kCounter,
                                             [] { return std::make_unique<Counter>(); });
    // A family without labels always exports its single child (as a plain Go counter does).
    if (label_names.empty()) f->Get();
    return f;
  };
  return static_cast<CounterFamily&>(
      GetOrAdd(name, help, label_names, MetricType::kCounter, nullptr, make));
}

GaugeFamily& Registry::RegisterGauge(std::string_view name, std::string_view help,
                                     std::vector<std::string> label_names) {
  auto make = [&]() -> std::unique_ptr<FamilyBase> {
    auto f =
        std::make_unique<GaugeFamily>(std::string(name), std::string(help), label_names,
                                      MetricType::kGauge, [] { return std::make_unique<Gauge>(); });
    if (label_names.empty()) f->Get();
    return f;
  };
  return static_cast<GaugeFamily&>(
      GetOrAdd(name, help, label_names, MetricType::kGauge, nullptr, make));
}

HistogramFamily& Registry::RegisterHistogram(std::string_view name, std::string_view help,
                                             std::vector<std::string> label_names,
                                             std::vector<double> buckets) {
  CHECK(!buckets.empty()) << "histogram " << name << " needs at least one bucket";
  CHECK(std::is_sorted(buckets.begin(), buckets.end()) &&
        std::adjacent_find(buckets.begin(), buckets.end()) == buckets.end())
      << "histogram " << name << ": buckets must be strictly increasing";
  auto make = [&]() -> std::unique_ptr<FamilyBase> {
    auto bounds = std::make_shared<const std::vector<double>>(buckets);
    auto f = std::make_unique<HistogramFamily>(
        std::string(name), std::string(help), label_names, MetricType::kHistogram,
        [bounds] { return std::make_unique<Histogram>(bounds); });
    if (label_names.empty()) f->Get();
    return f;
  };
  return static_cast<HistogramFamily&>(
      GetOrAdd(name, help, label_names, MetricType::kHistogram, &buckets, make));
}

CollectHook Registry::AddCollectHook(std::function<void()> fn) {
  std::lock_guard<std::mutex> l(hooks_mu_);
  const uint64_t id = next_hook_id_++;
  hooks_.emplace(id, std::move(fn));
  return CollectHook(this, id);
}

void Registry::RemoveHook(uint64_t id) {
  // Taking hooks_mu_ waits for an Expose() that is running this hook right now.
  std::lock_guard<std::mutex> l(hooks_mu_);
  hooks_.erase(id);
}

std::string Registry::Expose() const {
  {
    std::lock_guard<std::mutex> l(hooks_mu_);
    for (const auto& [id, fn] : hooks_) fn();
  }
  std::string out;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [name, family] : families_) family->Write(&out);
  return out;
}

const FamilyBase* Registry::Find(std::string_view name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

}  // namespace kai::metrics
