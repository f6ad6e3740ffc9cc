// Build-time generator: compiles the allow-list of sandbox_rules.cc to BPF with libseccomp (its
// seccomp_export_bpf, the program seccomp_load would install) and writes it as C++ for sandbox.cc:
//
//   sandbox_filter_gen OUT.inc
//
// Two programs: the production one and the one for AddressSanitizer test builds (LeakSanitizer's
// extra rules). Each is written with the pid placeholder of tgkill's rule, and the indices of the
// instructions that hold it, which sandbox.cc patches with the real pid. The programs are for the
// architecture this generator runs on, which is the one the hook is built for: a cross build
// (cmake/toolchains/) builds the generator for the target too and runs it under qemu-user, so
// libseccomp's native arch is the target's (AUDIT_ARCH_AARCH64, AUDIT_ARCH_PPC64LE).
#include <linux/filter.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "host/sandbox/sandbox_rules.h"

namespace {

bool emit(std::FILE* out, const char* name, bool leak_sanitizer) {
  std::vector<unsigned char> bytes;
  std::string err = gnh::export_sandbox_filter(gnh::kSandboxPidPlaceholder, leak_sanitizer, &bytes);
  if (!err.empty() || bytes.empty() || bytes.size() % sizeof(sock_filter) != 0) {
    std::fprintf(stderr, "sandbox_filter_gen: %s: %s\n", name, err.empty() ? "bad program size" : err.c_str());
    return false;
  }
  std::vector<sock_filter> prog(bytes.size() / sizeof(sock_filter));
  std::memcpy(prog.data(), bytes.data(), bytes.size());
  std::vector<size_t> slots;
  std::fprintf(out, "inline constexpr sock_filter %s[] = {\n", name);
  for (size_t i = 0; i < prog.size(); ++i) {
    const sock_filter& f = prog[i];
    std::fprintf(out, "    {0x%04x, %u, %u, 0x%08x},\n", f.code, f.jt, f.jf, f.k);
    if (f.k == gnh::kSandboxPidPlaceholder) {
      if (f.code != (BPF_JMP | BPF_JEQ | BPF_K)) {
        std::fprintf(stderr, "sandbox_filter_gen: %s: the pid placeholder is in an unexpected instruction\n", name);
        return false;
      }
      slots.push_back(i);
    }
  }
  std::fprintf(out, "};\ninline constexpr size_t %sPidSlots[] = {", name);
  for (size_t s : slots) std::fprintf(out, "%zu, ", s);
  std::fprintf(out, "};\n\n");
  if (slots.size() != 1) {
    std::fprintf(stderr, "sandbox_filter_gen: %s: expected the pid placeholder once, found it %zu times\n", name,
                 slots.size());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sandbox_filter_gen OUT.inc\n");
    return 2;
  }
  std::string tmp = std::string(argv[1]) + ".tmp";
  std::FILE* out = std::fopen(tmp.c_str(), "w");
  if (!out) {
    std::perror(tmp.c_str());
    return 1;
  }
  std::fprintf(out,
               "// Generated at build time by sandbox_filter_gen from hook/host/sandbox/sandbox_rules.cc (libseccomp's\n"
               "// seccomp_export_bpf). Do not edit. Included by sandbox.cc inside namespace gnh::generated.\n\n");
  bool ok = emit(out, "kSandboxFilter", false) && emit(out, "kSandboxFilterLeakSanitizer", true);
  if (std::fclose(out) != 0 || !ok || std::rename(tmp.c_str(), argv[1]) != 0) {
    std::remove(tmp.c_str());
    return 1;
  }
  return 0;
}
