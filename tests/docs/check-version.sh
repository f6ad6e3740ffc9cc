#!/usr/bin/env bash
# One version everywhere: project(VERSION) in CMakeLists.txt is the source; the programs' --version,
# CHANGELOG.md's top entry, the packages cpack makes (CPackConfig.cmake), the image's VERSION in
# examples/kubernetes/Containerfile, and the image tag the manifests, build-context.sh and the docs
# use must all say the same. Prints one line per place that differs and exits 1.
#   tests/docs/check-version.sh CMAKE_VERSION BUILD_DIR [REPO_ROOT]
#   (the programs are BUILD_DIR's gpu-numa-hook, gpu-numa-runtime and, where built, gpu-numa-nri)
set -euo pipefail
want=${1:?usage: check-version.sh CMAKE_VERSION BUILD_DIR [REPO_ROOT]}
build=${2:?usage: check-version.sh CMAKE_VERSION BUILD_DIR [REPO_ROOT]}
root=${3:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
bad=0 seen=0
same() { # WHAT GOT
    seen=$((seen + 1))
    if [ "$2" != "$want" ]; then echo "FAIL: $1 says '$2', CMakeLists.txt says '$want'"; bad=$((bad + 1)); fi
}

src=$(sed -n 's/^project(gpu-numa-hook VERSION \([0-9][0-9.]*\) .*/\1/p' CMakeLists.txt)
same "CMakeLists.txt's project(VERSION), read back" "$src"
out=$("$build/gpu-numa-hook" --version)
same "gpu-numa-hook --version ($out)" "$(echo "$out" | sed -n 's/^gpu-numa-hook \([^ ]*\) (revision .*)$/\1/p')"
# The whole output first: it goes on with the next runtime's own lines, and `| head` under pipefail
# could fail the pipe by SIGPIPE.
out=$("$build/gpu-numa-runtime" --version); out=${out%%$'\n'*}
same "gpu-numa-runtime --version ($out)" "$(echo "$out" | sed -n 's/^gpu-numa-runtime version \(.*\)$/\1/p')"
if [ -x "$build/gpu-numa-nri" ]; then
    out=$("$build/gpu-numa-nri" --version)
    same "gpu-numa-nri --version ($out)" "$(echo "$out" | sed -n 's/^gpu-numa-nri \(.*\)$/\1/p')"
else
    echo "NOTE: $build/gpu-numa-nri not built (a cross build has no NRI plugin): not compared"
fi
# Keep a Changelog: the first "## [X]" heading that is not [Unreleased].
same "CHANGELOG.md's top entry" "$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p;T;q' CHANGELOG.md)"
same "cpack's CPACK_PACKAGE_VERSION (the package names)" \
    "$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")"
same "examples/kubernetes/Containerfile's ARG VERSION (label org.opencontainers.image.version)" \
    "$(sed -n 's/^ARG VERSION=\(.*\)$/\1/p' examples/kubernetes/Containerfile)"
grep -qF 'org.opencontainers.image.version="${VERSION}"' examples/kubernetes/Containerfile ||
    { echo "FAIL: the Containerfile's image.version label is not \${VERSION}"; bad=$((bad + 1)); }
# Every image tag gpu-numa-hook:X in the manifests, the build script and the docs.
while IFS=: read -r file line tag; do
    same "$file:$line's image tag" "$tag"
done < <(grep -rnoE 'gpu-numa-hook:[0-9][0-9A-Za-z.+-]*' examples README.md docs | sed 's/gpu-numa-hook://')
# The kustomize overlays' image tag (images: newTag:), which no gpu-numa-hook:X names.
while IFS=: read -r file line tag; do
    same "$file:$line's newTag" "$tag"
done < <(grep -rnE '^ *newTag: *"?[0-9]' examples docs | sed -E 's/: *newTag: *"?([^"]*)"?$/:\1/')
[ "$seen" -ge 10 ] || { echo "FAIL: only $seen places compared; the checker lost some"; bad=$((bad + 1)); }
if [ "$bad" -ne 0 ]; then echo "FAIL: $bad of $seen places disagree with version $want"; exit 1; fi
echo "PASS: version $want in all $seen places (CMakeLists.txt, --version of the programs, CHANGELOG.md, cpack, the image's label and tags)"
