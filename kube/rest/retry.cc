#include "kube/rest/retry.h"

#include <algorithm>

#include "kube/rest/errors.h"

namespace kai::kube {

Status RetryOnError(const Backoff& backoff, const std::function<bool(const Status&)>& retriable,
                    const std::function<Status()>& fn, Clock* clock, Random* random) {
  if (clock == nullptr) clock = RealClock::Get();
  if (random == nullptr) random = SeededRandom::Default();
  Duration wait = backoff.duration;
  const int steps = std::max(1, backoff.steps);
  Status last;
  for (int attempt = 0; attempt < steps; ++attempt) {
    if (attempt > 0) {
      Duration d = wait;
      if (backoff.jitter > 0) {
        d += std::chrono::duration_cast<Duration>(d * (backoff.jitter * random->UniformDouble()));
      }
      clock->SleepFor(d);
      wait = std::chrono::duration_cast<Duration>(wait * backoff.factor);
      if (backoff.cap.count() > 0 && wait > backoff.cap) wait = backoff.cap;
    }
    last = fn();
    if (last.ok() || !retriable(last)) return last;
  }
  return last;
}

Status RetryOnConflict(const Backoff& backoff, const std::function<Status()>& fn, Clock* clock,
                       Random* random) {
  return RetryOnError(
      backoff, [](const Status& s) { return IsConflict(s); }, fn, clock, random);
}

}  // namespace kai::kube
