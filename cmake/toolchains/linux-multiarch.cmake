# Shared by the cross toolchain files: a Debian multiarch cross build from an x86_64 machine.
# Needs GNH_TRIPLET (e.g. aarch64-linux-gnu) and GNH_QEMU (e.g. qemu-aarch64-static) set first.
# Compilers come from crossbuild-essential-<arch>, libraries from the :<arch> -dev packages, which
# Debian installs beside the build machine's own (/usr/lib/<triplet>, /usr/include/<triplet>).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${GNH_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${GNH_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${GNH_TRIPLET})
# find_package/find_library look in /usr/lib/<triplet> first (CMAKE_LIBRARY_ARCHITECTURE); the
# arch-independent header-only packages (nlohmann_json, doctest, CLI11) are found in /usr as usual.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${GNH_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
# Programs built here and run at build or test time (sandbox_filter_gen, which must emit the
# seccomp filter for the TARGET arch; doctest's test discovery; ctest) run under qemu-user. They
# find the arch's dynamic loader and libraries where multiarch put them (/lib/ld-linux-aarch64.so.1,
# /lib64/ld64.so.2, /usr/lib/<triplet>), so no -L: qemu's -L prefix also re-routes every path
# the program opens, which made the fixture tests' `check` runs hang under it.
find_program(GNH_QEMU_PATH ${GNH_QEMU} REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${GNH_QEMU_PATH})
