# Cross build for aarch64 (NVIDIA Grace: GH200, GB200, GB300) from x86_64 Debian:
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(GNH_TRIPLET aarch64-linux-gnu)
set(GNH_QEMU qemu-aarch64-static)
include(${CMAKE_CURRENT_LIST_DIR}/linux-multiarch.cmake)
