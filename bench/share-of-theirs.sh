# shellcheck shell=bash
# Our cost beside another program's, from hook_bench's raw samples (ROW<TAB>ROUND<TAB>MS): each
# median above a floor row of the same rounds, and ours as a share of theirs (target: at most 10%).
# One markdown row. Sourced by run-bench.sh and gpu-host-bench.sh.

# share_of_theirs RAW OURS THEIRS FLOOR
share_of_theirs() {
	awk -F'\t' -v a="$2" -v b="$3" -v f="$4" '
        $1 == a { xs[++nx] = $3 } $1 == b { ys[++ny] = $3 } $1 == f { fs[++nf] = $3 }
        function med(v, n,   i, j, t) { for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
                                        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
        END { ma = med(xs, nx); mb = med(ys, ny); mf = med(fs, nf); share = (ma - mf) / (mb - mf)
              printf "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f%% | <= 10%% | %s |\n", a, b, ma, mb, mf, ma - mf, mb - mf, 100 * share, (share <= 0.10 ? "yes" : "no") }' "$1"
}
