#!/usr/bin/env bash
# The M/M/1 speed comparison of issue 3: the wall time of
#
#   serq run examples/single-turn/mg1.sq --horizon H --warmup W
#
# beside the hand-written Go M/M/1 (the floor an interpreter can approach)
# and SimPy 2 at the same horizon (bash `time`), and the ratios: serq and
# the floor the median of REPS runs (default 5), SimPy one run.
# Goal: serq within 3x of the floor (issue 14: 1.5x) and at least 30x
# faster than SimPy.
#
#   bench/run.sh [HORIZON [WARMUP [SEED]]]     (default 250000 25000 1)
#
# Then issue 14's scale rows: the seed program (llmd_nixl_pull.sq) at 2/2,
# 8/8 and 32/32 instances (Λ 0.6 per pair: 0.6, 2.4, 9.6) at horizon
# SCALE_HORIZON (default 2000, warm-up a tenth), each with its wall and
# user seconds, peak RSS (/usr/bin/time) and user ns per event, and the
# cost per event of 32/32 against 2/2 (goal <= 1.5); and the long-horizon
# memory case, the seed's peak RSS at horizons 2000 and 20000 (goal: the
# ratio <= 1.5), at 20000 with --dump (streamed to the files, so about the
# same) and, with LONG=1, 200000 (goal <= 100 MB; about two minutes).
# SCALE=0 skips them. The family sizes are plain lets (an input
# may not size a family), so the variants are the seed's text with its
# two lets rewritten, written beside a link to lib/ so its `use` resolves.
#
# The floor is bench/mm1floor (hand-written Go), the SimPy program
# bench/mm1_simpy2.py; SimPy is Debian's python3-simpy (SimPy 2): installed
# with apt-get when it is missing and we are root; without it the SimPy row
# is skipped.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
horizon="${1:-250000}"
warmup="${2:-25000}"
seed="${3:-1}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export GOFLAGS="${GOFLAGS:--mod=mod}"

echo "build: serq and the hand-written Go M/M/1" >&2
(cd "$root" && go build -o "$tmp/serq" ./cmd/serq)
(cd "$root" && go build -o "$tmp/mm1-limit" ./bench/mm1floor)

# A Python that has SimPy 2 (pyenv's python3 may shadow Debian's).
simpy_python() {
	for py in python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null && "$py" -c 'import SimPy.Simulation' 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	return 1
}
py="$(simpy_python)" || {
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "bench: installing python3-simpy" >&2
		apt-get update -qq >/dev/null && apt-get install -y -qq python3-simpy >/dev/null || true
	fi
	py="$(simpy_python)" || py=""
}

# timed NAME REPS CMD...: runs CMD REPS times, prints its first result
# line, and sets the variable NAME to the median wall time in seconds
# (bash `time`, to the millisecond: /usr/bin/time -f %e has only
# hundredths, too coarse for the floor).
timed() {
	local var="$1" reps="$2"
	shift 2
	local out="$tmp/$var.out" tfile="$tmp/$var.time" TIMEFORMAT=%3R
	: >"$tmp/$var.times"
	for _ in $(seq "$reps"); do
		{ time "$@" >"$out" 2>"$tmp/$var.err"; } 2>"$tfile" || {
			echo "bench: $var failed:" >&2
			cat "$tmp/$var.err" >&2
			exit 1
		}
		tail -n 1 "$tfile" >>"$tmp/$var.times"
	done
	printf -v "$var" '%s' "$(sort -n "$tmp/$var.times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
	printf '%-7s %7ss  %s\n' "$var" "${!var}" "$(grep -E '^(run:|mean_response)' "$out" | head -n 1)"
	if [ "$var" = serq ]; then
		grep -E '^response ' "$out" | sed 's/^/                  /'
	fi
}

reps="${REPS:-5}"
echo "M/M/1 rho 0.8, horizon $horizon, warmup $warmup, seed $seed; wall seconds, median of $reps (SimPy: 1):"
timed serq "$reps" "$tmp/serq" run "$root/examples/single-turn/mg1.sq" \
	--horizon "$horizon" --warmup "$warmup" --seed "$seed"
timed floor "$reps" "$tmp/mm1-limit" -horizon "$horizon" -warmup "$warmup" -seed "$seed"
if [ -n "$py" ]; then
	timed simpy 1 "$py" "$root/bench/mm1_simpy2.py" 0.8 "$horizon" "$warmup" "$seed"
