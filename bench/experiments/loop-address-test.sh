#!/usr/bin/env bash
# Stages the loop-address test of bench/results/2026-11-29-cold-paths-h200/
# into STAGE (default /tmp/stage-loop-address); on the GPU machine run
# `bash STAGE/go.sh` with $OUT set. No GPU needed here; needs .tools' ptxas
# and cuobjdump (CUOBJDUMP=path) for the printed loop addresses.
#  - K (978369d + ap-dead-typed-call.patch) loaded as cubins with its walk
#    shifted by 0, 1, 3, 5 and 7 nanosleeps (shift-walk.py): the hypothesis
#    predicts 3 and 7 (loop at 0x20 mod 64) as fast as the parent, the
#    others slow.
#  - The reflected reads, plain and padded so that both walk loops start at
#    0x20 mod 64 (ap-reflected-reads-aligned.patch), against this commit.
# Every binary carries cubin-override.patch (DCUDA_EXPERIMENT_CUBIN).
# Run on 2026-11-29: the hypothesis is refuted (every shifted K as slow as
# K; bench/results/2026-11-29-cold-paths-h200/19-loop-address/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
stage=${STAGE:-/tmp/stage-loop-address}
target=${TARGET:-/tmp/target-loop-address}
ptxas=$repo/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas
walk=_RINvNtCs9TjC2mWJTI2_22aliev_panfilov_kernels7compute13batched_apartKj1_EB4_
rm -rf "$stage" && mkdir -p "$stage/examples"
build() { # NAME REV PATCH...: examples/NAME (and NAME.ptx) from REV with the patches
  local name=$1 rev=$2; shift 2
  local wt; wt=$(mktemp -d)/wt
  git -C "$repo" worktree add -f -q "$wt" "$rev"
  cp -r "$repo/.tools" "$wt/"
  git -C "$wt" apply "$here/cubin-override.patch"
  for p in "$@"; do git -C "$wt" apply "$here/$p"; done
  (cd "$wt" && env DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS="$ptxas" CARGO_INCREMENTAL=0 \
    CARGO_TARGET_DIR="$target" cargo build -q --release -p aliev_panfilov --bins)
  cp "$target/release/aliev_panfilov" "$stage/examples/$name"
  cp "$(ls -t "$target"/release/build/aliev_panfilov-*/out/aliev_panfilov_kernels.sm_90.ptx | head -1)" "$stage/$name.ptx"
  [ "$name" = kept ] && cp "$target/release/aliev_panfilov_mpi" "$stage/examples/baseline"
  git -C "$repo" worktree remove -f "$wt"
}
build kept HEAD
build refl HEAD ap-reflected-reads.patch
build refl_aligned HEAD ap-reflected-reads-aligned.patch
build k 978369d ap-dead-typed-call.patch
for n in 0 1 3 5 7; do
  python3 "$here/shift-walk.py" "$stage/k.ptx" "$stage/k-n$n.ptx" "$walk" "$n"
  "$ptxas" -arch=sm_90 --maxrregcount 64 "$stage/k-n$n.ptx" -o "$stage/k-n$n.cubin"
  if [ -n "${CUOBJDUMP:-}" ]; then
    "$CUOBJDUMP" -sass -fun aliev_panfilov "$stage/k-n$n.cubin" > "$stage/k-n$n.sass"
    echo "K+$n: $(python3 "$here/loop_address.py" "$stage/k-n$n.sass" | sed -n 1p)"
  fi
done
cat > "$stage/go.sh" <<'RUN'
#!/usr/bin/env bash
# The loop-address test: device-clock seconds, 1000 steps, three rounds.
cd "$(dirname "$0")"
o=${OUT:-/tmp}/loop-address; mkdir -p "$o"
secs() { "$@" --no-check --csv 2>/dev/null | tail -1 | cut -d, -f11; }
for round in 1 2 3; do
  for size in 2048 4096; do
    for b in kept refl refl_aligned baseline; do
      echo "$round $size $b $(secs examples/$b --size $size)" | tee -a "$o/times.txt"
    done
    [ "$size" = 2048 ] || continue
    for n in 0 1 3 5 7; do
      echo "$round $size K+$n $(DCUDA_EXPERIMENT_CUBIN=$PWD/k-n$n.cubin secs examples/k --size $size)" | tee -a "$o/times.txt"
    done
  done
done
RUN
echo "staged in $stage: tar cJf .gpu-bundle/bundle.txz -C $stage . ; carry .gpu-bundle; on the GPU machine unpack and run go.sh"
