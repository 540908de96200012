#!/usr/bin/env bash
# Assembles every PTX file the build produced with ptxas, for sm_90 and for
# the architecture it was built for. ptxas 13 no longer accepts sm_70/sm_72,
# so PTX built for those is assembled for sm_75, the oldest target it has:
# the same PTX text, checked by the same assembler.
set -euo pipefail
cd "$(dirname "$0")/.."
PTXAS=${PTXAS:-.tools/cuda-nvcc/nvidia/cu13/bin/ptxas}
dir=${1:-target}
mapfile -t files < <(find "$dir" -path '*/build/*/out/*.sm_*.ptx' | sort)
[ "${#files[@]}" -gt 0 ] || { echo "validate-ptx: no PTX found under $dir" >&2; exit 1; }
pass=0; fail=0
for f in "${files[@]}"; do
  arch=$(sed -n 's/.*\.sm_\([0-9]*\)\.ptx$/\1/p' <<<"$f")
  own=$(( arch < 75 ? 75 : arch ))
  for target in $(printf '%s\n' "$own" 90 | sort -un); do
    if "$PTXAS" -arch="sm_$target" "$f" -o /dev/null; then
      pass=$((pass + 1))
    else
      echo "validate-ptx: ptxas -arch=sm_$target rejected $f" >&2
      fail=$((fail + 1))
    fi
  done
done
echo "validate-ptx: ${#files[@]} PTX files"
echo "ptxas: $pass passed, $fail failed"
[ "$fail" = 0 ]
