#include "scheduler/plugins/proportion/reclaimable/reclaimable.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "scheduler/plugins/proportion/reclaimable/strategies.h"

namespace kai::proportion {
namespace {

// Per-scenario state of a queue touched by the victims: its remaining allocation (once it has
// one, i.e. once it is a leveled reclaimee or lost a chunk) and the resources involved.
// Scenarios touch few queues, so a flat vector beats a map.
struct Touched {
  QueueIndex queue;
  bool has_remaining;
  ResourceQuantities remaining;
  ResourceMask involved;
};

Touched& Entry(std::vector<Touched>& touched, QueueIndex q) {
  for (Touched& t : touched) {
    if (t.queue == q) return t;
  }
  touched.push_back({q, false, {}, 0});
  return touched.back();
}

// The remaining allocation of `q`, starting at its Allocated.
Touched& WithRemaining(std::vector<Touched>& touched, const QueueTable& queues, QueueIndex q) {
  Touched& t = Entry(touched, q);
  if (!t.has_remaining) {
    t.has_remaining = true;
    t.remaining = queues[q].Allocated();
  }
  return t;
}

}  // namespace

Reclaimable::Reclaimable(double saturation_multiplier)
    : saturation_multiplier_(saturation_multiplier < 1.0 ? 1.0 : saturation_multiplier) {}

bool Reclaimable::CanReclaimResources(const QueueTable& queues,
                                      const ReclaimerInfo& reclaimer) const {
  if (reclaimer.queue == kNoQueue) return false;
  const QueueAttributes& q = queues[reclaimer.queue];
  ResourceQuantities allocated = q.Allocated();
  allocated.Add(reclaimer.required);
  if (!allocated.LessEqual(q.FairShare())) return false;
  if (reclaimer.is_preemptible) return true;
  ResourceQuantities non_preemptible = q.AllocatedNonPreemptible();
  non_preemptible.Add(reclaimer.required);
  return non_preemptible.LessEqual(q.Deserved());
}

std::pair<QueueIndex, QueueIndex> Reclaimable::LeveledQueues(const QueueTable& queues,
                                                             QueueIndex reclaimer,
                                                             QueueIndex reclaimee) {
  if (reclaimer == kNoQueue || reclaimee == kNoQueue) return {kNoQueue, kNoQueue};
  const std::vector<QueueIndex> reclaimers = queues.PathFromRoot(reclaimer);
  const std::vector<QueueIndex> reclaimees = queues.PathFromRoot(reclaimee);
  const size_t min_length = std::min(reclaimers.size(), reclaimees.size());
  QueueIndex l = kNoQueue;
  QueueIndex r = kNoQueue;
  for (size_t i = 0; i < min_length; ++i) {
    l = reclaimers[i];
    r = reclaimees[i];
    if (l != r) break;
  }
  return {l, r};
}

double Reclaimable::FairShareSaturationRatio(double allocated, double fair_share) {
  if (fair_share == 0) {
    return allocated > 0 ? std::numeric_limits<double>::infinity() : 0;
  }
  if (fair_share == kUnlimited) return 0;
  return allocated / fair_share;
}

bool Reclaimable::IsReclaimable(const QueueTable& queues, const ReclaimerInfo& reclaimer,
                                std::span<const VictimQueueChunks> victims) const {
  if (reclaimer.queue == kNoQueue) return false;
  std::vector<Touched> touched;
  touched.reserve(8);

  // 1. Every chunk must fit a strategy before it is taken.
  for (const VictimQueueChunks& victim : victims) {
    if (victim.queue == kNoQueue) return false;
    const auto [reclaimer_leveled, reclaimee_leveled] =
        LeveledQueues(queues, reclaimer.queue, victim.queue);
    if (reclaimer_leveled == kNoQueue) return false;

    ResourceMask victim_involved = 0;
    for (const VictimChunk& chunk : victim.chunks) victim_involved |= chunk.involved;
    Entry(touched, victim.queue).involved = victim_involved;
    WithRemaining(touched, queues, reclaimee_leveled);

    for (const VictimChunk& chunk : victim.chunks) {
      const ResourceQuantities remaining =
          WithRemaining(touched, queues, reclaimee_leveled).remaining;
      if (!FitsReclaimStrategy(reclaimer.required, queues[reclaimer_leveled],
                               queues[reclaimee_leveled], remaining)) {
        return false;
      }
      queues.ForSelfAndAncestors(victim.queue, [&](QueueIndex q) {
        Touched& t = WithRemaining(touched, queues, q);
        t.remaining.Sub(chunk.resources);
        t.involved |= victim_involved;
      });
    }
  }

  // 2 + 3. The reclaimer's side, level by level.
  for (QueueIndex q = reclaimer.queue; q != kNoQueue; q = queues.parent(q)) {
    const QueueAttributes& reclaiming = queues[q];
    ResourceQuantities remaining = reclaiming.Allocated();
    for (const Touched& t : touched) {
      if (t.queue == q && t.has_remaining) remaining = t.remaining;
    }
    remaining.Add(reclaimer.required);

    for (const Touched& sibling_state : touched) {
      if (!sibling_state.has_remaining) continue;
      const QueueAttributes& sibling = queues[sibling_state.queue];
      if (sibling.parent != reclaiming.parent || sibling_state.queue == q) continue;
      const ResourceMask involved = sibling_state.involved | reclaimer.involved;
      for (ResourceName r : kAllResources) {
        if ((involved & Bit(r)) == 0) continue;
        const double reclaimer_fair = reclaiming.share(r).fair_share;
        const double sibling_fair = sibling.share(r).fair_share;
        if (reclaimer_fair == kUnlimited && sibling_fair == kUnlimited) continue;
        const double ratio_reclaimer = FairShareSaturationRatio(remaining[r], reclaimer_fair);
        const double ratio_sibling =
            FairShareSaturationRatio(sibling_state.remaining[r], sibling_fair);
        if (ratio_reclaimer > 1 && sibling_fair > 0 &&
            ratio_reclaimer * saturation_multiplier_ >= ratio_sibling) {
          return false;
        }
      }
    }

    if (reclaimer.is_preemptible) continue;
    ResourceQuantities non_preemptible = reclaiming.AllocatedNonPreemptible();
    non_preemptible.Add(reclaimer.required);
    if (!non_preemptible.LessEqual(reclaiming.Deserved())) return false;
  }
  return true;
}

}  // namespace kai::proportion
