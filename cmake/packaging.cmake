# Installed files (FHS, CMAKE_INSTALL_PREFIX /usr) and the Debian package (cpack -G DEB).
# Files under /etc are installed to absolute destinations: they are conffiles wherever the
# binaries go.

# Man pages, generated at build time from docs/man/*.scd (Debian package scdoc).
find_program(SCDOC scdoc)
set(GNH_MAN_PAGES gpu-numa-hook.1 gpu-numa-runtime.1 gpu-numa-hook.toml.5 gpu-numa-nri.1)
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
# The hooks.d file switches the hook on for podman and CRI-O wherever it lies in their hooks_dir
# (/usr/share/containers/oci/hooks.d is read by default): the package ships it for reference only
# and `gpu-numa-hook install --runtime podman|crio` places it, recorded and undone with the rest.
install(FILES config/registration/hooks.d/gpu-numa-hook.json DESTINATION share/doc/gpu-numa-hook/hooks.d)
install(FILES config/systemd/gpu-numa-hook-check.service config/systemd/gpu-numa-hook-check.timer
        config/systemd/gpu-numa-hook-topology.service
        DESTINATION lib/systemd/system)
install(FILES config/systemd/90-gpu-numa-hook.preset DESTINATION lib/systemd/system-preset)
# The wait drop-in changes other packages' services: `gpu-numa-hook install --boot-gate SERVICE`
# writes it (the same text, hook/core/install/boot_gate.cc); shipped here for reference.
install(FILES config/systemd/gpu-numa-hook-wait.conf config/systemd/README.md
        DESTINATION share/doc/gpu-numa-hook/systemd)
install(FILES config/bash-completion/gpu-numa-hook DESTINATION share/bash-completion/completions)
# zsh and fish load completions from their vendor directories (Debian's paths).
install(FILES config/zsh-completion/_gpu-numa-hook DESTINATION share/zsh/vendor-completions)
install(FILES config/fish-completion/gpu-numa-hook.fish DESTINATION share/fish/vendor_completions.d)
# The README and docs/ as in the repository, so the README's and the pages' relative links hold.
install(FILES README.md CHANGELOG.md DESTINATION share/doc/gpu-numa-hook)
# The licence: Debian's machine-readable copyright file (DEP-5, naming Apache-2.0, whose text Debian
# keeps in /usr/share/common-licenses) and the full text with NOTICE, which the .rpm marks %license.
# Both packages carry the same files (tests/package/check-packages.sh compares their lists).
install(FILES packaging/debian/copyright LICENSE NOTICE DESTINATION share/doc/gpu-numa-hook)
install(DIRECTORY docs/ DESTINATION share/doc/gpu-numa-hook/docs FILES_MATCHING PATTERN "*.md" PATTERN "man" EXCLUDE)

set(CPACK_PACKAGE_NAME gpu-numa-hook)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# The maintainer field names whoever builds and publishes the packages: -DGNH_PACKAGE_MAINTAINER, or
# Debian's DEBFULLNAME / DEBEMAIL (what dch and dh_make use) at configure time. Without either the
# field says the packages were built locally, by the machine's administrator, and names no one else.
if(DEFINED ENV{DEBEMAIL} AND NOT "$ENV{DEBEMAIL}" STREQUAL "")
  set(_gnh_maintainer_default "$ENV{DEBFULLNAME} <$ENV{DEBEMAIL}>")
  string(STRIP "${_gnh_maintainer_default}" _gnh_maintainer_default)
else()
  set(_gnh_maintainer_default "gpu-numa-hook local build <root@localhost>")
