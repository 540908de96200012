#!/usr/bin/env bash
# hdiff's edge ranks store their halo rows where the neighbour's halo
# lies whenever they can store there (Rank::put_target_slice: across the
# wrap on one process, on the other GPU over NVLink on two), then notify
# (hdiff, the working tree on f072da3), against f072da3 (hdiff_before:
# the wrap's stores on one process, puts between processes) and the
# baseline, on an nvidia-h200-x2: checks on one GPU and two; one GPU
# alternated (5 rounds); then the two-GPU rows of the scaling table's
# hdiff part (gpu-multi.sh's grids and baselines, two rounds).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff peer stores, two GPUs"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
mpi_program
run "check 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check 67x150x5, 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
run "check 67x150x5, 1 rank" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 1 --check
run "check -np 2, 128x640x26" mpi 2 examples/hdiff --nx 128 --ny 640 --nz 26 --check
run "check -np 2, 512x2560x32, 6 iterations" mpi 2 examples/hdiff --nx 512 --ny 2560 --nz 32 --iters 6 --check
run "check -np 2, 67x150x5, 7 ranks" mpi 2 examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
run "check -np 2, 67x150x5, 1 rank each" mpi 2 examples/hdiff --nx 67 --ny 150 --nz 5 --iters 21 --ranks 1 --check
run "check -np 2 through the host, 67x150x5, 7 ranks" env DCUDA_PEER_ACCESS=0 mpi 2 examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
alternate 5 "big|peer stores|hdiff|$big" "big|f072da3|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" \
  "small|peer stores|hdiff|$small" "small|f072da3|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512"
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
