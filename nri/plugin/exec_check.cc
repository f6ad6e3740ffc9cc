#include "plugin/exec_check.h"

#include <elf.h>

#include <cerrno>

namespace gnh::nri {

const MountInfoLine* mount_for_path(const std::vector<MountInfoLine>& mounts, std::string_view host_path) {
  const MountInfoLine* best = nullptr;
  for (const auto& m : mounts) {
    const std::string& mp = m.mount_point;
    const bool under = mp == "/" || host_path == mp ||
                       (host_path.size() > mp.size() && host_path.substr(0, mp.size()) == mp && host_path[mp.size()] == '/');
    if (under && (!best || mp.size() >= best->mount_point.size())) best = &m;
  }
  return best;
}

std::string noexec_problem(const MountInfoLine& m) {
  for (const auto& o : m.mount_options)
    if (o == "noexec") return "on a noexec mount (" + m.mount_point + ", " + m.source + ")";
  return "";
}

ElfIdentity this_node_elf() {
  ElfIdentity id;
  id.elf_class = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
  id.data = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
#if defined(__x86_64__)
  id.machine = EM_X86_64;
#elif defined(__aarch64__)
  id.machine = EM_AARCH64;
#elif defined(__powerpc64__)
  id.machine = EM_PPC64;
#elif defined(__s390x__)
  id.machine = EM_S390;
#elif defined(__riscv)
  id.machine = EM_RISCV;
#elif defined(__i386__)
  id.machine = EM_386;
#elif defined(__arm__)
  id.machine = EM_ARM;
#else
#error "add this architecture's EM_ constant"
#endif
  return id;
}

std::string arch_name(int machine, int data) {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    // ppc64 is named by byte order, as distributions name it.
    case EM_PPC64: return data == ELFDATA2LSB ? "ppc64le" : "ppc64 (big-endian)";
    case EM_S390: return "s390x";
    case EM_RISCV: return "riscv";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    default: return "machine " + std::to_string(machine);
  }
}

bool probe_failure_is_ours(int err) {
  switch (err) {
    case EMFILE: case ENFILE: case ENOMEM: case ENOBUFS: case EAGAIN: case EINTR: return true;
    default: return false;
  }
}

std::string exec_format_problem(std::string_view head, const ElfIdentity& node) {
  if (head.substr(0, 2) == "#!") return "";
  if (head.size() < 4 || head.substr(0, 4) != std::string_view(ELFMAG, SELFMAG))
    return "not an ELF executable or a #! script";
  if (head.size() < EI_NIDENT + 4) return "a truncated ELF header";
  const int cls = static_cast<unsigned char>(head[EI_CLASS]);
  const int data = static_cast<unsigned char>(head[EI_DATA]);
  // e_type (2 bytes) then e_machine (2 bytes), in the file's byte order; at 16 in both classes.
  const auto b0 = static_cast<unsigned char>(head[18]), b1 = static_cast<unsigned char>(head[19]);
  const int machine = data == ELFDATA2MSB ? (b0 << 8 | b1) : (b1 << 8 | b0);
  if (machine != node.machine || data != node.data)
    return "built for " + arch_name(machine, data) + ", this node is " + arch_name(node.machine, node.data);
  if (cls != node.elf_class)
    return std::string("a ") + (cls == ELFCLASS32 ? "32" : cls == ELFCLASS64 ? "64" : "?") + "-bit ELF, this node runs " +
           (node.elf_class == ELFCLASS64 ? "64" : "32") + "-bit programs";
  return "";
}

}  // namespace gnh::nri
