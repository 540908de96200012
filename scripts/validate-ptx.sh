#!/usr/bin/env bash
# Assembles every PTX file the build produced with ptxas, for sm_90 and for
# the architecture it was built for. ptxas 13 no longer accepts sm_70/sm_72,
# so PTX built for those is assembled for sm_75, the oldest target it has:
# the same PTX text, checked by the same assembler. Identical files (the
# same kernel crate built for several packages) are assembled once, and
# the assemblies run in parallel, one per core, the largest files first.
# ptxas reads and checks every instruction whatever its optimisation, so
# this validation assembles with `-Ofc max` (fast compile: 36 s against
# 133 s for the 16 MB test kernels); what depends on ptxas's full
# optimisation, registers and stack frames, scripts/register-budget.sh
# checks at -O3.
set -euo pipefail
cd "$(dirname "$0")/.."
PTXAS=${PTXAS:-.tools/cuda-nvcc/nvidia/cu13/bin/ptxas}
dir=${1:-target}
mapfile -t files < <(find "$dir" -path '*/build/*/out/*.sm_*.ptx' -printf '%s %p\n' | sort -k1,1rn -k2 | cut -d' ' -f2-)
[ "${#files[@]}" -gt 0 ] || { echo "validate-ptx: no PTX found under $dir" >&2; exit 1; }
declare -A seen
jobs=()
for f in "${files[@]}"; do
  sum=$(sha256sum "$f" | cut -d' ' -f1)
  [ -z "${seen[$sum]:-}" ] || continue
  seen[$sum]=1
  arch=$(sed -n 's/.*\.sm_\([0-9]*\)\.ptx$/\1/p' <<<"$f")
  own=$(( arch < 75 ? 75 : arch ))
  for target in $(printf '%s\n' "$own" 90 | sort -un); do
    jobs+=("sm_$target" "$f")
  done
done
export PTXAS
results=$(printf '%s\n' "${jobs[@]}" | xargs -n 2 -P "$(nproc)" sh -c \
  'if "$PTXAS" -arch="$0" -Ofc max "$1" -o /dev/null; then echo pass; else echo "validate-ptx: ptxas -arch=$0 rejected $1" >&2; echo fail; fi')
pass=$(grep -c '^pass$' <<<"$results" || true)
fail=$(grep -c '^fail$' <<<"$results" || true)
echo "validate-ptx: ${#files[@]} PTX files, ${#seen[@]} distinct"
echo "ptxas: $pass passed, $fail failed"
[ "$fail" = 0 ]
