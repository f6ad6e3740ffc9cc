#include "plugin/periodic_task.h"

namespace gnh::nri {

PeriodicTask::PeriodicTask(std::chrono::milliseconds period, std::function<void()> task, bool first_at_start) {
  thread_ = std::thread([this, period, task = std::move(task), first_at_start] {
    std::unique_lock<std::mutex> l(m_);
    bool due = first_at_start;
    while (!stopping_) {
      if (due) {
        l.unlock();
        task();
        l.lock();
        if (stopping_) break;
      }
      cv_.wait_for(l, period, [this] { return stopping_; });
      due = true;
    }
  });
}

void PeriodicTask::stop() {
  {
    std::lock_guard<std::mutex> l(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

}  // namespace gnh::nri
