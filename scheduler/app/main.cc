// kai-scheduler: KAI's scheduler. Subcommands:
//   simulate   run scheduling cycles over a snapshot file and print the decisions
// The run mode against an API server comes with the client runtime (issue 6).
#include <glog/logging.h>

#include <iostream>
#include <string>
#include <vector>

#include "scheduler/app/simulate.h"

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 2;  // errors only; simulate reports through its output
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cerr << "usage: kai-scheduler simulate --snapshot FILE [--actions LIST] [--cycles N] "
                 "[-o json|yaml|table]\n";
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "simulate") {
    return kai::scheduler::SimulateMain(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  std::cerr << "kai-scheduler: unknown subcommand \"" << args[0]
            << "\" (available: simulate; the run mode against an API server is not built yet)\n";
  return 2;
}
