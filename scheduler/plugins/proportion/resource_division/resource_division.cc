#include "scheduler/plugins/proportion/resource_division/resource_division.h"

#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace kai::proportion {
namespace {

// A queue that was given less than its round share (floor) and may get a leftover unit.
struct Leftover {
  QueueIndex queue;
  double remaining_amount;
};

bool IsQueueSatisfied(const ResourceShare& s) {
  if (s.request <= s.fair_share) return true;
  return s.max_allowed != kUnlimited && s.max_allowed <= s.fair_share;
}

double RemainingRequested(const ResourceShare& s) {
  const double requested = s.RequestableShare();
  if (requested < s.fair_share) return 0;
  return requested - s.fair_share;
}

double SetDeservedResource(QueueTable& queues, std::span<const QueueIndex> siblings, ResourceName r,
                           double total) {
  double remaining = total;
  for (QueueIndex q : siblings) {
    ResourceShare& s = queues[q].share(r);
    double deserved = s.deserved;
    if (deserved == kUnlimited) deserved = total;
    const double amount = std::min(deserved, s.RequestableShare());
    s.fair_share += amount;
    remaining -= amount;
  }
  return remaining;
}

// Per-round share weights of the unsatisfied queues; returns their sum (0 = nothing to do).
double CalcShareWeights(const QueueTable& queues, std::span<const QueueIndex> group, ResourceName r,
                        double k_value, std::vector<double>& weights) {
  double total_weights = 0;
  for (QueueIndex q : group) {
    const ResourceShare& s = queues[q].share(r);
    if (RemainingRequested(s) > 0) total_weights += s.over_quota_weight;
  }
  if (total_weights == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < group.size(); ++i) {
    const ResourceShare& s = queues[group[i]].share(r);
    if (IsQueueSatisfied(s)) {
      weights[i] = 0;
      continue;
    }
    const double n_weight = s.over_quota_weight / total_weights;
    // Usage is already normalized to usage / cluster capacity.
    const double n_usage = s.usage;
    const double share_weight = std::max(0.0, n_weight + k_value * (n_weight - n_usage));
    weights[i] = share_weight;
    sum += share_weight;
  }
  return sum;
}

// Over-quota rounds for one priority group. Updates `leftovers` (one entry per queue that was
// rounded down in its last round and is still unsatisfied) and returns the amount left.
double DivideUpToFairShare(QueueTable& queues, std::span<const QueueIndex> group, ResourceName r,
                           double total, double k_value, std::vector<Leftover>& leftovers) {
  std::vector<double> weights(group.size());
  auto set_leftover = [&](QueueIndex q, double amount) {
    for (Leftover& l : leftovers) {
      if (l.queue == q) {
        l.remaining_amount = amount;
        return;
      }
    }
    leftovers.push_back({q, amount});
  };
  auto erase_leftover = [&](QueueIndex q) {
    std::erase_if(leftovers, [q](const Leftover& l) { return l.queue == q; });
  };

  // Every productive round satisfies at least one queue, so rounds are bounded by the group
  // size; the cap only guards against float pathologies.
  const size_t max_rounds = 2 * group.size() + 64;
  for (size_t round = 0; round < max_rounds; ++round) {
    bool another_round = false;
    const double amount_this_round = total;
    const double weights_sum = CalcShareWeights(queues, group, r, k_value, weights);
    if (weights_sum == 0) break;

    for (size_t i = 0; i < group.size(); ++i) {
      if (total == 0) break;
      const QueueIndex q = group[i];
      ResourceShare& s = queues[q].share(r);
      if (IsQueueSatisfied(s)) continue;
      const double requested = RemainingRequested(s);
      if (s.over_quota_weight == 0) continue;

      const double normalized_weight = weights[i] / weights_sum;
      const double fair_share = amount_this_round * normalized_weight;
      double to_give = 0;
      if (requested <= fair_share) {
        to_give = requested;
        erase_leftover(q);
      } else {
        // Over-quota is handed out in whole units; the remainder competes for leftovers.
        const double rounded = std::floor(fair_share);
        if (rounded > 0) to_give = rounded;
        if (fair_share - to_give > 0) set_leftover(q, fair_share - to_give);
      }
      if (to_give == 0) continue;
      s.fair_share += to_give;
      total -= to_give;
      // A queue that needed less than its share left resources for another round.
      another_round = another_round || requested < fair_share;
    }
    if (!another_round || total == 0) break;
    if (round + 1 == max_rounds) {
      LOG(WARNING) << "proportion: over-quota division of " << ResourceNameString(r)
                   << " stopped after " << max_rounds << " rounds";
    }
  }
  return total;
}

double DivideRemainingResource(QueueTable& queues, std::vector<Leftover> leftovers, ResourceName r,
                               double total) {
  std::sort(leftovers.begin(), leftovers.end(), [&](const Leftover& a, const Leftover& b) {
    if (a.remaining_amount != b.remaining_amount) {
      return a.remaining_amount > b.remaining_amount;
    }
    return QueueBefore(queues[a.queue], queues[b.queue]);
  });
  for (const Leftover& l : leftovers) {
    if (total == 0) break;
    // The amount can be a fraction when some queue requested a fraction of a GPU.
    const double to_give = std::min(1.0, total);
    queues[l.queue].share(r).fair_share += to_give;
    total -= to_give;
  }
  return total;
}

}  // namespace

