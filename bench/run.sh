#!/usr/bin/env bash
# The M/M/1 speed comparison of issue 3: the wall time of
#
#   serq run examples/single-turn/mg1.sq --horizon H --warmup W
#
# beside the hand-written Go M/M/1 (the floor an interpreter can approach)
# and SimPy 2 at the same horizon, from one run each (bash `time`), and
# the ratios.
# Goal: serq within 3x of the floor and at least 30x faster than SimPy.
#
#   bench/run.sh [HORIZON [WARMUP [SEED]]]     (default 250000 25000 1)
#
# The floor and the SimPy program live in ../shared/bench beside the
# repository; nothing is copied in. SimPy is Debian's python3-simpy (SimPy
# 2): installed with apt-get when it is missing and we are root; without it
# the SimPy row is skipped.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(cd "$(dirname "$0")/../../shared/bench" 2>/dev/null && pwd)" || {
	echo "bench: no ../shared/bench beside the repository" >&2
	exit 1
}
horizon="${1:-250000}"
warmup="${2:-25000}"
seed="${3:-1}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export GOFLAGS="${GOFLAGS:--mod=mod}"

echo "build: serq and the hand-written Go M/M/1" >&2
(cd "$root" && go build -o "$tmp/serq" ./cmd/serq)
(cd "$shared/mm1-limit" && go build -o "$tmp/mm1-limit" .)

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

# timed NAME CMD...: runs CMD once, prints its first result line, and sets
# the variable NAME to the wall time in seconds (bash `time`, to the
# millisecond: /usr/bin/time -f %e has only hundredths, too coarse for the
# floor).
timed() {
	local var="$1"
	shift
	local out="$tmp/$var.out" tfile="$tmp/$var.time" TIMEFORMAT=%3R
	{ time "$@" >"$out" 2>"$tmp/$var.err"; } 2>"$tfile" || {
		echo "bench: $var failed:" >&2
		cat "$tmp/$var.err" >&2
		exit 1
	}
	printf -v "$var" '%s' "$(tail -n 1 "$tfile")"
	printf '%-7s %7ss  %s\n' "$var" "${!var}" "$(grep -E '^(run:|mean_response)' "$out" | head -n 1)"
	if [ "$var" = serq ]; then
		grep -E '^response ' "$out" | sed 's/^/                  /'
	fi
}

echo "M/M/1 rho 0.8, horizon $horizon, warmup $warmup, seed $seed; wall seconds:"
timed serq "$tmp/serq" run "$root/examples/single-turn/mg1.sq" \
	--horizon "$horizon" --warmup "$warmup" --seed "$seed"
timed floor "$tmp/mm1-limit" -horizon "$horizon" -warmup "$warmup" -seed "$seed"
if [ -n "$py" ]; then
	timed simpy "$py" "$shared/mm1_simpy2.py" 0.8 "$horizon" "$warmup" "$seed"
else
	simpy=""
	echo "simpy   skipped: no python3 with SimPy 2 (Debian's python3-simpy)"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "inf" }'; }
echo "serq / floor = $(ratio "$serq" "$floor")x (goal <= 3)"
if [ -n "$simpy" ]; then
	echo "simpy / serq = $(ratio "$simpy" "$serq")x (goal >= 30)"
fi
