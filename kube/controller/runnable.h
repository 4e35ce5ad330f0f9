// Runnable: something the process runtime starts and stops (controller-runtime
// manager.Runnable): controllers, informers, webhook servers.
#pragma once

#include <string>

#include "kube/base/clock.h"
#include "kube/base/status.h"

namespace kai::controller {

class Runnable {
 public:
  virtual ~Runnable() = default;

  virtual std::string name() const = 0;
  // Starts the work and returns once it runs (a controller first waits for its caches).
  virtual Status Start() = 0;
  // Stops taking new work and waits for work in flight until `deadline` (monotonic, on the
  // runnable's clock); returns false when something was still running at the deadline.
  // The Manager calls it at most once, possibly on another thread while Start() still runs (a
  // shutdown interrupts a Start() waiting for caches): an implementation makes that pair safe,
  // and a Start() that begins after Stop() starts nothing.
  virtual bool Stop(MonoTime deadline) = 0;
  // Runnables that write to the cluster run only while this process is the elected leader;
  // others (informers, webhook servers) run on every replica.
  virtual bool NeedLeaderElection() const { return true; }
};

}  // namespace kai::controller
