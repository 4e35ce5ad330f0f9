// A binary heap with exactly the operations and sift behaviour of Go's container/heap, wrapped
// like KAI's scheduler_util.PriorityQueue (optional capacity). KAI's job ordering re-sorts queue
// nodes lazily with heap.Fix(0); reproducing the same sift steps keeps pop order identical to
// upstream whenever the comparison functions agree.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace kai::scheduler {

template <typename T>
class GoHeap {
 public:
  using Less = std::function<bool(const T&, const T&)>;
  static constexpr int kInfinite = -1;

  explicit GoHeap(Less less, int capacity = kInfinite) : less_(std::move(less)), cap_(capacity) {}

  bool empty() const { return items_.empty(); }
  int size() const { return static_cast<int>(items_.size()); }
  const T& Peek() const { return items_.front(); }
  const std::vector<T>& items() const { return items_; }
  // Replaces the contents with `items`, already in heap order (a copy of another heap's).
  void set_items(std::vector<T> items) { items_ = std::move(items); }
  // The same, copying into the storage this heap already has.
  void assign_items(const std::vector<T>& items) { items_.assign(items.begin(), items.end()); }
  void Reserve(size_t n) { items_.reserve(n); }
  // Empty, with a new comparison and capacity; the storage is kept for the next pushes.
  void Reset(Less less, int capacity = kInfinite) {
    items_.clear();
    less_ = std::move(less);
    cap_ = capacity;
  }

  // heap.Push, then (with a capacity) heap.Remove(capacity) when over capacity.
  void Push(T x) {
    items_.push_back(std::move(x));
    Up(size() - 1);
    if (cap_ != kInfinite && size() > cap_) Remove(cap_);
  }

  T Pop() {
    int n = size() - 1;
    Swap(0, n);
    Down(0, n);
    T x = std::move(items_.back());
    items_.pop_back();
    return x;
  }

  T Remove(int i) {
    int n = size() - 1;
    if (n != i) {
      Swap(i, n);
      if (!Down(i, n)) Up(i);
    }
    T x = std::move(items_.back());
    items_.pop_back();
    return x;
  }

  void Fix(int i) {
    if (!Down(i, size())) Up(i);
  }

 private:
  bool LessAt(int i, int j) const { return less_(items_[i], items_[j]); }
  void Swap(int i, int j) { std::swap(items_[i], items_[j]); }

  void Up(int j) {
    for (;;) {
      int i = (j - 1) / 2;  // parent (Go integer division truncates toward zero)
      if (i == j || !LessAt(j, i)) break;
      Swap(i, j);
      j = i;
    }
  }

  bool Down(int i0, int n) {
    int i = i0;
    for (;;) {
      int j1 = 2 * i + 1;
      if (j1 >= n || j1 < 0) break;
      int j = j1;
      int j2 = j1 + 1;
      if (j2 < n && LessAt(j2, j1)) j = j2;
      if (!LessAt(j, i)) break;
      Swap(i, j);
      i = j;
    }
    return i > i0;
  }

  std::vector<T> items_;
  Less less_;
  int cap_;
};

}  // namespace kai::scheduler