endif()
set(GNH_PACKAGE_MAINTAINER "${_gnh_maintainer_default}" CACHE STRING "The packages' Maintainer / Packager: Name <address>")
set(CPACK_PACKAGE_CONTACT "${GNH_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VENDOR "gpu-numa-hook")
set(CPACK_RPM_PACKAGE_LICENSE "Apache-2.0")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OCI hook and runtime shim keeping GPU containers' cpuset.mems in step with GPU NUMA nodes")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# `cpack` in a build tree makes both: the .deb (Debian, Ubuntu) and the .rpm (RHEL: the AC922's
# usual OS, and Grace nodes on RHEL). The arch is the build's target, not the build machine's, so
# one x86_64 machine makes all six from its native and cross build trees (packaging/build-all.sh).
set(CPACK_GENERATOR DEB RPM)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(_gnh_arch ${CMAKE_SYSTEM_PROCESSOR})
if(_gnh_arch STREQUAL "x86_64" OR _gnh_arch STREQUAL "AMD64")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
  set(CPACK_RPM_PACKAGE_ARCHITECTURE x86_64)
elseif(_gnh_arch STREQUAL "aarch64" OR _gnh_arch STREQUAL "arm64")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  set(CPACK_RPM_PACKAGE_ARCHITECTURE aarch64)
elseif(_gnh_arch MATCHES "^(ppc64le|powerpc64le)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ppc64el)
  set(CPACK_RPM_PACKAGE_ARCHITECTURE ppc64le)
else()
  message(WARNING "packaging: no Debian/RPM arch name known for ${_gnh_arch}; cpack uses the build machine's")
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# No Depends: both executables are static PIEs (no shared library, not even libc, is loaded), so
# dpkg-shlibdeps would find nothing and nothing else is run. Recommends name what uses them.
# gpu-numa-nvml-probe (topology --refresh) is dynamic for dlopen but needs libc.so.6 alone, which
# every Debian/Ubuntu (libc6, priority required) and RHEL system has; it loads the driver's
# libnvidia-ml.so.1 only on hosts that have it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "runc | crun")
set(CPACK_STRIP_FILES ON)
# conffiles: the operator's config and logrotate file survive upgrades. postinst enables the check
# timer; prerm (remove only) undoes the engine registrations install-state.json records before the
# binaries go, or refuses (packaging/scriptlets/engine-undo.sh, shared with the rpm's preun scriptlet);
# postrm purges the log and the timer's enablement.
file(READ ${PROJECT_SOURCE_DIR}/packaging/scriptlets/engine-undo.sh GNH_ENGINE_UNDO)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/packaging/scriptlets/engine-undo.sh)
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/conffiles ${PROJECT_BINARY_DIR}/debian/conffiles COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/postinst ${PROJECT_BINARY_DIR}/debian/postinst COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/prerm.in ${PROJECT_BINARY_DIR}/debian/prerm @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/postrm ${PROJECT_BINARY_DIR}/debian/postrm COPYONLY)
set(_gnh_deb ${PROJECT_BINARY_DIR}/debian)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${_gnh_deb}/conffiles;${_gnh_deb}/postinst;${_gnh_deb}/prerm;${_gnh_deb}/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# The RPM: the same files. No Requires (AUTOREQPROV off: the executables are static, and rpm's
# scan would otherwise add what it guesses); %config(noreplace) keeps the operator's config and
# logrotate file on upgrade, as the conffiles do. rpmbuild's own strip and debuginfo steps use the
# build machine's binutils, which cannot read a cross build's ELF files: CPACK_STRIP_FILES has
# stripped them already with the target's strip. No /usr/lib/.build-id links: the .deb has none either.
set(CPACK_RPM_PACKAGE_GROUP "System Environment/Base")
set(CPACK_RPM_PACKAGE_AUTOREQPROV OFF)
set(CPACK_RPM_USER_FILELIST "%config(noreplace) /etc/gpu-numa-hook/config.toml"
    "%config(noreplace) /etc/logrotate.d/gpu-numa-hook" "%license /usr/share/doc/gpu-numa-hook/LICENSE"
    "%license /usr/share/doc/gpu-numa-hook/NOTICE")
# The same scriptlets as the .deb's, in rpm's terms: post applies the timer's preset (what
# systemd_post does), preun ($1 = 0 only) undoes the engine registrations or refuses, then
# systemd_preun; postun reloads systemd. No percent sign in them, comments included: rpmbuild
# expands macros everywhere in a scriptlet.
configure_file(${PROJECT_SOURCE_DIR}/packaging/rpm/preun.sh.in ${PROJECT_BINARY_DIR}/rpm/preun.sh @ONLY)
set(CPACK_RPM_POST_INSTALL_SCRIPT_FILE ${PROJECT_SOURCE_DIR}/packaging/rpm/post.sh)
set(CPACK_RPM_PRE_UNINSTALL_SCRIPT_FILE ${PROJECT_BINARY_DIR}/rpm/preun.sh)
set(CPACK_RPM_POST_UNINSTALL_SCRIPT_FILE ${PROJECT_SOURCE_DIR}/packaging/rpm/postun.sh)
# Packager: the same person or group as the .deb's Maintainer.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define __os_install_post %{nil}\n%define debug_package %{nil}\n%define _build_id_links none\n%define packager ${GNH_PACKAGE_MAINTAINER}")
# Directories the distribution's filesystem package owns are not claimed by ours.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION /etc/logrotate.d /usr/lib/systemd /usr/lib/systemd/system
    /usr/lib/systemd/system-preset
    /usr/share/man /usr/share/man/man1 /usr/share/man/man5 /usr/share/bash-completion
    /usr/share/bash-completion/completions /usr/share/zsh /usr/share/zsh/vendor-completions /usr/share/fish
    /usr/share/fish/vendor_completions.d /usr/share/doc)
include(CPack)
