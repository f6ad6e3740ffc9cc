# Cross build for ppc64le (IBM POWER9 AC922) from x86_64 Debian:
#   cmake -S . -B build-ppc64le -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/ppc64le-linux-gnu.cmake
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(GNH_TRIPLET powerpc64le-linux-gnu)
set(GNH_QEMU qemu-ppc64le-static)
include(${CMAKE_CURRENT_LIST_DIR}/linux-multiarch.cmake)
