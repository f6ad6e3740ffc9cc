#include "check/result.h"

namespace gnh {

long CheckResult::tasks_of(const std::string& path) const {
  auto it = tasks.find(path);
  return it == tasks.end() ? -1 : it->second;
}

int CheckResult::exit_code() const {
  if (fix && (!fix->error.empty() || fix->failed() > 0)) return 1;
  for (const auto& c : container_fixes)
    if (!c.error.empty()) return 1;
  for (const auto& u : systemd_updates)
    if (!u.error.empty()) return 1;
  return problems() == 0 ? 0 : 1;
}

}  // namespace gnh
