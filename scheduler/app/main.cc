// kai-scheduler: KAI's scheduler.
//   kai-scheduler [run] --kubeconfig ... --scheduler-name ...   schedule pods of an API server
//   kai-scheduler simulate --snapshot FILE ...                  decisions on a snapshot file
#include <glog/logging.h>

#include <iostream>
#include <string>
#include <vector>

#include "kube/app/shutdown_signal.h"
#include "scheduler/app/run.h"
#include "scheduler/app/simulate.h"

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  std::vector<std::string> args(argv + 1, argv + argc);
  // -h / --help anywhere are RunMain's and SimulateMain's; the bare word is taken here.
  if (!args.empty() && args[0] == "help") {
    std::cout << kai::scheduler::SchedulerUsage();
    return 0;
  }
  if (!args.empty() && args[0] == "simulate") {
    FLAGS_minloglevel = 2;  // errors only; simulate reports through its output
    return kai::scheduler::SimulateMain(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  // Without static destructors: a cycle may still be running after a shutdown that overran its
  // timeout (kube/app/shutdown_signal.h).
  kai::app::ExitProcess(kai::scheduler::RunMain(args));
}
