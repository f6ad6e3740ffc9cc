#!/usr/bin/env bash
# Every cache that tests, fetches and benchmarks share (/var/cache/gpu-numa-hook-*) is written through
# tests/support/cache.sh alone: filled under its lock, built aside, stamped when whole. A script that
# writes there itself can delete or stamp a cache another test is filling (seen: `rm -rf` of the
# toolkit's tree while a parallel test unpacked into it, and tar's "Cannot utime").
#
#   check-cache-writes.sh [FILE...]    default: every tracked shell script
#
# It fails on a script, other than cache.sh, that
#   - names the caches' root (/var/cache/gpu-numa-hook, GNH_CACHE_ROOT) instead of cache_dir;
#   - stamps an entry (writes or touches a `complete` file);
#   - takes flock on a cache itself;
#   - writes (rm, mv, mkdir, touch, cp, ln, tar -x, dpkg-deb -x, a redirect) into a path built from
#     what cache_dir or cache_fill printed, on a line that is not a cache_fill or cache_drop call.
# A cache filler writes only into the folder cache_fill hands it, which is not such a path.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
helper=tests/support/cache.sh
helper_test=tests/support/cache-test.sh  # kills fillers and clears what they leave, on purpose

files=("$@")
if [ ${#files[@]} = 0 ]; then
	while IFS= read -r f; do
		[ -f "$f" ] || continue
		first=$(head -c 200 "$f" | tr -d '\0' | sed -n 1p)
		case "$f:$first" in *.sh:* | *:'#!'*sh*) files+=("$f") ;; esac
	done < <(git ls-files ':!tests/lint/fixtures/' ':!tests/lint/check-cache-writes.sh')
fi

bad=0
report() { # FILE LINE-NUMBER WHY TEXT
	local text=${4#"${4%%[![:space:]]*}"}
	echo "FAIL: $1:$2: $3: ${text:0:140}"
	bad=$((bad + 1))
}
# Bash's own regex matching throughout: a grep per line made this lint take over a minute.
root_re='/var/cache/gpu-numa-hook|GNH_CACHE_ROOT'
stamp_re='(>>?[[:space:]]*"?[^[:space:]]*/complete"?([[:space:]]|$))|touch[[:space:]].*/complete'
flock_re='(^|[^_a-z])flock[[:space:]]'
var_re='([A-Za-z_][A-Za-z0-9_]*)=\$\((cache_dir|cache_fill)[[:space:]]'
helper_re='cache_fill|cache_drop'
find_write_re='-delete|-exec rm'
# writes_into CODE VAR: whether a command of CODE writes into a path that starts with $VAR: rm, mv,
# mkdir, touch, chmod name it anywhere; cp, ln, install, rsync, dpkg-deb -x as their last word;
# tar -x after -C; find with -delete or -exec rm; a redirect as its target.
writes_into() {
	local code=$1 ref="\"?\\\$\\{?$2([^A-Za-z0-9_]|$)" seg words split
	local redirect_re="(>>?|-C)[[:space:]]*$ref" last_re="^$ref"
	[[ $code =~ $redirect_re ]] && return 0
	[[ $code =~ $ref ]] || return 1
	split=$code
	for sep in '||' '&&' ';' '|' '$(' '(' '{'; do split=${split//"$sep"/$'\n'}; done
	while IFS= read -r seg; do
		read -ra words <<<"$seg"
		[ ${#words[@]} -gt 0 ] || continue
		case ${words[0]} in
			rm | mv | mkdir | touch | chmod | chown) [[ ${words[*]:1} =~ $ref ]] && return 0 ;;
			cp | ln | install | rsync) [[ ${words[-1]} =~ $last_re ]] && return 0 ;;
			dpkg-deb) [ "${words[1]:-}" = -x ] && [[ ${words[-1]} =~ $last_re ]] && return 0 ;;
			find) [[ $code =~ $find_write_re ]] && return 0 ;;
		esac
	done <<<"$split"
	return 1
}

checked=0
for f in "${files[@]}"; do
	[ "$f" = "$helper" ] || [ "$f" = "$helper_test" ] && continue
	checked=$((checked + 1))
	n=0
	cache_vars=()
	while IFS= read -r line; do
		n=$((n + 1))
		code=${line%%#*} # a comment may name the root; code may not
		[ -n "${code//[[:space:]]/}" ] || continue
		if [[ $code =~ $root_re ]]; then
			report "$f" $n "names the caches' root; take a cache's folder from cache_dir (tests/support/cache.sh)" "$line"
		fi
		if [[ $code =~ $stamp_re ]]; then
			report "$f" $n "stamps a cache entry itself; cache_fill stamps it once the filler succeeded" "$line"
		fi
		if [[ $code =~ $flock_re ]] && [ ${#cache_vars[@]} -gt 0 ]; then
			report "$f" $n "locks a cache itself; cache_fill holds the entry's lock" "$line"
		fi
		# variables that hold a cache's folder or an entry
		if [[ $code =~ $var_re ]]; then
			cache_vars+=("${BASH_REMATCH[1]}")
			continue
		fi
		[[ $code =~ $helper_re ]] && continue
		for v in "${cache_vars[@]}"; do
			if writes_into "$code" "$v"; then
				report "$f" $n "writes into a cache (\$$v, from cache_dir or cache_fill) outside the helper" "$line"
				break
			fi
		done
	done <"$f"
done
if [ "$bad" != 0 ]; then
	echo "$bad cache write(s) outside tests/support/cache.sh in $checked scripts: fill caches with cache_fill, drop them with cache_drop"
	exit 1
fi
echo "ok: $checked scripts write no cache but through tests/support/cache.sh"
