#!/bin/sh
# Starts a one-node Slurm cluster on this machine, for tests and for trying a plan:
# munged, slurmctld and slurmd, with neither systemd nor cgroups (proctrack/linuxproc,
# task/none). Needs root and Debian's slurm-wlm and munge packages
# (apt-get install slurm-wlm munge).
#
#   tests/farm/slurm-up.sh STATE_DIR     start; prints the SLURM_CONF to export
#   tests/farm/slurm-up.sh STATE_DIR down stop what this script started
#
# Everything (config, spool, logs, pid files) lives in STATE_DIR; nothing under /etc
# is changed. Exits non-zero, saying why, when the cluster does not come up.
set -eu
state=$(mkdir -p "${1:?usage: slurm-up.sh STATE_DIR [down]}" && cd "$1" && pwd)
conf="$state/slurm.conf"

if [ "${2:-}" = down ]; then
    for pid in "$state/slurmd.pid" "$state/slurmctld.pid" "$state/munged.pid"; do
        [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
    done
    exit 0
fi

for tool in munged slurmctld slurmd sinfo sbatch; do
    command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin"
    command -v "$tool" >/dev/null 2>&1 || { echo "slurm-up: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm-up: needs root (slurmd runs jobs as their users)" >&2; exit 1; }

host=$(hostname -s)
mkdir -p "$state/ctld" "$state/d" "$state/munge"
# munged: its own key and socket in STATE_DIR, so a system munged is left alone.
[ -s "$state/munge/munge.key" ] || mungekey --create --keyfile="$state/munge/munge.key" 2>/dev/null \
    || dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$state/munge/munge.key"
socket="$state/munge/munge.socket"
munged --force --key-file="$state/munge/munge.key" --socket="$socket" \
    --pid-file="$state/munged.pid" --log-file="$state/munged.log" --seed-file="$state/munge/seed"

cat > "$conf" <<CONF
ClusterName=usdsim-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire also sets how long slurmctld holds a requeued job back (begin time now +
# cred_expire + 1 s, batch_requeue_fini in job_mgr.c): 120 s by default, past a test's wait.
AuthInfo=socket=$socket,cred_expire=10
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

export SLURM_CONF="$conf"
slurmctld -f "$conf"
slurmd -f "$conf"
i=0
until sinfo -h -o %T 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; do
    i=$((i + 1))
    if [ $i -gt 30 ]; then
        echo "slurm-up: the node did not become idle in 30 s; logs in $state" >&2
        tail -5 "$state/slurmctld.log" "$state/slurmd.log" >&2 || true
        exit 1
    fi
    sleep 1
done
echo "SLURM_CONF=$conf"
