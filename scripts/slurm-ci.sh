#!/bin/bash
# slurm-ci.sh up|down - a one-node SLURM cluster for tests, as root, on
# loopback: munged + slurmctld + slurmd, no systemd, no cgroups, no
# slurmdbd (shared/reference/build-and-infra.md section 3).
#
# State, spool, logs and pid files live under $SLURM_CI_DIR (default: a
# fresh mktemp -d, printed by `up`); `down` stops exactly the processes
# whose pid files are there. Clients need SLURM_CONF=$SLURM_CI_DIR/slurm.conf
# (without it they look for /etc/slurm and DNS SRV records and fail).
# Exit codes: 0 ok, 77 cannot run here (not root, packages missing), 1 failed.
set -euo pipefail
D=${SLURM_CI_DIR:-}
export SLURM_CONF=${D:+$D/slurm.conf}

need() {
    [ "$(id -u)" = 0 ] || { echo "slurm-ci: needs root (munged, SlurmUser=root)" >&2; exit 77; }
    local b
    for b in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sbatch squeue scontrol sinfo; do
        command -v "$b" >/dev/null 2>&1 || {
            echo "slurm-ci: $b missing (apt-get install slurmctld slurmd slurm-client munge)" >&2
            exit 77
        }
    done
}

up() {
    need
    if [ -z "$D" ]; then D=$(mktemp -d /tmp/slurm-ci.XXXXXX); fi
    export SLURM_CONF=$D/slurm.conf
    mkdir -p "$D"/{state,spool,log,run}
    # munge: one key per machine, created once
    if [ ! -s /etc/munge/munge.key ]; then
        mkdir -p /etc/munge
        mungekey --create --keyfile=/etc/munge/munge.key
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
    fi
    install -d -o munge -g munge -m 0755 /run/munge
    if [ -S /run/munge/munge.socket.2 ] && munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
        : # a munged is already serving this machine: share it, do not stop it later
    else
        # munged runs as munge: its pid file goes where munge may write
        rm -f /run/munge/munged.pid
        runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid --force
        for _i in $(seq 1 50); do
            [ -S /run/munge/munge.socket.2 ] && [ -s /run/munge/munged.pid ] && break
            sleep 0.1
        done
        cp /run/munge/munged.pid "$D/run/munged.pid"
    fi
    # NodeName must be what slurmd calls itself (hostname -s), or slurmd
    # refuses to start ("Unable to determine this slurmd's NodeName")
    local h p1 p2
    h=$(hostname -s)
    # ports the kernel says are free now, not SLURM's fixed 6817/6818: a
    # second cluster on the same loopback (another CI run on this host)
    # would otherwise take the controller's connections ("Unable to
    # contact slurm controller") or fail to bind
    read -r p1 p2 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
    cat > "$SLURM_CONF" <<CONF
ClusterName=ci
SlurmctldHost=${h}(127.0.0.1)
SlurmctldPort=${p1}
SlurmdPort=${p2}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
KillWait=5
MinJobAge=600
NodeName=${h} NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    /usr/sbin/slurmctld -f "$SLURM_CONF"
    /usr/sbin/slurmd -f "$SLURM_CONF"
    for _i in $(seq 1 150); do
        if [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; then
            echo "$D"
            return 0
        fi
        sleep 0.2
    done
    echo "slurm-ci: the node did not become idle; logs:" >&2
    tail -n 30 "$D"/log/*.log >&2 || true
    return 1
}

down() {
    [ -n "$D" ] && [ -d "$D/run" ] || { echo "slurm-ci: down needs SLURM_CI_DIR" >&2; return 2; }
    local pids="" f p i
    for f in slurmctld slurmd munged; do
        if p=$(cat "$D/run/$f.pid" 2>/dev/null) && [ -n "$p" ]; then pids="$pids $p"; fi
    done
    # asks slurmctld + slurmd to stop (without a config it would retry for 60 s)
    if [ -s "$SLURM_CONF" ]; then timeout 10 scontrol shutdown >/dev/null 2>&1 || true; fi
    if p=$(cat "$D/run/munged.pid" 2>/dev/null) && [ -n "$p" ]; then kill "$p" 2>/dev/null || true; fi
    for p in $pids; do
        for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        if kill -0 "$p" 2>/dev/null; then kill -9 "$p" 2>/dev/null || true; fi
    done
    rm -f "$D"/run/*.pid
}

case "${1:-}" in
up) up ;;
down) down ;;
*) echo "usage: SLURM_CI_DIR=DIR $0 up|down" >&2; exit 2 ;;
esac
