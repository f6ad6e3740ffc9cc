#include "plugin/hook_watch.h"
#include "plugin/plugin_log.h"

namespace gnh::nri {

namespace {

LogRecord hook_record(const char* level, const char* action, std::string msg) {
  return plugin_record("nri-hook", level, action, std::move(msg));
}

}  // namespace

void HookWatch::seen(const HookBinary& h) {
  std::lock_guard<std::mutex> l(m_);
  if (h.unchecked != unchecked_) {
    // Our own shortage, not the hook's: said once when it starts and once when it ends.
    if (h.unchecked.empty())
      log_(hook_record("info", "checked", "the hook " + h.path + " can be checked again"));
    else
      log_(hook_record("warn", "unchecked",
                       "cannot check the hook " + h.path + " (" + h.unchecked +
                           ", a shortage of this plugin's own, not of the hook): the last check's verdict stands (" +
                           (h.usable ? std::string("usable: GPU containers get the hook") : "not usable: " + h.problem) +
                           "); raise the plugin's open-file limit or memory if this lasts"));
    unchecked_ = h.unchecked;
  }
  const bool changed = record_(h);
  const bool first = first_probe_;
  first_probe_ = false;
  if (!changed && !first) return;
  if (first && h.usable) return;  // a usable hook at start is the normal case: nothing to say
  if (h.usable)
    log_(hook_record("info", "present", "the hook " + h.path + " is usable again: GPU containers get it from now on"));
  else
    log_(hook_record("error", "missing",
                     "the hook " + h.path + " is not usable on this node (" + h.problem +
                         "): GPU containers start WITHOUT it until it is back (the DaemonSet's init container copies "
                         "it; or point --hook at it)"));
}

}  // namespace gnh::nri
