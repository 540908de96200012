#!/usr/bin/env bash
# A one-node Slurm on this machine, for testing dcuda under srun:
#   scripts/slurm-local.sh start   # munged, slurmctld and slurmd; prints the SLURM_CONF to export
#   scripts/slurm-local.sh stop
# Needs root and Debian's slurm-wlm and munge (scripts/setup.sh --full
# installs them). Everything Slurm writes goes under $DIR.
set -euo pipefail
DIR=${DCUDA_SLURM_DIR:-/tmp/dcuda-slurm}
export SLURM_CONF=$DIR/slurm.conf

start() {
  mkdir -p "$DIR/state" "$DIR/spool"
  local host; host=$(hostname -s)
  cat > "$SLURM_CONF" <<CONF
ClusterName=dcuda
SlurmctldHost=$host
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
  if ! munge -n >/dev/null 2>&1; then
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown -R munge:munge /run/munge /var/log/munge /var/lib/munge
    [ -f /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; }
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
    runuser -u munge -- munged
  fi
  pgrep -x slurmctld >/dev/null || slurmctld
  pgrep -x slurmd >/dev/null || slurmd
  for _ in $(seq 60); do
    if sinfo -h -o %T 2>/dev/null | grep -qx idle; then
      echo "export SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.5
  done
  echo "slurm-local: the node did not come up; logs in $DIR" >&2
  tail -5 "$DIR/slurmctld.log" "$DIR/slurmd.log" >&2 || true
  return 1
}

stop() {
  scontrol shutdown 2>/dev/null || true
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
