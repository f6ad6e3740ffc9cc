#include "plugin/bounded_call.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace gnh::nri {

struct BoundedCall::State {
  std::mutex m;
  std::condition_variable cv;
  std::function<void()> job;  // set: a job waits for the worker
  bool running = false;
  bool stop = false;
  unsigned long long finished = 0;  // jobs done, to tell ours from an abandoned one's end
  std::atomic<bool> abandoned{false};  // the running job's caller gave up on it
  std::shared_ptr<std::atomic<int>> stuck;  // abandoned jobs still running, over all workers
  std::thread worker;
};

namespace {
thread_local const std::atomic<bool>* t_abandoned = nullptr;  // set on the worker only
}  // namespace

bool BoundedCall::in_abandoned_job() { return t_abandoned && t_abandoned->load(); }

std::shared_ptr<BoundedCall::State> BoundedCall::start_worker(const std::shared_ptr<std::atomic<int>>& stuck) {
  auto s = std::make_shared<State>();
  s->stuck = stuck;
  // The worker holds the state too: after an abandoned job it may outlive this object.
  s->worker = std::thread([s] { work(s); });
  return s;
}

BoundedCall::BoundedCall(int max_stuck)
    : max_stuck_(max_stuck), stuck_(std::make_shared<std::atomic<int>>(0)), state_(start_worker(stuck_)) {}

int BoundedCall::stuck() const { return stuck_->load(); }

BoundedCall::~BoundedCall() {
  std::unique_lock<std::mutex> l(state_->m);
  state_->stop = true;
  state_->cv.notify_all();
  const bool stuck = state_->running || state_->job;
  std::thread w = std::move(state_->worker);
  l.unlock();
  if (stuck)
    w.detach();
  else
    w.join();
}

BoundedCall::Outcome BoundedCall::run(std::function<void()> job, std::chrono::milliseconds deadline) {
  std::unique_lock<std::mutex> l(state_->m);
  if (state_->running || state_->job) {
    // Only an abandoned job can hold the worker here (calls come one at a time).
    if (stuck_->load() >= max_stuck_) return Outcome::busy;
    // Retired: it exits once its job ends; this and later jobs go to a fresh worker.
    state_->stop = true;
    state_->worker.detach();
    l.unlock();
    state_ = start_worker(stuck_);
    l = std::unique_lock<std::mutex>(state_->m);
  }
  const unsigned long long mine = state_->finished + 1;
  state_->job = std::move(job);
  state_->cv.notify_all();
  if (state_->cv.wait_for(l, deadline, [&] { return state_->finished >= mine; })) return Outcome::done;
  state_->abandoned = true;
  stuck_->fetch_add(1);  // under the worker's lock: its end (below) cannot come first
  return Outcome::timed_out;
}

bool BoundedCall::wait_idle(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> l(state_->m);
  return state_->cv.wait_for(l, limit, [&] { return !state_->running && !state_->job; });
}

void BoundedCall::work(const std::shared_ptr<State>& s) {
  t_abandoned = &s->abandoned;
  std::unique_lock<std::mutex> l(s->m);
  while (true) {
    s->cv.wait(l, [&] { return s->stop || s->job; });
    if (!s->job) return;  // stopping, nothing left
    std::function<void()> job = std::move(s->job);
    s->job = nullptr;
    s->running = true;
    s->abandoned = false;
    l.unlock();
    try {
      job();
    } catch (...) {
      // The job reports its own failures; nothing may escape a thread.
    }
    job = nullptr;  // what it captured goes before the caller hears it is done
    l.lock();
    if (s->abandoned) s->stuck->fetch_sub(1);
    s->running = false;
    ++s->finished;
    s->cv.notify_all();
    if (s->stop) return;
  }
}

std::chrono::milliseconds call_deadline(long long request_timeout_ms) {
  const long long timeout = request_timeout_ms > 0 ? request_timeout_ms : 2000;
  return std::chrono::milliseconds(std::clamp(timeout * 3 / 4, 50LL, 10000LL));
}

}  // namespace gnh::nri
