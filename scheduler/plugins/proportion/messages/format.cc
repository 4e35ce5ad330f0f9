#include "scheduler/plugins/proportion/messages/format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "kube/base/saturating_cast.h"

namespace kai::proportion {

std::string GoFormatFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Shortest round-trip digits in scientific form: "-d.ddde+XX".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  std::string out;
  if (!sci.empty() && sci[0] == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  const int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  if (digits == "0") return out + "0";

  if (exp < -4 || exp >= 6) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    const int a = std::abs(exp);
    if (a < 10) out.push_back('0');
    out += std::to_string(a);
    return out;
  }
  const int point = exp + 1;  // digits before the decimal point
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
  } else if (point >= static_cast<int>(digits.size())) {
    out += digits;
    out.append(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    out.append(digits, 0, point);
    out.push_back('.');
    out.append(digits, point, std::string::npos);
  }
  return out;
}

std::string FtoaWithDigits(double v, int digits) {
  char buf[512];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 6);
  std::string s(buf, res.ptr - buf);
  // Truncate (not round) to `digits` decimals.
  if (size_t dot = s.find('.'); dot != std::string::npos) {
    if (digits <= 0) {
      s.resize(dot);
    } else if (dot + 1 + digits < s.size()) {
      s.resize(dot + 1 + digits);
    }
  }
  // Strip trailing zeros, then the '.'.
  if (s.find('.') != std::string::npos) {
    size_t offset = s.size() - 1;
    while (offset > 0) {
      if (s[offset] == '.') {
        --offset;
        break;
      }
      if (s[offset] != '0') break;
      --offset;
    }
    s.resize(offset + 1);
  }
  return s;
}

std::string HumanizeResource(double value, double unit_adjustment) {
  if (value == kUnlimited) return "Unlimited";
  return FtoaWithDigits(value / unit_adjustment, 3);
}

namespace {

// KAI's GpuResourceRequirement built from a float GPU count, then GetGpusQuota().
double GpuQuotaForDisplay(double gpus) {
  if (gpus >= 1) return static_cast<double>(SaturatingCast<int64_t>(gpus));  // a quota may be 1e300
  if (gpus > 0) {
    // Two-decimal fixed point, count 1.
    return static_cast<double>(static_cast<int64_t>(std::round(gpus * 100))) / 100;
  }
  return 0;
}

}  // namespace

std::string ResourceRequirementsString(const ResourceQuantities& q) {
  return "GPU: " + HumanizeResource(GpuQuotaForDisplay(q.gpu()), 1) +
         ", CPU: " + HumanizeResource(q.cpu(), kMilliCpuToCores) +
         " (cores), memory: " + HumanizeResource(q.memory(), kMemoryToGb) + " (GB)";
}

std::string ReclaimQueueDetailsMessage(const std::string& queue_name,
                                       const ResourceQuantities& allocated,
                                       const ResourceQuantities& deserved,
                                       const ResourceQuantities& fair_share, int priority) {
  return queue_name + " uses <" + ResourceRequirementsString(allocated) + "> with a quota of <" +
         ResourceRequirementsString(deserved) + ">, fair-share of <" +
         ResourceRequirementsString(fair_share) + "> and queue priority of <" +
         std::to_string(priority) + ">.";
}

std::string ReclaimMessage(const std::string& pod_namespace, const std::string& pod_name,
                           const std::string& job_namespace, const std::string& job_name) {
  return "Pod " + pod_namespace + "/" + pod_name + " was preempted by workload " + job_namespace +
         "/" + job_name + ".";
}

}  // namespace kai::proportion
