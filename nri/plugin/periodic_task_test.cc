#include "plugin/periodic_task.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

using gnh::nri::PeriodicTask;

TEST_CASE("periodic task: the first run at start when asked, and stop() ends it without waiting a period") {
  std::mutex m;
  std::condition_variable cv;
  int runs = 0;
  PeriodicTask task(std::chrono::hours(1), [&] {
    std::lock_guard<std::mutex> l(m);
    ++runs;
    cv.notify_all();
  }, /*first_at_start=*/true);
  {
    std::unique_lock<std::mutex> l(m);
    // Driven by the task's own run, not a clock: the bound only ends a broken test.
    REQUIRE(cv.wait_for(l, std::chrono::seconds(60), [&] { return runs == 1; }));
  }
  task.stop();  // an hour's period: a stop that waited it out would hang here
  CHECK(runs == 1);
}

TEST_CASE("periodic task: runs again each period until stopped") {
  std::mutex m;
  std::condition_variable cv;
  int runs = 0;
  PeriodicTask task(std::chrono::milliseconds(1), [&] {
    std::lock_guard<std::mutex> l(m);
    ++runs;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> l(m);
    REQUIRE(cv.wait_for(l, std::chrono::seconds(60), [&] { return runs >= 3; }));
  }
  task.stop();
  std::lock_guard<std::mutex> l(m);
  const int at_stop = runs;
  CHECK(at_stop >= 3);
}
