#!/usr/bin/env bash
# The compute loops out of line in the rank kernels (pi, spmv,
# Aliev–Panfilov), alternated against the same programs of an earlier
# commit (*_before) and the host-driven baselines, on the device clock.
# Pack first: scripts/gpu-pack-apart.sh [COMMIT]; then, on nvidia-h200-x2,
#   run(command="bash scripts/gpu-apart.sh one", carry=[".gpu-bundle"], ...)
# Sections: one (one GPU), two (Aliev–Panfilov on two GPUs), weak (spmv
# and power iteration 1 -> 2 GPUs at twice the rows), small
# (Aliev–Panfilov at 2048² and 1024² on one and two GPUs), trace (spmv on
# one GPU traced, and its geometries), jacobi (4096² on two GPUs by
# geometry), spmv (every matrix on one and two GPUs at both
# geometries, weak scaling), aptrace (Aliev–Panfilov traced on one GPU).
# sweep4 (Jacobi's sweep four columns at a time against one, on one and
# two GPUs, with the nvcc kernels; pack with APPS=jacobi).
# jgeo (Jacobi's geometries: 256 and 512 threads, the baselines' 512 and
# 1024), jfinal (Jacobi at its defaults against every baseline variant).
# aprows (Aliev–Panfilov's rows within a process by notification).
# hdiff (hdiff's stages out of line against inlined, by geometry, on one
# GPU; and on two; pack with APPS="hdiff").
# jnorm (Jacobi's norm by allreduce_start/finish, --overlap, against the
# blocking allreduce and the commit before; with the nvcc kernel), jnorm2
# (variants packed by hand: JNORM2 names them), final (Jacobi and
# Aliev–Panfilov against the commit before, on one and two GPUs, checked).
# REPS (3) runs each.
# CSV rows (every run's --csv row, named) in $OUT/apart-SECTION.tar.xz.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)/.gpu-bundle
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
cd "$here/unpacked"
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
section=${1:-one}
REPS=${REPS:-3}
o=$OUT/apart-$section; mkdir -p "$o"
{ echo "commits (new, before): $(tr '\n' ' ' < COMMIT) $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; } > "$o/log"
# shellcheck source=gpu-lib.sh
. "$here/../scripts/gpu-lib.sh"
row() { named_row "$@"; }
# The nvcc Jacobi kernel (baselines/NAME.cu, default jacobi_single) at /tmp/NAME.
nvcc_jacobi() {
  local v=${1:-jacobi_single}
  nvcc -O3 -arch=sm_90 -o "/tmp/$v" "baselines/$v.cu" 2>> "$o/err.log" || echo "FAIL nvcc $v" >> "$o/log"
}
for rep in $(seq "$REPS"); do
  case $section in
  one)
    for v in pi_mpi pi_before pi; do row "$o/pi.csv" "$v" 1 examples/$v; done
    for v in spmv_mpi "spmv_mpi --overlap" spmv_before spmv; do
      # shellcheck disable=SC2086
      row "$o/spmv.csv" "$v" 1 examples/$v --size 2048 --no-check
    done
    for v in spmv_before spmv; do
      row "$o/spmv.csv" "$v 1024/64" 1 examples/$v --size 2048 --threads 1024 --max-registers 64 --no-check
    done
    for v in aliev_panfilov_mpi "aliev_panfilov_mpi --overlap" aliev_panfilov_before aliev_panfilov; do
      # shellcheck disable=SC2086
      row "$o/aliev_panfilov.csv" "$v" 1 examples/$v --size 4096 --no-check
    done
    for geo in "512 128" "512 96" "1024 64 --batch 2"; do
      read -r t r more <<< "$geo"
      # shellcheck disable=SC2086
      row "$o/aliev_panfilov.csv" "aliev_panfilov $geo" 1 examples/aliev_panfilov --size 4096 --no-check --threads $t --max-registers $r $more
    done
    ;;
  two)
    for v in aliev_panfilov_mpi "aliev_panfilov_mpi --overlap" aliev_panfilov_before aliev_panfilov; do
      # shellcheck disable=SC2086
      row "$o/aliev_panfilov.csv" "$v 4096² np 2" 2 examples/$v --size 4096 --procs-x 1 --no-check
    done
    for v in aliev_panfilov_mpi aliev_panfilov_before aliev_panfilov; do
      # shellcheck disable=SC2086
      row "$o/aliev_panfilov.csv" "$v 4096×8192 np 2" 2 examples/$v --nx 4096 --ny 8192 --procs-x 1 --no-check
    done
    ;;
  weak)
    power=(--power --tol 0 --iters 100)
    row "$o/spmv.csv" "spmv poisson np 1" 1 examples/spmv --size 2048 --no-check
    row "$o/spmv.csv" "spmv poisson np 2" 2 examples/spmv --size 2896 --no-check
    row "$o/spmv.csv" "spmv random np 1" 1 examples/spmv --matrix random --size 4194304 --no-check
    row "$o/spmv.csv" "spmv random np 2" 2 examples/spmv --matrix random --size 8388608 --no-check
    row "$o/spmv.csv" "power np 1" 1 examples/spmv --matrix random --size 4194304 "${power[@]}" --no-check
    row "$o/spmv.csv" "power np 2" 2 examples/spmv --matrix random --size 8388608 "${power[@]}" --no-check
    for v in spmv_mpi "spmv_mpi --overlap"; do
      # shellcheck disable=SC2086
      row "$o/spmv.csv" "$v poisson np 2" 2 examples/$v --size 2896 --no-check
      # shellcheck disable=SC2086
      row "$o/spmv.csv" "$v random np 2" 2 examples/$v --matrix random --size 8388608 --no-check
      # shellcheck disable=SC2086
      row "$o/spmv.csv" "$v power np 2" 2 examples/$v --matrix random --size 8388608 "${power[@]}" --no-check
    done
    ;;
  small)
    for cfg in "1 2048 2048" "2 2048 2048" "2 2048 4096" "1 1024 1024" "2 1024 1024" "2 1024 2048"; do
      read -r n nx ny <<< "$cfg"
      for v in aliev_panfilov_mpi "aliev_panfilov_mpi --overlap" aliev_panfilov; do
        # shellcheck disable=SC2086
        row "$o/aliev_panfilov.csv" "$v ${nx}x$ny np $n" "$n" examples/$v --nx "$nx" --ny "$ny" --procs-x 1 --no-check
      done
    done
    ;;
  trace)
    for geo in "512 128" "256 128" "1024 64" "256 64"; do
      read -r t r <<< "$geo"
      row "$o/spmv.csv" "spmv $t threads cap $r" 1 examples/spmv --size 2048 --threads "$t" --max-registers "$r" --no-check
    done
    row "$o/spmv.csv" "spmv_mpi" 1 examples/spmv_mpi --size 2048 --no-check
    [ "$rep" = 1 ] && traced_row spmv-traced "$o/spmv.csv" "spmv traced" 1 examples/spmv --size 2048 --no-check
    ;;
  jacobi)
    for geo in "256 128" "512 128" "1024 64"; do
      read -r t r <<< "$geo"
      row "$o/jacobi.csv" "jacobi $t threads cap $r np 2" 2 examples/jacobi --size 4096 --threads "$t" --max-registers "$r" --no-check
    done
    row "$o/jacobi.csv" "jacobi_mpi np 2" 2 examples/jacobi_mpi --size 4096 --no-check
    [ "$rep" = 1 ] && traced_row jacobi-traced "$o/jacobi.csv" "jacobi traced np 2" 2 examples/jacobi --size 4096 --no-check
    ;;
  spmv)
    # One and two GPUs, both geometries of each program, each matrix; then
    # weak scaling at 1024 threads, 64 registers.
    power=(--power --tol 0 --iters 100)
    for n in 1 2; do
      for problem in "poisson --size 2048" "random --size 4194304" "power --size 4194304"; do
        read -r kind size_flag size <<< "$problem"
        args=(--matrix "$kind" "$size_flag" "$size")
        [ "$kind" = power ] && args=(--matrix random "$size_flag" "$size" "${power[@]}")
        for geo in "1024 64" "512 128"; do
          read -r t r <<< "$geo"
          row "$o/spmv.csv" "spmv $kind np $n $t/$r" "$n" examples/spmv "${args[@]}" --threads "$t" --max-registers "$r" --no-check
        done
        for t in 512 1024; do
          row "$o/spmv.csv" "spmv_mpi $kind np $n $t" "$n" examples/spmv_mpi "${args[@]}" --threads "$t" --no-check
        done
        row "$o/spmv.csv" "spmv_mpi --overlap $kind np $n 512" "$n" examples/spmv_mpi "${args[@]}" --overlap --no-check
      done
    done
    geo=(--threads 1024 --max-registers 64 --no-check)
    row "$o/spmv.csv" "weak spmv poisson np 2 1024/64" 2 examples/spmv --size 2896 "${geo[@]}"
    row "$o/spmv.csv" "weak spmv random np 2 1024/64" 2 examples/spmv --matrix random --size 8388608 "${geo[@]}"
    row "$o/spmv.csv" "weak spmv power np 2 1024/64" 2 examples/spmv --matrix random --size 8388608 "${power[@]}" "${geo[@]}"
    ;;
  aptrace)
    for size in 1024 4096; do
      traced_row "ap-$size" "$o/aliev_panfilov.csv" "aliev_panfilov traced $size 100 steps" 1 examples/aliev_panfilov --size $size --iters 100 --no-check
      row "$o/aliev_panfilov.csv" "aliev_panfilov $size 100 steps" 1 examples/aliev_panfilov --size $size --iters 100 --no-check
      row "$o/aliev_panfilov.csv" "aliev_panfilov_mpi $size 100 steps" 1 examples/aliev_panfilov_mpi --size $size --iters 100 --no-check
    done
    ;;
  sweep4)
    # Jacobi's sweep four columns at a time (new) against one (before):
    # the dcuda version, the baseline and the nvcc kernel of each.
    if [ "$rep" = 1 ]; then
      for v in jacobi_single jacobi_single_before; do
        nvcc_jacobi "$v"
      done
    fi
    for size in 4096 16384; do
      [ "$size" = 16384 ] && [ "$rep" -gt 2 ] && continue
      for v in jacobi jacobi_before jacobi_mpi jacobi_mpi_before; do
        row "$o/jacobi.csv" "$v $size np 1" 1 examples/$v --size $size --no-check
      done
      for v in jacobi_single jacobi_single_before; do
        row "$o/jacobi.csv" "$v $size np 1" 1 "/tmp/$v" --size $size
      done
      for v in jacobi jacobi_before "jacobi --threads 512" "jacobi_before --threads 512" jacobi_mpi "jacobi_mpi --overlap"; do
        # shellcheck disable=SC2086
        row "$o/jacobi.csv" "$v $size np 2" 2 examples/$v --size $size --no-check
      done
    done
    ;;
  jgeo)
    # Jacobi's geometries with the four-column sweep.
    [ "$rep" = 1 ] && nvcc_jacobi
    for size in 4096 16384; do
      for t in 256 512; do
        row "$o/jacobi.csv" "jacobi $t $size np 1" 1 examples/jacobi --size $size --threads $t --no-check
        row "$o/jacobi.csv" "jacobi $t $size np 2" 2 examples/jacobi --size $size --threads $t --no-check
      done
      for t in 512 1024; do
        row "$o/jacobi.csv" "jacobi_mpi $t $size np 1" 1 examples/jacobi_mpi --size $size --threads $t --no-check
        row "$o/jacobi.csv" "jacobi_single $t $size np 1" 1 /tmp/jacobi_single --size $size --threads $t
      done
    done
    ;;
  jfinal)
    # Jacobi at its defaults against every baseline variant and the nvcc
    # kernel at both geometries; a traced two-GPU run for the breakdown.
    [ "$rep" = 1 ] && nvcc_jacobi
    for size in 4096 16384; do
      for n in 1 2; do
        row "$o/jacobi.csv" "jacobi $size np $n" "$n" examples/jacobi --size $size --no-check
        for t in 512 1024; do
          row "$o/jacobi.csv" "jacobi_mpi $t $size np $n" "$n" examples/jacobi_mpi --size $size --threads $t --no-check
          [ "$n" = 2 ] && row "$o/jacobi.csv" "jacobi_mpi --overlap $t $size np $n" "$n" examples/jacobi_mpi --overlap --size $size --threads $t --no-check
          [ "$n" = 1 ] && row "$o/jacobi.csv" "jacobi_single $t $size np 1" 1 /tmp/jacobi_single --size $size --threads $t
        done
      done
    done
    [ "$rep" = 1 ] && DCUDA_TRACE_SPANS=8192 traced_row jacobi2 "$o/traced.csv" "jacobi traced 4096 np 2" 2 examples/jacobi --size 4096 --no-check
    ;;
  aprows)
    # Aliev–Panfilov's rows within a process by notification (new) against
    # notified puts onto themselves (before); checked first.
    if [ "$rep" = 1 ]; then
      for n in 1 2; do
        timeout 60 mpirun --allow-run-as-root --bind-to none -np $n examples/aliev_panfilov --nx 301 --ny 203 --iters 50 --procs-x $n --check >> "$o/checks.log" 2>&1 && echo "PASS check np $n" >> "$o/log" || echo "FAIL check np $n" >> "$o/log"
      done
    fi
    for cfg in ${AP_CFGS:-"1,4096" "1,1024" "2,4096" "2,2048"}; do
      IFS=, read -r n size <<< "$cfg"
      for v in aliev_panfilov aliev_panfilov_before aliev_panfilov_mpi "aliev_panfilov_mpi --overlap"; do
        # shellcheck disable=SC2086
        row "$o/aliev_panfilov.csv" "$v $size np $n" "$n" examples/$v --size $size --procs-x 1 --no-check
      done
    done
    ;;
  jnorm)
    if [ "$rep" = 1 ]; then
      nvcc_jacobi
      for n in 1 2; do
        timeout 60 mpirun --allow-run-as-root --bind-to none -np $n examples/jacobi --nx 301 --ny 203 --iters 20 --overlap --check >> "$o/checks.log" 2>&1 && echo "PASS check np $n" >> "$o/log" || echo "FAIL check np $n" >> "$o/log"
      done
    fi
    for size in 4096 16384; do
      for t in 512 1024; do
        row "$o/jacobi.csv" "jacobi_single $t $size np 1" 1 /tmp/jacobi_single --size $size --threads $t
      done
      row "$o/jacobi.csv" "jacobi $size np 1" 1 examples/jacobi --size $size --no-check
      row "$o/jacobi.csv" "jacobi --overlap $size np 1" 1 examples/jacobi --size $size --overlap --no-check
      for v in jacobi_before jacobi "jacobi --overlap" "jacobi_mpi --overlap --threads 1024"; do
        # shellcheck disable=SC2086
        row "$o/jacobi.csv" "$v $size np 2" 2 examples/$v --size $size --no-check
      done
    done
    ;;
  jnorm2)
    # The blocking kernel alone in its module (jacobi_blockonly) against
    # the module with both kernels (jacobi, jacobi --overlap) and before.
    [ "$rep" = 1 ] && nvcc_jacobi
    for size in 4096 16384; do
      row "$o/jacobi.csv" "jacobi_single 1024 $size np 1" 1 /tmp/jacobi_single --size $size --threads 1024
      for v in ${JNORM2:-jacobi_before jacobi_blockonly jacobi "jacobi --overlap"}; do
        # shellcheck disable=SC2086
        row "$o/jacobi.csv" "$v $size np 2" 2 examples/$v --size $size --no-check
      done
    done
    ;;
  final)
    if [ "$rep" = 1 ]; then
      nvcc_jacobi
      for n in 1 2; do
        timeout 60 mpirun --allow-run-as-root --bind-to none -np $n examples/jacobi --nx 301 --ny 203 --iters 20 --ranks 64 --check >> "$o/checks.log" 2>&1 && echo "PASS jacobi check np $n" >> "$o/log" || echo "FAIL jacobi check np $n" >> "$o/log"
        timeout 60 mpirun --allow-run-as-root --bind-to none -np $n examples/aliev_panfilov --nx 301 --ny 203 --iters 50 --procs-x $n --check >> "$o/checks.log" 2>&1 && echo "PASS aliev_panfilov check np $n" >> "$o/log" || echo "FAIL aliev_panfilov check np $n" >> "$o/log"
      done
    fi
    for size in 4096 16384; do
      for t in 512 1024; do
        row "$o/jacobi.csv" "jacobi_single $t $size np 1" 1 /tmp/jacobi_single --size $size --threads $t
      done
      row "$o/jacobi.csv" "jacobi $size np 1" 1 examples/jacobi --size $size --no-check
      for v in jacobi jacobi_before; do
        row "$o/jacobi.csv" "$v $size np 2" 2 examples/$v --size $size --no-check
      done
    done
    for n in 1 2; do
      for v in aliev_panfilov aliev_panfilov_before aliev_panfilov_mpi "aliev_panfilov_mpi --overlap"; do
        # shellcheck disable=SC2086
        row "$o/aliev_panfilov.csv" "$v 4096 np $n" "$n" examples/$v --size 4096 --procs-x 1 --no-check
      done
    done
    ;;
  hdiff)
    # The stages out of line (new) against inlined (before); checked first.
    if [ "$rep" = 1 ]; then
      for n in 1 2; do
        timeout 60 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n examples/hdiff --nx 67 --ny 41 --nz 5 --iters 7 --check >> "$o/checks.log" 2>&1 && echo "PASS check np $n" >> "$o/log" || echo "FAIL check np $n" >> "$o/log"
      done
    fi
    for grid in "128 320 26" "512 1280 32"; do
      read -r nx ny nz <<< "$grid"
      g=(--nx "$nx" --ny "$ny" --nz "$nz" --no-check)
      for v in hdiff_mpi "hdiff_mpi --overlap" hdiff_before "hdiff_before --threads 128 --max-registers 40"; do
        # shellcheck disable=SC2086
        row "$o/hdiff.csv" "$v ${nx}x$ny np 1" 1 examples/$v "${g[@]}"
      done
      for geo in "1024 64 1" "1024 64 2" "512 64 1" "512 64 2" "256 64 1" "128 40 1" "512 40 1"; do
        read -r t r b <<< "$geo"
        row "$o/hdiff.csv" "hdiff $t/$r/$b ${nx}x$ny np 1" 1 examples/hdiff "${g[@]}" --threads "$t" --max-registers "$r" --batch "$b"
      done
    done
    [ "$(nvidia-smi -L | wc -l)" -lt 2 ] && continue # one GPU: no two-GPU rows
    for grid in "128 320 26" "128 640 26" "512 2560 32"; do
      read -r nx ny nz <<< "$grid"
      for v in hdiff hdiff_before hdiff_mpi "hdiff_mpi --overlap"; do
        # shellcheck disable=SC2086
        row "$o/hdiff.csv" "$v ${nx}x$ny np 2" 2 examples/$v --nx "$nx" --ny "$ny" --nz "$nz" --no-check
      done
    done
    ;;
  esac
done
cat "$o/log"; tail -3 "$o/err.log" 2>/dev/null
medians "$o"
cd "$OUT" && tar cJf "apart-$section.tar.xz" "apart-$section" && rm -rf "apart-$section"
