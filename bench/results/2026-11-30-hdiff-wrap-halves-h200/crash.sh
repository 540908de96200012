#!/usr/bin/env bash
cd "$(dirname "$0")"
o=${OUT:-/tmp}
small="--nx 128 --ny 320 --nz 26"
for args in "--iters 4" "--iters 200" "--max-registers 64 --iters 200" "--max-registers 72 --iters 200" "--max-registers 96 --iters 200"; do
  echo "=== hdiff $args"; timeout 60 examples/hdiff $small $args --check 2>&1 | tail -2
done
echo "=== split 200 at 80"; timeout 60 examples/hdiff_split $small --iters 200 --check 2>&1 | tail -1
echo "=== sanitizer"; timeout 240 compute-sanitizer --tool memcheck --show-backtrace device examples/hdiff $small --iters 3 --check > $o/sanitizer.txt 2>&1; echo rc $?
head -60 $o/sanitizer.txt
