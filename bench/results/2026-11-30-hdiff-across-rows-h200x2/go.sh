#!/usr/bin/env bash
# The walk across a band's rows as built (hdiff, the working tree on
# 1bf8cbd) on an nvidia-h200-x2: checks on one GPU and two; on one GPU
# against the walk down by chunks (hdiff_before, 1bf8cbd) and the
# baseline, alternated, with its loads cached in L2 only as a variant at
# 512x1280x32; then the two-GPU rows of the scaling table's hdiff part
# (gpu-multi.sh's grids and baselines, two rounds).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff across rows, two GPUs"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
mpi_program
run "check across 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check across 67x150x5, 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
run "check across -np 2, 128x640x26" mpi 2 examples/hdiff --nx 128 --ny 640 --nz 26 --check
run "check across -np 2, 512x2560x32, 6 iterations" mpi 2 examples/hdiff --nx 512 --ny 2560 --nz 32 --iters 6 --check
run "check across -np 2, 67x150x5, 7 ranks" mpi 2 examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
alternate 5 "big|across|hdiff|$big" "big|across cg|hdiff|$big --dlcm cg" "big|down|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" \
  "small|across|hdiff|$small" "small|down|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" "small|mpi|hdiff_mpi|$small"
for rep in 1 2; do
  for cfg in "128 320 26" "128 640 26" "512 2560 32"; do
    read -r nx ny nz <<< "$cfg"
    g="--nx $nx --ny $ny --nz $nz --no-check"
    for v in hdiff hdiff_mpi "hdiff_mpi --overlap" "hdiff_mpi --threads 512" "hdiff_mpi --overlap --threads 512"; do
      # shellcheck disable=SC2086
      named_row "$o/two-$nx-$ny.csv" "${v// /_}" 2 examples/$v $g
    done
    named_row "$o/two-$nx-$ny.csv" hdiff_before 2 examples/hdiff_before $g
  done
done
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