double ClampKValue(double k_value) { return k_value <= 0.0 ? 0.0 : k_value; }

double DivideOverQuotaResource(QueueTable& queues, std::span<const QueueIndex> siblings,
                               ResourceName r, double remaining, const DivisionOptions& options) {
  // Priority groups, highest first; each keeps the siblings' relative order.
  std::map<int, std::vector<QueueIndex>, std::greater<int>> groups;
  for (QueueIndex q : siblings) groups[queues[q].priority].push_back(q);

  if (options.leftovers_per_priority_group) {
    for (auto& [priority, group] : groups) {
      if (remaining <= 0) break;
      std::vector<Leftover> leftovers;
      remaining = DivideUpToFairShare(queues, group, r, remaining, options.k_value, leftovers);
      if (remaining <= 0 || leftovers.empty()) continue;
      remaining = DivideRemainingResource(queues, std::move(leftovers), r, remaining);
    }
    return remaining;
  }

  std::vector<std::vector<Leftover>> leftovers_by_group;
  leftovers_by_group.reserve(groups.size());
  for (auto& [priority, group] : groups) {
    leftovers_by_group.emplace_back();
    remaining = DivideUpToFairShare(queues, group, r, remaining, options.k_value,
                                    leftovers_by_group.back());
  }
  for (std::vector<Leftover>& leftovers : leftovers_by_group) {
    if (remaining <= 0) break;
    if (leftovers.empty()) continue;
    remaining = DivideRemainingResource(queues, std::move(leftovers), r, remaining);
  }
  return remaining;
}

double SetResourceShare(QueueTable& queues, std::span<const QueueIndex> siblings, ResourceName r,
                        double total, const DivisionOptions& options) {
  double remaining = SetDeservedResource(queues, siblings, r, total);
  if (remaining > 0) return DivideOverQuotaResource(queues, siblings, r, remaining, options);
  return 0;
}

void SetResourcesShare(QueueTable& queues, std::span<const QueueIndex> siblings,
                       const ResourceQuantities& total, const DivisionOptions& options) {
  for (ResourceName r : kAllResources) SetResourceShare(queues, siblings, r, total[r], options);
}

namespace {

void SetFairShareForQueues(QueueTable& queues, std::span<const QueueIndex> siblings,
                           const ResourceQuantities& total, const DivisionOptions& options) {
  if (siblings.empty()) return;
  SetResourcesShare(queues, siblings, total, options);
  for (QueueIndex q : siblings) {
    const ResourceQuantities fair_share = queues[q].FairShare();
    SetFairShareForQueues(queues, queues.children(q), fair_share, options);
  }
}

}  // namespace

void SetFairShare(QueueTable& queues, const ResourceQuantities& total,
                  const DivisionOptions& options) {
  for (QueueIndex q = 0; q < queues.size(); ++q) {
    for (ResourceShare& s : queues[q].shares) s.fair_share = 0;
  }
  DivisionOptions effective = options;
  effective.k_value = ClampKValue(options.k_value);
  SetFairShareForQueues(queues, queues.top_level(), total, effective);
}

}  // namespace kai::proportion
