#!/bin/sh
# The lease study of docs/sweeps.md: the production incident of
# examples/faults/incident.sq (a NIXL lease nobody renews, a decoder whose
# reads wait up to a minute) over the lease length and the decoder's load,
# 5 seeds per point: 8 x 3 points x 5 seeds = 120 runs, about two minutes on
# 2 cores. `late_reads` counts the reads that went ahead after their lease
# had expired, over each run's 1800 s.
#
#   sh examples/sweeps/lease.sh [OUT_DIR]     (from the repository's root)
#
# OUT_DIR (default sweep-lease) gets runs.csv, runs.json, summary.csv,
# sweep.json and plot/late_reads.svg, plot/late_reads.png.
set -eu
out=${1:-sweep-lease}
exec go run ./cmd/serq sweep examples/faults/incident.sq \
  --vary lease=10,20,30,45,60,90,120,300 --vary clients=24,40,56 \
  --seeds 1-5 --horizon 1800 --warmup 300 --out "$out" \
  --plot --metric late_reads
