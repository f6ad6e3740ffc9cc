// The plugin's PluginHandler: the pure decisions (decisions.h) fed with what the host says (the
// driver's GPUs, the container's cgroup), every decision written to the event log.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "config/config.h"
#include "host/log/event_log.h"
#include "plugin/decisions.h"
#include "plugin/hook_binary.h"
#include "plugin/session.h"
#include "report/log_record.h"

namespace gnh::nri {

class GpuNumaPlugin : public PluginHandler {
 public:
  // `log` receives every record (the event log, and stderr for `kubectl logs`).
  // `hook_seen` receives every probe of the hook's path (the state file records it).
  GpuNumaPlugin(Config cfg, HookSettings hook, std::function<void(const LogRecord&)> log,
                std::function<void(const HookBinary&)> hook_seen = {})
      : cfg_(std::move(cfg)), hook_(std::move(hook)), log_(std::move(log)), hook_seen_(std::move(hook_seen)) {}

  void configured(const api::ConfigureRequest& req) override;
  api::CreateContainerResponse create_container(const api::CreateContainerRequest& req) override;
  api::UpdateContainerResponse update_container(const api::UpdateContainerRequest& req) override;
  // A container that cannot get a GPU: no adjustment, decided from the request alone.
  std::optional<api::CreateContainerResponse> create_from_request(const api::CreateContainerRequest& req) override;
  std::optional<api::UpdateContainerResponse> update_from_request(const api::UpdateContainerRequest& req) override;
  void container_created(const api::PodSandbox& pod, const api::Container& c) override;
  void call_failed(const std::string& what) override;

  // Time spent in the last CreateContainer/UpdateContainer, for the benchmark's per-event figure.
  long long last_event_us() const { return last_us_.load(std::memory_order_relaxed); }
  // Containers the hook was added to since the plugin started (any thread may read it).
  uint64_t injections() const { return injections_.load(std::memory_order_relaxed); }

 private:
  void write(LogRecord r) const;
  // Whether an update can drop a GPU node: the container may have a GPU and mems are set.
  static bool update_may_drop_gpu_nodes(const api::UpdateContainerRequest& req, const oci::Spec& spec);
  Config cfg_;
  HookSettings hook_;
  std::function<void(const LogRecord&)> log_;
  std::function<void(const HookBinary&)> hook_seen_;
  // Atomic: a call abandoned at its deadline can still finish beside the next one (bounded_call.h).
  std::atomic<long long> last_us_{0};
  std::atomic<uint64_t> injections_{0};
};

}  // namespace gnh::nri
