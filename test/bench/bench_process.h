// Processes of the online benchmark: the children it starts (kai-scheduler, kai-binder) and
// what /proc says about any process (CPU seconds, peak RSS).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kube/base/statusor.h"

namespace kai::bench {

// A child process with stdout and stderr in a log file; stopped when destroyed.
class ChildProcess {
 public:
  static StatusOr<std::unique_ptr<ChildProcess>> Spawn(const std::vector<std::string>& argv,
                                                       const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool Alive();
  // SIGTERM, then SIGKILL after `grace`; waits for the exit. Returns the wait status (-1 when
  // already reaped).
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  bool reaped_ = false;
};

struct ProcessUsage {
  double cpu_seconds = 0;  // user + system, all threads
  double peak_rss_mb = 0;  // VmHWM
};

// From /proc/<pid>/stat and /proc/<pid>/status.
StatusOr<ProcessUsage> ReadProcessUsage(pid_t pid);

// A TCP port on 127.0.0.1 that was free a moment ago (for children's listen flags).
StatusOr<int> PickFreePort();

// GET http://127.0.0.1:<port><path>: the status code (0 when unreachable).
int HttpGetStatus(int port, const std::string& path, std::string* body = nullptr);

// The directory of the running executable (/proc/self/exe).
std::string ExecutableDir();

}  // namespace kai::bench
