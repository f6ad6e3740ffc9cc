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
# Prints one line: the evaluator binary, then what it was built from. The Go tree and each build of
# the evaluator are cache entries (tests/support/cache.sh, cache k8s-admission).
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download
# shellcheck source=../support/cache.sh
. "$support/cache.sh"
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/admission" && pwd)

case ${1:-} in
--fill-go)
	# --fill-go PART: Go and the Kubernetes libraries, the cache entry's filler
	part=$2
	mkdir -p "$part/debs" "$part/root"
	cd "$part/debs"
	apt_suite "$part" sid
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
	done | paste -sd, - | sed 's/,/, /g' >"$part/versions"
	cd - >/dev/null
	for d in "$part"/debs/*.deb; do dpkg-deb -x "$d" "$part/root"; done
	rm -rf "$part/debs" "$part/apt-sid"
	[ -x "$part/root/usr/lib/go-1.26/bin/go" ] ||
		{ echo "fetch-k8s-admission: sid's golang-1.26-go has no usr/lib/go-1.26/bin/go" >&2; exit 2; }
	exit 0 ;;
--fill-evaluator)
	# --fill-evaluator GO PART: the evaluator built in GOPATH mode, the cache entry's filler. Go's
	# build cache is the entry's own while it builds (the cold build takes minutes, once per source).
	dir=$2 part=$3
	gopath=$part/gopath
	mkdir -p "$gopath/src/gpu-numa-hook/admission"
	cp "$src"/*.go "$gopath/src/gpu-numa-hook/admission/"
	start=$(date +%s)
	export GOROOT=$dir/root/usr/lib/go-1.26 GOPATH=$gopath:$dir/root/usr/share/gocode
	export GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local GOFLAGS='' GOENV=off GOWORK=off
	export CGO_ENABLED=0 GOCACHE=$part/gocache GOTELEMETRY=off
	cd "$gopath/src/gpu-numa-hook/admission"
	nice -n 10 "$GOROOT/bin/go" build -trimpath -o "$part/evaluate" . ||
		{ echo "fetch-k8s-admission: go build of tests/k8s/admission failed" >&2; exit 2; }
	cd /
	rm -rf "$gopath" "$GOCACHE"
	echo "fetch-k8s-admission: built the evaluator in $(($(date +%s) - start)) s" >&2
	exit 0 ;;
esac

base=$(cache_dir k8s-admission)
dir=$(cache_fill "$base/go" "go 1.26, k8s.io/apiserver sid" bash "$0" --fill-go) || exit 2
# The evaluator, built once per version of its source (and of what it is built from).
key=$({ cat "$dir/versions"; cat "$src"/*.go; } | sha256sum | cut -c1-16)
ev=$(cache_fill "$base/evaluate-$key" "$key" bash "$0" --fill-evaluator "$dir") || exit 2
# earlier versions' binaries (64 MB each) go, once nobody builds them
for old in "$base"/evaluate-*; do
	case $old in "$ev" | *.lock | *.part.* | *.old.*) ;; *) cache_drop "$old" ;; esac
done
echo "$ev/evaluate ($(cat "$dir/versions"))"
