// Whether runc on this node can exec a file, decided from facts read elsewhere: the mount that
// holds it (from the host's mountinfo) and the first bytes of the file. Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/cgroup_location.h"

namespace gnh::nri {

// The mount `host_path` is on: the longest mount point that is a path prefix of it; of equal ones
// the last listed (mounted later, on top). nullptr when none (a table that is not this host's).
const MountInfoLine* mount_for_path(const std::vector<MountInfoLine>& mounts, std::string_view host_path);

// "on a noexec mount (/opt, /dev/sda3)" when the mount is noexec, else "".
std::string noexec_problem(const MountInfoLine& m);

// The node's ELF identity: class (1 = 32-bit, 2 = 64-bit), data (1 = little-endian, 2 = big) and
// e_machine, as this program was built (it runs here, so the node runs this).
struct ElfIdentity {
  int elf_class = 0;
  int data = 0;
  int machine = 0;
};
ElfIdentity this_node_elf();
// An ELF machine and byte order (EI_DATA) as operators name them: "x86_64", "aarch64", "ppc64le"...
// or "machine 243".
std::string arch_name(int machine, int data);

// Whether a probe's failure with this errno is a shortage of our own (EMFILE, ENFILE, ENOMEM,
// ENOBUFS, EAGAIN, EINTR): it says nothing of the file, which runc, another process, may well
// exec. Any other errno (ENOENT, EACCES, ENOTDIR, ELOOP, EIO...) is about the file or its path.
bool probe_failure_is_ours(int err);

// The first bytes of the file (64 suffice): "" when runc can exec it here: an ELF of this node's
// class, byte order and machine, or a "#!" script (the kernel runs its interpreter, as for any
// script runc is given). Otherwise why not, e.g. "built for aarch64, this node is x86_64".
std::string exec_format_problem(std::string_view head, const ElfIdentity& node);

}  // namespace gnh::nri
