#!/usr/bin/env bash
# Issue 15: weak scaling of the sparse products and the power iteration,
# 1 -> 2 GPUs at twice the rows (Poisson 2048² -> 2896², 99.98% of twice;
# random 2²² -> 2²³; power iteration with a fixed 100 products), dcuda and
# both baselines at the larger size. Pack first: scripts/gpu-pack-model.sh;
# then
#   run(command="bash scripts/gpu-spmv-weak.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# Not run yet (written 2026-11-27 when the session's device time was spent).
here=$(cd "$(dirname "$0")/.." && pwd)/.gpu-bundle
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
cd "$here/unpacked"
export DCUDA_BACKEND=gpu
o=$OUT/spmv-weak; mkdir -p "$o"
M=(mpirun --allow-run-as-root --bind-to none -np 2)
r() { # NAME CMD...
  local name=$1; shift
  if timeout 90 "$@" --no-check --csv > /tmp/row.csv 2>>"$o/err.log"; then
    [ -s "$o/spmv.csv" ] || head -n 1 /tmp/row.csv | sed 's/^/name,/' > "$o/spmv.csv"
    tail -n 1 /tmp/row.csv | sed "s/^/$name,/" >> "$o/spmv.csv"
  else
    echo "FAIL $name" >> "$o/log"
  fi
}
power=(--power --tol 0 --iters 100)
for rep in 1 2 3; do
  r "spmv poisson np 1" examples/spmv --size 2048
  r "spmv poisson np 2" "${M[@]}" examples/spmv --size 2896
  r "spmv random np 1" examples/spmv --matrix random --size 4194304
  r "spmv random np 2" "${M[@]}" examples/spmv --matrix random --size 8388608
  r "power np 1" examples/spmv --matrix random --size 4194304 "${power[@]}"
  r "power np 2" "${M[@]}" examples/spmv --matrix random --size 8388608 "${power[@]}"
  for v in spmv_mpi "spmv_mpi --overlap"; do
    # shellcheck disable=SC2086
    r "$v poisson np 2" "${M[@]}" examples/$v --size 2896
    # shellcheck disable=SC2086
    r "$v random np 2" "${M[@]}" examples/$v --matrix random --size 8388608
    # shellcheck disable=SC2086
    r "$v power np 2" "${M[@]}" examples/$v --matrix random --size 8388608 "${power[@]}"
  done
done
cat "$o/log" 2>/dev/null
python3 - "$o" <<'PY'
import csv, statistics, sys, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(f"{sys.argv[1]}/spmv.csv")):
    runs[r["name"]].append(float(r["seconds"]))
for k, v in runs.items():
    print(f"{k}: median {statistics.median(v):.5f} s of {len(v)}")
PY
cd "$OUT" && tar cJf spmv-weak.tar.xz spmv-weak && rm -rf spmv-weak
