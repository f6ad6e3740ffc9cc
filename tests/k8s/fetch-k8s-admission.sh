#!/bin/bash
# Kubernetes' own MutatingAdmissionPolicy plugin, offline, for tests/k8s/check-admission.sh: Debian
# sid's Go 1.26 (golang-1.26-go) and the Go source packages of k8s.io/apiserver and client-go
# (golang-k8s-apiserver-dev and its golang-*-dev closure), fetched like fetch-nri-go.sh (a private
# sources list, `apt-get download`, `dpkg-deb -x` into a cache; the system's apt stays untouched),
# then tests/k8s/admission (the evaluator) built against them in GOPATH mode: offline,
# CGO_ENABLED=0, no go.mod. The sources, Go's build cache and the binary stay in the cache, so a
# machine pays the download (about 220 MB) and the cold build (minutes) once; a changed evaluator
# source builds again (seconds, from Go's cache).
#
#   tests/k8s/fetch-k8s-admission.sh
#
# Prints one line: the evaluator binary, then what it was built from. Environment:
# K8S_ADMISSION_DIR (default /var/cache/gpu-numa-hook-k8s-admission).
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/admission" && pwd)

base=${K8S_ADMISSION_DIR:-/var/cache/gpu-numa-hook-k8s-admission}
mkdir -p "$base"
# One fetch and one build at a time (ctest runs tests in parallel; run-all.sh fetches first).
exec 9>"$base/lock"
flock 9

dir=$base/go
if [ ! -f "$dir/complete" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/root"
	cd "$dir/debs"
	apt_suite "$base" sid
	# The toolchain (its standard library is golang-1.26-src) and the libraries: the closure of
	# apiserver's and client-go's Depends over golang-*-dev packages (the status file is empty,
	# so apt resolves all of them from sid).
	pkgs=$(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances golang-k8s-apiserver-dev golang-k8s-client-go-dev \
		golang-k8s-component-base-dev | grep -E '^golang-.*-dev$' | sort -u)
	echo "fetch-k8s-admission: $(echo "$pkgs" | wc -l) Go library packages from sid" >&2
	# shellcheck disable=SC2086
	apt_download './golang-1.26-go_*.deb ./golang-1.26-src_*.deb ./golang-k8s-apiserver-dev_*.deb' \
		golang-1.26-go golang-1.26-src $pkgs ||
		{ echo "fetch-k8s-admission: cannot download Go 1.26 and the Kubernetes Go packages from sid" >&2; exit 2; }
	for d in golang-1.26-go golang-k8s-apiserver-dev golang-k8s-client-go-dev; do
		# shellcheck disable=SC2016 # dpkg-deb's own ${...} fields
		dpkg-deb -W --showformat='${Package} ${Version}\n' ./"${d}"_*.deb
	done | paste -sd, - | sed 's/,/, /g' >"$dir/versions"
	cd - >/dev/null
	for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
	rm -rf "$dir/debs"
	[ -x "$dir/root/usr/lib/go-1.26/bin/go" ] ||
		{ echo "fetch-k8s-admission: sid's golang-1.26-go has no usr/lib/go-1.26/bin/go" >&2; exit 2; }
	touch "$dir/complete"
fi

# The evaluator, built once per version of its source (and of what it is built from).
key=$({ cat "$dir/versions"; cat "$src"/*.go; } | sha256sum | cut -c1-16)
bin=$base/bin/evaluate-$key
if [ ! -x "$bin" ]; then
	gopath=$base/gopath
	rm -rf "$gopath"
	mkdir -p "$gopath/src/gpu-numa-hook/admission" "$base/bin"
	cp "$src"/*.go "$gopath/src/gpu-numa-hook/admission/"
	start=$(date +%s)
	(
		export GOROOT=$dir/root/usr/lib/go-1.26 GOPATH=$gopath:$dir/root/usr/share/gocode
		export GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local GOFLAGS='' GOENV=off GOWORK=off
		export CGO_ENABLED=0 GOCACHE=$base/gocache GOTELEMETRY=off
		cd "$gopath/src/gpu-numa-hook/admission"
		nice -n 10 "$GOROOT/bin/go" build -trimpath -o "$bin.tmp" .
	) || { echo "fetch-k8s-admission: go build of tests/k8s/admission failed" >&2; exit 2; }
	mv -f "$bin.tmp" "$bin"
	# earlier versions' binaries (64 MB each) go; Go's cache keeps what rebuilds them fast
	find "$base/bin" -maxdepth 1 -name 'evaluate-*' ! -name "evaluate-$key" -delete
	echo "fetch-k8s-admission: built $bin in $(($(date +%s) - start)) s" >&2
fi
echo "$bin ($(cat "$dir/versions"))"
