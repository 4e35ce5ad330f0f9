// The reflector's backoff between failed list/watch attempts (client-go
// NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)): starts at `initial`, doubles up to
// `cap`, each wait stretched by up to `jitter` x at random, back to `initial` once no backoff was
// needed for `reset_after`.
#pragma once

#include <mutex>
#include <optional>

#include "kube/base/clock.h"
#include "kube/base/random.h"

namespace kai::kube {

struct BackoffOptions {
  Duration initial{std::chrono::milliseconds(800)};
  Duration cap{std::chrono::seconds(30)};
  double factor = 2.0;
  double jitter = 1.0;
  Duration reset_after{std::chrono::minutes(2)};
};

class BackoffManager {
 public:
  BackoffManager(BackoffOptions options, Clock* clock, Random* random);
  // The next wait (and advances the schedule).
  Duration Next();

 private:
  const BackoffOptions options_;
  Clock* const clock_;
  Random* const random_;
  std::mutex mu_;
  Duration current_;
  std::optional<MonoTime> last_;
};

}  // namespace kai::kube
