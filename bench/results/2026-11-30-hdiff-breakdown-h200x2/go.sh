#!/usr/bin/env bash
# hdiff at bffedcb traced for the breakdown (compute, communicate, wait)
# on one and two H200s: the seed's grid and the default one on one GPU,
# and their weak-scaling twins on two. The traces' summaries (.txt) and
# breakdown plots (.breakdown.svg) come back; untraced runs beside them
# say what the tracing costs.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff breakdown"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 DCUDA_TRACE_SPANS=4096
mpi_program
for cfg in "1 128 320 26" "2 128 640 26" "1 512 1280 32" "2 512 2560 32"; do
  read -r np nx ny nz <<< "$cfg"
  g="--nx $nx --ny $ny --nz $nz --no-check"
  # shellcheck disable=SC2086
  named_row "$o/plain.csv" "hdiff np $np $nx×$ny×$nz" "$np" examples/hdiff $g
  run "traced np $np $nx x $ny x $nz" env DCUDA_TRACE="$o/hdiff-$np-$nx-$ny.json" mpi "$np" examples/hdiff $g
  rm -f "$o"/hdiff-$np-$nx-$ny*.json "$o/hdiff-$np-$nx-$ny.svg"
done
ls -la "$o" >> "$log"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
