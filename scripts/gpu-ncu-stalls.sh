#!/usr/bin/env bash
# Where a rank kernel's warps stall, instruction by instruction (GPU
# machine): ncu samples warp states (WarpStateStats, SourceCounters) over
# the first launch of $KERNEL in `CMD...` and exports the SASS with its
# samples to $OUT/NAME.source.csv.xz, for scripts/ncu-stalls.py.
#   KERNEL=aliev_panfilov bash gpu-ncu-stalls.sh NAME CMD...
# One ncu pass: the persistent kernel is not replayed.
set -uo pipefail
o=${OUT:-/tmp}
name=$1; shift
rep=$o/$name
timeout "${LIMIT:-250}" ncu --section WarpStateStats --section SourceCounters \
  --kernel-name "${KERNEL:?which kernel}" --launch-count 1 -o "$rep" "$@" >"$rep.log" 2>&1
echo "ncu $name: exit $? ($(tail -1 "$rep.log"))"
ncu -i "$rep.ncu-rep" --page source --csv --print-source sass >"$rep.source.csv"
xz -9f "$rep.source.csv"
rm -f "$rep.ncu-rep"
