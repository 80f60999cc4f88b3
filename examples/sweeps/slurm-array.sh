#!/bin/bash
# The study of study.sh as a Slurm job array: 4 tasks, each one shard of
# the sweep, then a merge once every task has succeeded.
#
#   mkdir -p sweep-shards      # Slurm opens --output before the script runs
#   jid=$(sbatch --parsable examples/sweeps/slurm-array.sh)
#   sbatch --dependency=afterok:$jid --wrap \
#     'serq sweep merge --out sweep-study sweep-shards/shard-*'
#
# Submit from the repository's root on a shared file system, with serq on
# the PATH of the compute nodes (go build -o ~/bin/serq ./cmd/serq). The
# task id counts from 0, like --shard; keep --array and SHARDS in step.
#SBATCH --job-name=serq-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=8
#SBATCH --time=00:30:00
#SBATCH --output=sweep-shards/slurm-%A_%a.out
set -euo pipefail
SHARDS=4
i=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array}
srun serq sweep examples/pd-disaggregation/llmd_nixl_pull.sq \
  --vary Lambda=0.2:1.4:0.2 --vary thr=1,512 --vary blocksD=1100,10000 \
  --seeds 1-10 --horizon 500 --warmup 50 \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --shard "$i/$SHARDS" --out "sweep-shards/shard-$i"