else
	simpy=""
	echo "simpy   skipped: no python3 with SimPy 2 (Debian's python3-simpy)"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "inf" }'; }
echo "serq / floor = $(ratio "$serq" "$floor")x (issue 3's goal <= 3, issue 14's <= 1.5)"
if [ -n "$simpy" ]; then
	echo "simpy / serq = $(ratio "$simpy" "$serq")x (goal >= 30)"
fi

[ "${SCALE:-1}" = 0 ] && exit 0
command -v /usr/bin/time >/dev/null || {
	echo "bench: no /usr/bin/time: the scale rows are skipped" >&2
	exit 0
}
mkdir -p "$tmp/v/pd"
ln -s "$root/lib" "$tmp/v/lib"
seed_at() { # seed_at N: the seed at N/N, its path on stdout
	local f="$tmp/v/pd/seed$1.sq"
	sed -e "s/^let NP = 2;/let NP = $1;/" -e "s/^let ND = 2;/let ND = $1;/" \
		"$root/examples/pd-disaggregation/llmd_nixl_pull.sq" >"$f"
	grep -q "^let NP = $1;" "$f" && grep -q "^let ND = $1;" "$f" || {
		echo "bench: the seed no longer has 'let NP = 2;' and 'let ND = 2;'" >&2
		exit 1
	}
	echo "$f"
}
# measured NAME FILE HORIZON ARGS...: one run; sets NAME_wall, NAME_user,
# NAME_rss (KB), NAME_events and prints a row.
measured() {
	local name="$1" file="$2" h="$3"
	shift 3
	/usr/bin/time -f "%e %U %M" -o "$tmp/$name.time" "$tmp/serq" run "$file" \
		--horizon "$h" --warmup "$(awk -v h="$h" 'BEGIN { print h / 10 }')" --seed 1 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || {
		echo "bench: $name failed:" >&2
		cat "$tmp/$name.err" >&2
		exit 1
	}
	read -r w u m <"$tmp/$name.time"
	local ev
	ev="$(sed -n 's/.* events \([0-9]*\) .*/\1/p' "$tmp/$name.out" | head -n 1)"
	printf -v "${name}_wall" '%s' "$w"
	printf -v "${name}_user" '%s' "$u"
	printf -v "${name}_rss" '%s' "$m"
	printf -v "${name}_events" '%s' "$ev"
	printf '%-9s %8ss wall %8ss user %8.1f MB  %9s events  %6.0f ns/event (user)\n' "$name" "$w" "$u" \
		"$(awk -v m="$m" 'BEGIN { print m / 1024 }')" "$ev" "$(awk -v u="$u" -v e="$ev" 'BEGIN { print u * 1e9 / e }')"
}
sh="${SCALE_HORIZON:-2000}"
echo
echo "seed at 2/2, 8/8, 32/32, horizon $sh (one run each):"
measured s2 "$(seed_at 2)" "$sh" -- --Lambda 0.6
measured s8 "$(seed_at 8)" "$sh" -- --Lambda 2.4
measured s32 "$(seed_at 32)" "$sh" -- --Lambda 9.6
echo "cost per event, 32/32 / 2/2 = $(awk -v a="$s32_user" -v b="$s32_events" -v c="$s2_user" -v d="$s2_events" \
	'BEGIN { printf "%.2f", (a / b) / (c / d) }')x (goal <= 1.5)"
echo
echo "memory: the seed's peak RSS by horizon:"
seed="$root/examples/pd-disaggregation/llmd_nixl_pull.sq"
measured m2000 "$seed" 2000
measured m20000 "$seed" 20000
echo "RSS 20000 / 2000 = $(ratio "$m20000_rss" "$m2000_rss")x (goal <= 1.5)"
measured d20000 "$seed" 20000 --dump "$tmp/dump"
echo "RSS 20000 with --dump / without = $(ratio "$d20000_rss" "$m20000_rss")x (the dump is streamed: about 1)"
if [ "${LONG:-0}" = 1 ]; then
	measured m200000 "$seed" 200000
	echo "RSS at 200000 = $(awk -v m="$m200000_rss" 'BEGIN { printf "%.1f", m / 1024 }') MB (goal <= 100)"
fi
