// Eventually: waits, in a test, for a condition another thread makes true. The timeout only
// bounds a hang (a failure, not a timing assertion). It spins briefly, then sleeps 1 ms between
// polls so that the threads under test keep the CPU on a 2-core machine.
#pragma once

#include <chrono>
#include <thread>

namespace kai::testing {

template <class F>
bool Eventually(F f, std::chrono::steady_clock::duration timeout = std::chrono::seconds(60)) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  for (int polls = 0; !f(); ++polls) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    if (polls < 1000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  return true;
}

}  // namespace kai::testing
