# shellcheck shell=bash
# Our cost beside another program's, from hook_bench's raw samples (ROW<TAB>ROUND<TAB>MS), as
# medians of the same rounds, and ours as a share of theirs (target: at most 10%). One markdown row
# each. Sourced by run-bench.sh and gpu-host-bench.sh.

# share_row RAW OURS THEIRS FLOOR BASE: ours above BASE's median ("floor": FLOOR's; "theirs": THEIRS's)
# against theirs above FLOOR.
share_row() {
	awk -F'\t' -v a="$2" -v b="$3" -v f="$4" -v base="$5" '
        $1 == a { xs[++nx] = $3 } $1 == b { ys[++ny] = $3 } $1 == f { fs[++nf] = $3 }
        function med(v, n,   i, j, t) { for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
                                        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
        END { ma = med(xs, nx); mb = med(ys, ny); mf = med(fs, nf); ours = ma - (base == "theirs" ? mb : mf); share = ours / (mb - mf)
              printf "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f%% | <= 10%% | %s |\n", a, b, ma, mb, mf, ours, mb - mf, 100 * share, (share <= 0.10 ? "yes" : "no") }' "$1"
}

# share_of_theirs RAW OURS THEIRS FLOOR: ours and theirs each run alone; both above FLOOR.
share_of_theirs() { share_row "$1" "$2" "$3" "$4" floor; }

# share_of_theirs_added RAW OURS_IN_FRONT THEIRS FLOOR: ours in front of theirs. What we add (OURS_IN_FRONT
# above THEIRS) against what theirs adds (THEIRS above FLOOR); the "ours above" column is then above THEIRS.
share_of_theirs_added() { share_row "$1" "$2" "$3" "$4" theirs; }
