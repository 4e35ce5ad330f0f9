// `kai-scheduler simulate`: runs scheduling cycles over a snapshot file and reports the
// decisions (contract: ../shared/scenarios/FORMAT.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::scheduler {

struct SimulateOptions {
  std::string snapshot_path;
  std::string snapshot_text;                        // used when snapshot_path is empty
  std::optional<std::vector<std::string>> actions;  // --actions; default: the configuration's
  int cycles = 1;
  std::string output = "json";  // json | yaml | table
  uint64_t seed = 1;            // GPU-group ids
  bool strict = false;          // dangling references are errors, not warnings
};

// Parses `simulate` arguments (everything after the subcommand).
StatusOr<SimulateOptions> ParseSimulateArgs(const std::vector<std::string>& args);

struct SimPod {
  std::string namespace_, name, podgroup, queue;
  std::string before, after, node;
  std::vector<std::string> gpu_groups;
  double gpu_fraction = 0;
  // Pending pods: the Unschedulable event / PodScheduled condition message (§21.2).
  std::string unschedulable_message;
};

struct SimPodGroup {
  std::string namespace_, name;
  // NotReady text for incomplete gangs, else the PodGroup Unschedulable message ("" when the
  // job has nothing pending), reference §21.2.
  std::string unschedulable_reason;
  std::vector<std::pair<std::string, std::string>> reasons;  // (reason, message)
};

struct SimQueue {
  std::string name, parent;
  std::map<std::string, double> fair_share, allocated, requested;
};

struct SimulationResult {
  int cycle = 1, cycles = 1;  // the reported cycle (the last one) and how many ran
  std::vector<SimPod> pods;
  std::vector<SimPodGroup> podgroups;
  std::vector<SimQueue> queues;
  std::vector<std::string> warnings;
};

// Runs the simulation. Bad input is an error naming the object and the field.
StatusOr<SimulationResult> RunSimulation(const SimulateOptions& options, Clock* clock);

std::string FormatJson(const SimulationResult& r);
std::string FormatYaml(const SimulationResult& r);
std::string FormatTable(const SimulationResult& r);

// Entry point of the subcommand; returns the process exit code.
int SimulateMain(const std::vector<std::string>& args);

}  // namespace kai::scheduler
