#!/bin/bash
# The six packages of packaging/build-all.sh, checked without installing into this machine's /:
# names, versions and arch fields, the licence (Debian copyright file, RPM License and %license), the
# maintainer field, the same file list in every package, conffile / %config(noreplace), no
# dependencies, the ELF machine of each executable, and each .rpm installed into a scratch root
# with `rpm --root` (its files must land there). The .deb of this machine's arch is installed for
# real by tests/package/run-package-tests.sh.
#   tests/package/check-packages.sh DIR
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$SCRIPT_DIR/../support/tally.sh"
DIR=$(cd "${1:?usage: check-packages.sh DIR}" && pwd)
TMP=$(mktemp -d /tmp/gnh-pkgcheck.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
for t in dpkg-deb rpm readelf; do command -v $t >/dev/null || { fail "tools" "$t missing (apt-get install dpkg rpm binutils)"; finish; }; done

# ELF e_machine as readelf names it, per package arch
machine_of() { case $1 in amd64|x86_64) echo "Advanced Micro Devices X86-64" ;; arm64|aarch64) echo "AArch64" ;;
               ppc64el|ppc64le) echo "PowerPC64" ;; esac; }
elf_ok() { # FILE ARCH: the right machine, little-endian, and no interpreter (static)
    local h
    h=$(readelf -h "$1" 2>&1)
    echo "$h" | grep -q "Machine: *$(machine_of "$2")$" && echo "$h" | grep -q "little endian" &&
        ! readelf -l "$1" 2>/dev/null | grep -q "Requesting program interpreter"
}
# gpu-numa-nvml-probe must dlopen NVML, so it is dynamic: the right machine, and libc.so.6 its only
# shared library (the packages stay free of dependencies: every system has libc).
probe_ok() { # FILE ARCH
    local h needed
    h=$(readelf -h "$1" 2>&1)
    needed=$(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    echo "$h" | grep -q "Machine: *$(machine_of "$2")$" && [ "$needed" = "libc.so.6 " ]
}
ref=""
# The one version (CMakeLists.txt's project(VERSION), which tests/docs/check-version.sh holds equal to
# --version, CHANGELOG.md and the image tag) is the one in every package's name and version field.
VERSION=$(sed -n 's/^project(gpu-numa-hook VERSION \([0-9][0-9.]*\) .*/\1/p' "$SCRIPT_DIR/../../CMakeLists.txt")
# The licence: Debian's machine-readable copyright file naming Apache-2.0 (its standalone License
# paragraph present), and the full text, which the .rpm marks %license.
copyright_ok() { # FILE
    grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$1" &&
        grep -qx 'Upstream-Name: gpu-numa-hook' "$1" && grep -qx 'Files: \*' "$1" &&
        grep -qx 'License: Apache-2.0' "$1" && grep -q '^ Licensed under the Apache License, Version 2.0' "$1" &&
        grep -q '/usr/share/common-licenses/Apache-2.0' "$1"
}
for a in amd64 arm64 ppc64el; do
    deb=$(ls "$DIR"/gpu-numa-hook_*_"$a".deb 2>/dev/null | head -n1)
    [ -f "$deb" ] || { fail "deb $a" "no gpu-numa-hook_*_$a.deb in $DIR"; continue; }
    arch=$(dpkg-deb -f "$deb" Architecture); deps=$(dpkg-deb -f "$deb" Depends)
    ver=$(dpkg-deb -f "$deb" Version); maint=$(dpkg-deb -f "$deb" Maintainer)
    files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' | grep -v '/$' | sort)
    rm -rf "$TMP/x"; mkdir -p "$TMP/x" "$TMP/c"; dpkg-deb -x "$deb" "$TMP/x"; dpkg-deb -e "$deb" "$TMP/c"
    [ -z "$ref" ] && ref=$files
    bad=""
    [ "$arch" = "$a" ] || bad="$bad Architecture=$arch;"
    [ -z "$deps" ] || bad="$bad Depends=$deps;"
    [ "$files" = "$ref" ] || bad="$bad files differ from amd64's: $(diff <(echo "$ref") <(echo "$files") | grep '^[<>]' | tr '\n' ' ');"
    grep -qx /etc/gpu-numa-hook/config.toml "$TMP/c/conffiles" || bad="$bad config.toml not a conffile;"
    [ "$ver" = "$VERSION" ] && [ "$(basename "$deb")" = "gpu-numa-hook_${VERSION}_$a.deb" ] ||
        bad="$bad Version $ver / name $(basename "$deb"), the project's version is $VERSION;"
    case $maint in *"<"*@*">"*) ;; *) bad="$bad Maintainer '$maint' is not 'Name <address>';" ;; esac
    case $maint in *gnh.invalid*) bad="$bad Maintainer '$maint' is the old placeholder;" ;; esac
    copyright_ok "$TMP/x/usr/share/doc/gpu-numa-hook/copyright" || bad="$bad no DEP-5 copyright file naming Apache-2.0;"
    cmp -s "$TMP/x/usr/share/doc/gpu-numa-hook/LICENSE" "$SCRIPT_DIR/../../LICENSE" || bad="$bad LICENSE missing or not the repository's;"
    for b in gpu-numa-hook gpu-numa-runtime gpu-numa-nri; do elf_ok "$TMP/x/usr/bin/$b" "$a" || bad="$bad usr/bin/$b: $(readelf -h "$TMP/x/usr/bin/$b" 2>&1 | grep Machine | tr -s ' ');"; done
    probe_ok "$TMP/x/usr/bin/gpu-numa-nvml-probe" "$a" || bad="$bad usr/bin/gpu-numa-nvml-probe: not $(machine_of "$a") with libc.so.6 alone;"
    [ -z "$bad" ] && pass "$(basename "$deb"): Architecture $arch, Version $ver, no Depends, DEP-5 copyright (Apache-2.0), Maintainer $maint, $(echo "$files" | wc -l) files, conffiles, static $(machine_of "$a") executables, the probe on libc alone" ||
        fail "$(basename "$deb")" "$bad"
