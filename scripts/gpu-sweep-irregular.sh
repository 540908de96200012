#!/usr/bin/env bash
# Issue 15 on two GPUs: particles' weak scaling with the box's width
# doubled (--aspect 2) against the square box, and one-GPU geometries of
# spmv (Poisson 2048²) and pi against their baselines. Pack first:
# scripts/gpu-pack-model.sh; then
#   run(command="bash scripts/gpu-sweep-irregular.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# CSVs in $OUT/sweep.tar.xz (seconds from the device clock, --csv rows).
here=$(cd "$(dirname "$0")/.." && pwd)/.gpu-bundle
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
cd "$here/unpacked"
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
o=$OUT/sweep; mkdir -p "$o"
{ echo "commit $(cat COMMIT) $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; } > "$o/log"
# shellcheck source=gpu-lib.sh
. "$here/../scripts/gpu-lib.sh"
row() { named_row "$@"; }
for rep in 1 2 3; do
  for cfg in "1 1048576 1" "2 1048576 1" "2 2097152 2" "2 2097152 1"; do
    read -r n size aspect <<< "$cfg"
    for v in particles particles_mpi "particles_mpi --overlap"; do
      # shellcheck disable=SC2086
      row "$o/particles.csv" "$v $size np $n aspect $aspect" "$n" examples/$v --size "$size" --aspect "$aspect" --no-check
    done
  done
done
for rep in 1 2 3; do
  for v in spmv_mpi "spmv_mpi --overlap"; do
    # shellcheck disable=SC2086
    row "$o/spmv.csv" "$v" 1 examples/$v --size 2048 --no-check
  done
  for geo in "512 128" "1024 64" "1024 128" "256 128" "256 64" "512 64"; do
    read -r t r <<< "$geo"
    row "$o/spmv.csv" "spmv threads $t regs $r" 1 examples/spmv --size 2048 --threads "$t" --max-registers "$r" --no-check
  done
  row "$o/pi.csv" "pi_mpi" 1 examples/pi_mpi
  for geo in "1024 64" "512 128" "512 64" "256 128" "256 64" "1024 32"; do
    read -r t r <<< "$geo"
    row "$o/pi.csv" "pi threads $t regs $r" 1 examples/pi --threads "$t" --max-registers "$r"
  done
done
cat "$o/log"; tail -3 "$o/err.log"
python3 - "$o" <<'PY'
import csv, statistics, sys, collections
d = sys.argv[1]
for f in ("particles", "spmv", "pi"):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f"{d}/{f}.csv")):
        runs[r["name"]].append(float(r["seconds"]))
    for k, v in runs.items():
        print(f"{f}: {k}: median {statistics.median(v):.5f} s of {len(v)}")
PY
cd "$OUT" && tar cJf sweep.tar.xz sweep && rm -rf sweep
