#!/usr/bin/env bash
# Put targets on one GPU: the device tests (put_targets, runtime), the
# world checks in one process, hdiff against its CPU reference. Bundle:
# examples/{hdiff,world_checks,put_targets_tests,runtime_tests} (the test
# binaries from `cargo test --no-run`) and this script.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "--- put_targets tests"; timeout 120 examples/put_targets_tests --test-threads=1 2>&1 | grep -E "^test |test result"
echo "--- runtime tests"; timeout 150 examples/runtime_tests --test-threads=1 2>&1 | grep -E "test result|FAILED|panicked"
echo "--- world_checks np 1"; timeout 300 mpirun --allow-run-as-root --bind-to none -np 1 examples/world_checks 2>&1 | grep -E " ok|FAIL" | head -8
for g in "--nx 67 --ny 150 --nz 5" "--nx 128 --ny 320 --nz 26" "--nx 13 --ny 23 --nz 3 --threads 32 --ranks 3"; do
  echo "--- hdiff $g --check"; timeout 120 examples/hdiff $g --check 2>&1 | tail -1
done
