// Number formatting that reproduces the text KAI puts into messages, conditions and logs.
#pragma once

#include <string>

#include "scheduler/plugins/proportion/resource_share/resource_quantities.h"

namespace kai::proportion {

inline constexpr double kMilliCpuToCores = 1000;
inline constexpr double kMemoryToGb = 1000 * 1000 * 1000;

// Go's fmt "%v" of a float64 (strconv.FormatFloat(v, 'g', -1, 64)): shortest round-trip
// digits, exponent form ("1e+06") when the decimal exponent is < -4 or >= 6.
std::string GoFormatFloat(double v);

// go-humanize FtoaWithDigits: formats with 6 decimals, truncates to `digits` decimals, strips
// trailing zeros and a trailing '.'.
std::string FtoaWithDigits(double v, int digits);

// KAI's HumanizeResource: "Unlimited" for -1, else FtoaWithDigits(value / unit, 3).
std::string HumanizeResource(double value, double unit_adjustment);

// KAI's ResourceRequirements.String() of requirements built from quantities:
// "GPU: <g>, CPU: <c> (cores), memory: <m> (GB)". The GPU figure goes through KAI's GPU
// requirement type: >= 1 is truncated to whole devices, (0, 1) is rounded to two decimals,
// anything else (including -1, unlimited) prints as 0.
std::string ResourceRequirementsString(const ResourceQuantities& q);

// The per-queue line of a reclaim eviction message (reference §21.3):
// "<queue> uses <allocated> with a quota of <deserved>, fair-share of <fairShare> and queue
// priority of <priority>."
std::string ReclaimQueueDetailsMessage(const std::string& queue_name,
                                       const ResourceQuantities& allocated,
                                       const ResourceQuantities& deserved,
                                       const ResourceQuantities& fair_share, int priority);

// "Pod <ns>/<name> was preempted by workload <ns>/<job>."
std::string ReclaimMessage(const std::string& pod_namespace, const std::string& pod_name,
                           const std::string& job_namespace, const std::string& job_name);

}  // namespace kai::proportion
