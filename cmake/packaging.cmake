# Installed files (FHS, CMAKE_INSTALL_PREFIX /usr) and the Debian package (cpack -G DEB).
# Files under /etc are installed to absolute destinations: they are conffiles wherever the
# binaries go.

# Man pages, generated at build time from docs/man/*.scd (Debian package scdoc).
find_program(SCDOC scdoc)
set(GNH_MAN_PAGES gpu-numa-hook.1 gpu-numa-runtime.1 gpu-numa-hook.toml.5)
if(SCDOC)
  set(_gnh_man_outputs)
  foreach(page ${GNH_MAN_PAGES})
    set(src ${PROJECT_SOURCE_DIR}/docs/man/${page}.scd)
    set(out ${PROJECT_BINARY_DIR}/man/${page})
    add_custom_command(OUTPUT ${out} COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
                       COMMAND sh -c "${SCDOC} < '${src}' > '${out}'" DEPENDS ${src} VERBATIM)
    list(APPEND _gnh_man_outputs ${out})
    string(REGEX MATCH "[0-9]$" section ${page})
    install(FILES ${out} DESTINATION share/man/man${section})
  endforeach()
  add_custom_target(man-pages ALL DEPENDS ${_gnh_man_outputs})
else()
  message(WARNING "scdoc not found: no man pages (apt-get install scdoc)")
endif()

install(FILES config/config.toml DESTINATION /etc/gpu-numa-hook)
install(FILES config/logrotate/gpu-numa-hook DESTINATION /etc/logrotate.d)
install(FILES config/registration/hooks.d/gpu-numa-hook.json DESTINATION share/containers/oci/hooks.d)
install(FILES config/systemd/gpu-numa-hook-check.service config/systemd/gpu-numa-hook-check.timer
        DESTINATION lib/systemd/system)
# The wait drop-in changes other packages' services: shipped as an example the operator copies.
install(FILES config/systemd/gpu-numa-hook-wait.conf config/systemd/README.md
        DESTINATION share/doc/gpu-numa-hook/systemd)
install(FILES config/bash-completion/gpu-numa-hook DESTINATION share/bash-completion/completions)
install(FILES README.md docs/RUNTIMES.md DESTINATION share/doc/gpu-numa-hook)

set(CPACK_PACKAGE_NAME gpu-numa-hook)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpu-numa-hook maintainers <dev@gnh.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OCI hook and runtime shim keeping GPU containers' cpuset.mems in step with GPU NUMA nodes")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# No Depends: both executables are static PIEs (no shared library, not even libc, is loaded), so
# dpkg-shlibdeps would find nothing and nothing else is run. Recommends name what uses them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "runc | crun")
set(CPACK_STRIP_FILES ON)
# conffiles: the operator's config and logrotate file survive upgrades; postrm purges the log.
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/conffiles ${PROJECT_BINARY_DIR}/debian/conffiles COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/postrm ${PROJECT_BINARY_DIR}/debian/postrm COPYONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/debian/conffiles;${PROJECT_BINARY_DIR}/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
