# shellcheck shell=bash
# The hardening suites' one build tree (build-hardening): clang, Debug, AddressSanitizer and
# UndefinedBehaviorSanitizer on everything (-DGNH_SANITIZE=ON), and every library also instrumented
# for libFuzzer's coverage (-DGNH_FUZZ=ON: fuzzer-no-link; the sanitizer runtime answers those
# callbacks in the test programs). The sanitized tests (tests/sanitize) and the fuzz targets
# (tests/fuzz) share its objects: two trees compiled the same sources twice. clang: its -O0 builds
# of this code took two thirds of gcc's time. A unity build of the libraries (the test files keep
# their own units): merged, gcc compiled two libraries in 141 CPU-s instead of 263. Sourced.

# hardening_tree REPO [DIR]: configures DIR (default REPO/build-hardening) once and prints it
hardening_tree() {
	local repo=$1 build=${2:-$1/build-hardening}
	CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
		-DGNH_SANITIZE=ON -DGNH_FUZZ=ON -DGNH_BUILD_TESTS=ON -DCMAKE_UNITY_BUILD=ON >/dev/null || return 1
	echo "$build"
}

# hardening_build DIR TARGET...: builds under a lock on the tree, so the two suites run by hand at
# once never run two ninjas in it
hardening_build() {
	local build=$1
	shift
	flock "$build/.hardening.lock" nice -n 10 cmake --build "$build" -j"${GNH_JOBS:-2}" --target "$@"
}
