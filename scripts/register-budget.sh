#!/usr/bin/env bash
# Fails when a rank kernel needs more registers (ptxas, sm_90, no cap) than
# its budget in scripts/register-budget.txt: registers decide how many
# ranks fit on a GPU, and a runtime change once cut distributed_sum from
# 1188 to 924 ranks per H200 unnoticed. A budget is the most registers that
# keep the kernel's ranks per multiprocessor at 128 threads, or (a kernel
# loaded with a cap) a guard on how much code its hot loop inlines, as the
# text file says per kernel; raise it only with the measured cost
# (docs/design.md). A fourth column is the cap the program loads the
# kernel with: then the check is no spills at that cap and a stack frame
# within the budget (bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
PTXAS=${PTXAS:-.tools/cuda-nvcc/nvidia/cu13/bin/ptxas}
dir=${1:-target}
status=0
while read -r crate kernel budget cap; do
  case "$crate" in ''|\#*) continue ;; esac
  ptx=$(find "$dir" -path "*/build/*/out/$crate.sm_90.ptx" -printf '%T@ %p\n' | sort -rn | head -1 | cut -d' ' -f2)
  if [ -z "$ptx" ]; then
    echo "register-budget: no sm_90 PTX of $crate under $dir" >&2; status=1; continue
  fi
  if [ -n "${cap:-}" ]; then
    # A kernel loaded with a register cap: at that cap it must not spill,
    # and its stack frame (inlined calls' locals) must stay within budget.
    read -r frame spills < <("$PTXAS" -arch=sm_90 --maxrregcount="$cap" -v "$ptx" -o /dev/null 2>&1 |
      awk -v k="'$kernel'" '/Compiling entry function/ { f = $(NF-2) } /bytes stack frame/ && f == k { print $1, $5; exit }')
    if [ -z "${frame:-}" ]; then
      echo "register-budget: no kernel $kernel in $ptx" >&2; status=1; continue
    fi
    if [ "$spills" -gt 0 ] || [ "$frame" -gt "$budget" ]; then
      echo "register-budget: $kernel ($crate) at $cap registers: $frame bytes of stack frame (budget $budget), $spills bytes spilled (budget 0)" >&2
      status=1
    else
      echo "register-budget: $kernel at $cap registers: $frame <= $budget bytes of stack frame, no spills"
    fi
    continue
  fi
  used=$("$PTXAS" -arch=sm_90 -v "$ptx" -o /dev/null 2>&1 |
    awk -v k="'$kernel'" '/Compiling entry function/ { f = $(NF-2) } /Used [0-9]+ registers/ && f == k { print $5 }')
  if [ -z "$used" ]; then
    echo "register-budget: no kernel $kernel in $ptx" >&2; status=1; continue
  fi
  per_sm=$(( 65536 / (used * 128) ))
  if [ "$used" -gt "$budget" ]; then
    echo "register-budget: $kernel ($crate) needs $used registers, budget $budget: $per_sm ranks of 128 threads per multiprocessor now" >&2
    status=1
  else
    echo "register-budget: $kernel $used <= $budget ($per_sm ranks of 128 threads per multiprocessor)"
  fi
done < scripts/register-budget.txt
exit $status
