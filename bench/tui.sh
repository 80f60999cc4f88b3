#!/usr/bin/env bash
# Issue 27's figures of serq tui on big runs:
#
#   bench/tui.sh [BENCHTIME]     (default 12x)
#
# First tui's Go benchmarks (go test -bench): at the seed at 32/32, Λ 9.6,
# horizon 2000, BenchmarkBigGoto (a goto anywhere visited; goal: the worst
# ≤ 300 ms), BenchmarkBigReverse (B to the last lease start at P.kv[0];
# goal ≤ 1 s) and BenchmarkBigCheckpoints (the checkpoints' memory as the
# timeline counts it, and the heap they hold); at the seed at 2/2,
# BenchmarkSmallSeek (a step back ≤ 50 ms, a seek ≤ 200 ms). Each reports
# its worst and its mean wall time, and its worst and mean CPU time (the
# figure the load of a shared machine does not change).
#
# Then the peak RSS of
#
#   serq tui SEED32 --horizon 2000 --set Lambda=9.6 --size 160x48 --screenshot F
#
# (the run to its end, a frame written) with /usr/bin/time -v; goal: at
# most twice the checkpoints' memory BenchmarkBigCheckpoints reports. The
# 32/32 seed is the seed's text with its two lets rewritten, beside a link
# to lib/ so its `use` resolves (as in bench/run.sh).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
benchtime="${1:-12x}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "bench: tui's benchmarks (-benchtime $benchtime; minutes)" >&2
(cd "$root" && go test ./tui -run '^$' -bench 'Big|SmallSeek' -benchtime "$benchtime" -timeout 60m) | tee "$tmp/bench.out"

command -v /usr/bin/time >/dev/null || {
	echo "bench: no /usr/bin/time: the peak RSS is skipped" >&2
	exit 0
}
(cd "$root" && go build -o "$tmp/serq" ./cmd/serq)
mkdir -p "$tmp/v/pd"
ln -s "$root/lib" "$tmp/v/lib"
f="$tmp/v/pd/seed32.sq"
sed -e "s/^let NP = 2;/let NP = 32;/" -e "s/^let ND = 2;/let ND = 32;/" \
	"$root/examples/pd-disaggregation/llmd_nixl_pull.sq" >"$f"
grep -q "^let NP = 32;" "$f" && grep -q "^let ND = 32;" "$f" || {
	echo "bench: the seed no longer has 'let NP = 2;' and 'let ND = 2;'" >&2
	exit 1
}
/usr/bin/time -v -o "$tmp/time" "$tmp/serq" tui "$f" --horizon 2000 --set Lambda=9.6 \
	--size 160x48 --screenshot "$tmp/end.txt" >/dev/null
rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")"
wall="$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$tmp/time")"
cp="$(sed -n 's/.* \([0-9.]*\) counted-MB.*/\1/p' "$tmp/bench.out" | head -n 1)"
printf 'serq tui 32/32 to 2000 s --screenshot: peak RSS %d MB, wall %s\n' "$((rss / 1024))" "$wall"
if [ -n "$cp" ]; then
	awk -v r="$rss" -v c="$cp" 'BEGIN { printf "checkpoints %.1f MB; peak RSS / checkpoints = %.2f (goal <= 2)\n", c, r / 1024 / c }'
fi
