#!/bin/sh
# The shipped study of docs/sweeps.md and docs/validation.md: the seed
# example over the arrival rate Lambda, the router's remote-prefill
# threshold thr and the decoders' memory blocksD, 10 seeds per point.
# 28 points x 10 seeds = 280 runs; a few minutes on 2 cores.
#
#   sh examples/sweeps/study.sh [OUT_DIR]     (from the repository's root)
#
# OUT_DIR (default sweep-study) gets runs.csv, runs.json, summary.csv,
# sweep.json and plot/*.svg, plot/*.png.
set -eu
out=${1:-sweep-study}
exec go run ./cmd/serq sweep examples/pd-disaggregation/llmd_nixl_pull.sq \
  --vary Lambda=0.2:1.4:0.2 --vary thr=1,512 --vary blocksD=1100,10000 \
  --seeds 1-10 --horizon 500 --warmup 50 --out "$out" \
  --plot --metric ttft.mean --metric ttft.p99 --metric remote.mean --metric lease.mean
