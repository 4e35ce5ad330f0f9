// VersionTable: a dense table of version numbers that objects mirror theirs into
// (MirroredVersion), with the log of the slots written.
//
// Why: the fit cache asks "which of these 4,000 nodes changed since I last looked?" for every task
// it checks. Reading the slots side by side answers it in one pass; the log answers it in the
// number of writes since then, which outside victim simulations is a handful. The log keeps only
// the recent writes (a few times the table's size): a reader that looked longer ago than that
// reads the slots instead.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace kai::scheduler {

class VersionTable {
 public:
  explicit VersionTable(size_t size = 0) : values_(size) {}
  VersionTable(const VersionTable&) = delete;
  VersionTable& operator=(const VersionTable&) = delete;

  // All slots back to 0, the log empty.
  void Reset(size_t size) {
    values_.assign(size, 0);
    log_.clear();
    writes_ = 0;
  }
  size_t size() const { return values_.size(); }
  uint64_t operator[](size_t i) const { return values_[i]; }

  void Write(size_t i, uint64_t value) {
    values_[i] = value;
    log_.push_back(static_cast<uint32_t>(i));
    ++writes_;
    if (log_.size() > 2 * LogCapacity()) {
      log_.erase(log_.begin(), log_.end() - static_cast<std::ptrdiff_t>(LogCapacity()));
    }
  }
  // Every write ever made (a position in the log).
  uint64_t writes() const { return writes_; }
  // The slots written after the first `since` writes, oldest first, repeats included; nullopt
  // when the log no longer reaches back that far.
  std::optional<std::span<const uint32_t>> WrittenSince(uint64_t since) const {
    const uint64_t first = writes_ - log_.size();
    if (since < first || since > writes_) return std::nullopt;
    return std::span<const uint32_t>(log_).subspan(since - first);
  }

 private:
  size_t LogCapacity() const { return 4 * values_.size() + 64; }

  std::vector<uint64_t> values_;
  std::vector<uint32_t> log_;
  uint64_t writes_ = 0;
};

}  // namespace kai::scheduler
