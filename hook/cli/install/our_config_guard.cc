#include "cli/install/our_config_guard.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "base/error.h"
#include "cli/install/file_writer.h"
#include "config/config.h"

namespace gnh::install_cli {

namespace {

// Two names for one file: the same inode where both exist, else the same absolute path.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ec1, ec2;
  auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ec1);
  auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), ec2);
  return !ec1 && !ec2 && ca == cb;
}

}  // namespace

void vet_our_config(const std::string& ours, const std::string& engine_file, const std::string& runtime) {
  const std::string hint = ": --config names gpu-numa-hook's own config (default " + std::string(kDefaultConfigPath) +
                           "); the engine's file is --runtime-config (nvidia-ctk calls it --config); nothing was written";
  if (same_file(ours, engine_file))
    fail("--config " + ours + " is " + runtime + "'s own file (--runtime-config)" + hint);
  auto text = read_optional(ours);
  if (!text) return;
  Config c;
  try {
    c = parse_config(*text, ours);
  } catch (const Error& e) {
    fail("--config " + ours + " is not a gpu-numa-hook config (" + e.what() + ")" + hint);
  }
  std::string foreign;
  for (const auto& p : c.problems)
    if (p.key.find_first_of(".[") == std::string::npos && p.what.rfind("unknown key", 0) == 0)
      foreign += (foreign.empty() ? "'" : ", '") + p.key + "'";
  if (!foreign.empty())
    fail("--config " + ours + " is not a gpu-numa-hook config: its top level has " + foreign +
         ", none of gpu-numa-hook's tables (policy, log, lock, chain, topology, check, runtime, nvml, systemd)" + hint);
  for (const auto& p : c.problems) std::fprintf(stderr, "gpu-numa-hook: install: warning: %s\n", describe(p).c_str());
  if (!c.problems.empty())
    std::fprintf(stderr, "gpu-numa-hook: install: warning: the hook ignores %zu key(s) of %s until they are fixed "
                         "(gpu-numa-hook config check lists them)\n", c.problems.size(), ours.c_str());
}

}  // namespace gnh::install_cli
