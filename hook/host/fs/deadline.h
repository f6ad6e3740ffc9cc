// A point in time after which the hook gives up (a blocked driver read, a lock held too long).
#pragma once

#include <chrono>

namespace gnh {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Deadline(std::chrono::milliseconds budget) : end_(Clock::now() + budget) {}
  bool expired() const { return Clock::now() >= end_; }
  std::chrono::milliseconds left() const {
    auto d = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now());
    return d.count() > 0 ? d : std::chrono::milliseconds(0);
  }

 private:
  Clock::time_point end_;
};

}  // namespace gnh
