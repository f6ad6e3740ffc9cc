# Hot-text ordering for the binaries that run on every container start (gpu-numa-hook).
#
# The kernel maps a file-backed page fault's whole 64 KiB neighbourhood ("fault-around"), and a
# start's cost grows with every page mapped and unmapped. A default link scatters the ~650
# functions a start runs over the whole 3.7 MB of text, so nearly all of it was mapped on every
# start. With -ffunction-sections and lld's --symbol-ordering-file, those functions (listed in
# hook/cli/hot_symbols.txt, made by bench/hot-symbols.sh) are laid side by side at the start of
# .text: the fast path maps half as much and starts 0.09 ms sooner (docs/internals/benchmarks.md).
#
# lld is found beside the compiler, not through PATH: gcc's -fuse-ld=lld looks for `ld.lld` in its
# -B directories, and a directory of our own holds only that one link, so a cross gcc finds its
# own assembler and crt files as before. Without lld the binaries are linked as before, and
# configure says so.
option(GNH_HOT_TEXT "Lay out gpu-numa-hook's start-up code contiguously (needs lld)" ON)
set(GNH_HOT_TEXT_LINK_OPTIONS "")
if(GNH_HOT_TEXT AND GNH_LINK_STATIC)
  find_program(GNH_LLD NAMES ld.lld ld.lld-16 ld.lld-15 ld.lld-14)
  if(GNH_LLD)
    set(_gnh_lld_dir ${CMAKE_BINARY_DIR}/hot-text-ld)
    file(MAKE_DIRECTORY ${_gnh_lld_dir})
    file(CREATE_LINK ${GNH_LLD} ${_gnh_lld_dir}/ld.lld SYMBOLIC)
    set(_gnh_order ${PROJECT_SOURCE_DIR}/hook/cli/hot_symbols.txt)
    set(_gnh_opts -B${_gnh_lld_dir}/ -fuse-ld=lld -Wl,--symbol-ordering-file=${_gnh_order}
                  -Wl,--no-warn-symbol-ordering)
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_LINK_OPTIONS ${GNH_STATIC_LINK_OPTION} ${_gnh_opts})
    set(CMAKE_REQUIRED_FLAGS -fPIE)
    check_cxx_source_compiles("#include <stdexcept>
      int main(int argc, char**) { try { if (argc) throw std::runtime_error(\"x\"); } catch (...) { return 0; } return 1; }"
      GNH_HAVE_LLD_STATIC_LINK)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    unset(CMAKE_REQUIRED_FLAGS)
  endif()
  if(GNH_LLD AND GNH_HAVE_LLD_STATIC_LINK)
    add_compile_options(-ffunction-sections)
    set(GNH_HOT_TEXT_LINK_OPTIONS ${_gnh_opts})
  else()
    message(WARNING "gpu-numa-hook is linked without hot-text ordering: lld (Debian package `lld`) "
                    "is missing or cannot link ${GNH_STATIC_LINK_OPTION} here. It works, and starts about "
                    "0.09 ms slower.")
  endif()
endif()
