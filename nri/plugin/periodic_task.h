// A task run on its own thread every `period` until stop(): the plugin's heartbeat (the hook's
// probe, the state file) and its scan of the running containers. stop() wakes it at once, so the
// plugin exits without waiting out a period.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace gnh::nri {

class PeriodicTask {
 public:
  // `first_at_start`: run once right away, then every period; else first after one period.
  PeriodicTask(std::chrono::milliseconds period, std::function<void()> task, bool first_at_start = false);
  ~PeriodicTask() { stop(); }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;
  void stop();

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members it uses exist
};

}  // namespace gnh::nri
