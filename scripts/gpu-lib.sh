# Shared by the GPU scripts: `run NAME CMD...` runs CMD with
# a time limit of $RUN_LIMIT seconds, appends its output to $log and
# counts it as passed or failed; `summary` prints the counts and fails if
# anything failed.
pass=0; fail=0; failed=()
run() {
  local name=$1; shift
  echo "--- $name" | tee -a "$log"
  if timeout "${RUN_LIMIT:-120}" "$@" >>"$log" 2>&1; then
    pass=$((pass + 1)); echo "PASS $name" | tee -a "$log"
  else
    fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $?)" | tee -a "$log"
  fi
}
# `measure NAME CMD...` runs CMD --csv and appends its row to $csv.
measure() {
  local name=$1; shift
  local tmp=/tmp/row.csv
  if timeout 300 "$@" --csv > "$tmp" 2>>"$log"; then
    tail -n 1 "$tmp" >> "$csv"; tail -n 1 "$tmp" | tee -a "$log"
  else
    fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name" | tee -a "$log"
  fi
}
summary() {
  echo "passed $pass, failed $fail ${failed[*]:-}" | tee -a "$log"
  [ "$fail" = 0 ]
}
# `named_row CSV NAME NP CMD...` runs CMD --csv alone (NP = 1) or under
# mpirun -np NP (processes bound as BIND says, default none) and appends
# its row to CSV with NAME as the first column (the header once); a
# failure goes to $o/log. stderr goes to $o/err.log.
named_row() {
  local csv=$1 name=$2 n=$3; shift 3
  # The name becomes a bare CSV field: a comma would shift the row.
  case $name in *,*) echo "FAIL $name (a comma in a row's name)" >> "$o/log"; return 1 ;; esac
  local cmd=("$@")
  [ "$n" -gt 1 ] && cmd=(mpirun --allow-run-as-root --bind-to "${BIND:-none}" -np "$n" "$@")
  if timeout "${ROW_LIMIT:-120}" "${cmd[@]}" --csv > /tmp/row.csv 2>>"$o/err.log"; then
    [ -s "$csv" ] || head -n 1 /tmp/row.csv | sed 's|^|name,|' > "$csv"
    tail -n 1 /tmp/row.csv | sed "s|^|$name,|" >> "$csv"
  else
    echo "FAIL $name" >> "$o/log"
  fi
}
# `alternate ROUNDS CASE...`: each CASE, "CSV|NAME|PROGRAM|OPTIONS", is
# a `named_row` of examples/PROGRAM with OPTIONS into $o/CSV.csv; every
# case once a round, ROUNDS rounds in turn, so that a drift of the
# machine reaches every case alike. Round 1 checks as the programs'
# defaults say; the others pass --no-check.
alternate() {
  local rounds=$1 round c csv name prog opts nc
  shift
  for round in $(seq "$rounds"); do
    nc=""
    [ "$round" = 1 ] || nc=--no-check
    for c in "$@"; do
      IFS='|' read -r csv name prog opts <<<"$c"
      # shellcheck disable=SC2086 # OPTIONS split into words
      named_row "$o/$csv.csv" "$name" 1 "examples/$prog" $opts $nc
    done
  done
}
# `traced_row TRACE CSV NAME NP CMD...`: `named_row` traced into
# $o/TRACE.json; keeps the summary (.txt) and breakdown SVG, drops the
# JSON and the timeline (large).
traced_row() {
  local trace=$1; shift
  DCUDA_TRACE=$o/$trace.json named_row "$@"
  rm -f "$o/$trace.json" "$o/$trace.svg"
}
# `medians DIR`: every name's median seconds over the rows of DIR/*.csv.
medians() {
  python3 - "$1" <<'PY'
import csv, glob, statistics, sys, collections
for f in sorted(glob.glob(f"{sys.argv[1]}/*.csv")):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        runs[r["name"]].append(float(r["seconds"]))
    for k, v in runs.items():
        print(f"{f.split('/')[-1]}: {k}: median {statistics.median(v):.5f} s of {len(v)}: {' '.join(f'{x:.5f}' for x in v)}")
PY
}
# The environment of every GPU run: the GPU backend, never NVLink
# multicast (shared hosts), NVSHMEM over NVLink alone, bootstrapped on lo.
gpu_env() {
  export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
  export NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo
}
# `gpu_header TITLE`: TITLE, the GPUs and how they are joined, into $log.
gpu_header() {
  {
    echo "$1, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
    nvidia-smi topo -m | head -$(( $(nvidia-smi -L | wc -l) + 1 ))
  } 2>&1 | tee "$log"
}
# `build_nvshmem NAME`: baselines/NAME.cu against the NVSHMEM of the
# machine's python (site-packages nvidia/nvshmem) into /tmp/NAME.
build_nvshmem() {
  local nv
  nv=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nvshmem"))' 2>/dev/null)
  nvcc -O2 -rdc=true -arch=sm_90 -I"$nv/include" $(mpicc --showme:compile) "baselines/$1.cu" -o "/tmp/$1" \
    -L"$nv/lib" -l:libnvshmem_host.so.3 -lnvshmem_device $(mpicc --showme:link) -Xlinker -rpath -Xlinker "$nv/lib"
}
# `mpi_program`: puts `mpi N CMD...` on PATH, CMD alone (N = 1) or under
# mpirun -np N (bound as BIND says): a program, so that `run`'s timeout
# and env can start it.
mpi_program() {
  mkdir -p /tmp/gpu-bin
  cat > /tmp/gpu-bin/mpi <<'MPI'
#!/usr/bin/env bash
n=$1; shift
if [ "$n" = 1 ]; then exec "$@"; else exec mpirun --allow-run-as-root --bind-to "${BIND:-none}" -np "$n" "$@"; fi
MPI
  chmod +x /tmp/gpu-bin/mpi
  export PATH=/tmp/gpu-bin:$PATH
}
