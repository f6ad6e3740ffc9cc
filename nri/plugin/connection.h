// One NRI connection on a socket, to its end: register, then answer the runtime's calls until the
// runtime closes it, asks us to shut down, breaks the protocol or stops answering. Every limit is
// a timeout or a size: a peer can neither hang the plugin nor make it grow.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "plugin/session.h"

namespace gnh::nri {

struct ConnectionLimits {
  int configure_timeout_ms = 10000;  // RegisterPlugin sent, no Configure yet (the runtime waits 5 s)
  int mid_frame_timeout_ms = 5000;   // part of a frame arrived, the rest does not
  int write_timeout_ms = 5000;       // the runtime does not read our answer
  // A pre-registered plugin counts as registered at Configure: NRI 0.6 (containerd 1.7) never
  // synchronizes the plugins it launched. Otherwise registration is the last Synchronize answered.
  bool registered_at_configure = false;
};

struct ConnectionEnd {
  bool was_configured = false;
  bool was_registered = false;  // Synchronize completed: the runtime counted us as a plugin
  bool shutdown = false;  // the runtime asked us to stop (Shutdown)
  std::string why;        // one line for the log
};

// Dial a unix socket; -1 with *error on failure.
int dial_unix(const std::string& path, std::string* error);

// Runs the connection on `fd` (closed on return). `on_registered` is called once the runtime's
// Synchronize (all its parts) has been answered, or Configure with registered_at_configure: from
// then on the runtime sends us its containers.
// `stop` ends it early (SIGTERM).
ConnectionEnd run_connection(int fd, Session& session, const std::string& name, const std::string& idx,
                             const ConnectionLimits& limits, const std::function<void()>& on_registered,
                             const std::atomic<bool>& stop);

}  // namespace gnh::nri
