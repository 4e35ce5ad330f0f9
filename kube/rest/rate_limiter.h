// Token bucket rate limiter (golang.org/x/time/rate as client-go's flowcontrol uses it):
// `qps` tokens per second, at most `burst` stored; starts full.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "kube/base/clock.h"

namespace kai::kube {

class TokenBucket {
 public:
  // qps <= 0 disables limiting.
  TokenBucket(double qps, int burst, Clock* clock);

  // Takes a token now if one is available.
  bool TryAccept();
  // Blocks (on the clock) until a token is available; false if Stop() was called meanwhile.
  bool Accept();
  // How long Accept() would wait now (0 if a token is available); reserves nothing.
  Duration Delay() const;
  // Changes the rate; tokens already stored are kept (capped to the new burst).
  void SetRate(double qps, int burst);
  // Wakes every waiter; later Accept() calls return false at once.
  void Stop();

  double qps() const;
  int burst() const;

 private:
  void RefillLocked(MonoTime now) const;
  // How long until `missing_tokens` have refilled at qps_ (> 0).
  Duration TimeToRefill(double missing_tokens) const;
  Clock* clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  double qps_;
  int burst_;
  mutable double tokens_;
  mutable MonoTime last_;
  bool stopped_ = false;
};

}  // namespace kai::kube
