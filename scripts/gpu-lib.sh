# Shared by gpu-run.sh and gpu-world.sh: `run NAME CMD...` runs CMD with
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