done
for a in x86_64 aarch64 ppc64le; do
    rpmf=$(ls "$DIR"/gpu-numa-hook-*."$a".rpm 2>/dev/null | head -n1)
    [ -f "$rpmf" ] || { fail "rpm $a" "no gpu-numa-hook-*.$a.rpm in $DIR"; continue; }
    arch=$(rpm -qp --qf '%{ARCH}' "$rpmf" 2>/dev/null)
    # /bin/sh: the scriptlets' interpreter, which rpmbuild always requires and every system has.
    reqs=$(rpm -qpR "$rpmf" 2>/dev/null | grep -v -e '^rpmlib(' -e '^/bin/sh$' | tr '\n' ' ')
    files=$(rpm -qpl "$rpmf" 2>/dev/null | while read -r f; do [ "$(rpm -qp --qf '[%{FILENAMES} %{FILEMODES:perms}\n]' "$rpmf" | awk -v f="$f" '$1 == f {print $2}' | cut -c1)" = d ] || echo "$f"; done | sort)
    cfg=$(rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$rpmf" 2>/dev/null | awk '$1 == "/etc/gpu-numa-hook/config.toml" {print $2}')
    lic=$(rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$rpmf" 2>/dev/null | awk '$1 == "/usr/share/doc/gpu-numa-hook/LICENSE" {print $2}')
    license=$(rpm -qp --qf '%{LICENSE}' "$rpmf" 2>/dev/null); ver=$(rpm -qp --qf '%{VERSION}' "$rpmf" 2>/dev/null)
    bad=""
    [ "$arch" = "$a" ] || bad="$bad ARCH=$arch;"
    [ -z "$reqs" ] || bad="$bad Requires: $reqs;"
    [ "$files" = "$ref" ] || bad="$bad files differ from the .deb's: $(diff <(echo "$ref") <(echo "$files") | grep '^[<>]' | tr '\n' ' ');"
    case $cfg in *c*n*) ;; *) bad="$bad config.toml flags '$cfg' (want %config(noreplace): cn);" ;; esac
    [ "$license" = "Apache-2.0" ] || bad="$bad License '$license' (want Apache-2.0);"
    case $lic in *l*) ;; *) bad="$bad LICENSE flags '$lic' (want %license: l);" ;; esac
    [ "$ver" = "$VERSION" ] && [ "$(basename "$rpmf")" = "gpu-numa-hook-$VERSION-1.$a.rpm" ] ||
        bad="$bad Version $ver / name $(basename "$rpmf"), the project's version is $VERSION;"
    # installed into a scratch root (its own rpm database): every file lands
    root=$TMP/root-$a; mkdir -p "$root"
    out=$(rpm --root "$root" --dbpath /var/lib/rpm --initdb 2>&1 && rpm --root "$root" --dbpath /var/lib/rpm --nodeps --noscripts --ignorearch -i "$rpmf" 2>&1) || bad="$bad rpm --root -i: $(echo "$out" | tail -2 | tr '\n' ' ');"
    missing=""
    for f in $files; do [ -e "$root$f" ] || missing="$missing $f"; done
    [ -z "$missing" ] || bad="$bad not installed:$missing;"
    for b in gpu-numa-hook gpu-numa-runtime gpu-numa-nri; do elf_ok "$root/usr/bin/$b" "$a" || bad="$bad /usr/bin/$b wrong ELF;"; done
    probe_ok "$root/usr/bin/gpu-numa-nvml-probe" "$a" || bad="$bad /usr/bin/gpu-numa-nvml-probe wrong ELF or libraries;"
    [ -z "$bad" ] && pass "$(basename "$rpmf"): ARCH $arch, Version $ver, License $license (LICENSE %license), no Requires, the .deb's $(echo "$files" | wc -l) files, config.toml %config(noreplace), rpm --root install lands every file" ||
        fail "$(basename "$rpmf")" "$bad"
done
finish
