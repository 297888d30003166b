#!/usr/bin/env bash
# A private single-node Slurm for the tests: munged, slurmctld and slurmd of Debian's
# slurm-wlm and munge, with their key, configuration, state, spool, sockets and logs in one
# temporary folder, on two free loopback ports, without accounting, cgroups or systemd.
#
#   tests/slurm/slurm_cluster.sh COMMAND [ARGS...]
#
# starts the cluster, runs COMMAND with SLURM_CONF (the clients' configuration) and
# SLURM_CLUSTER_DIR exported, then stops the daemons - and any job step left - by their own
# process ids, whatever happens (trap). Exits with COMMAND's status, or 77 (ctest's
# SKIP_RETURN_CODE) with a message when Slurm or munge is not installed. Several clusters
# can run at once (own ports, own folder). KEEP=1 keeps the folder for a look at the logs;
# SLURM_CLUSTER_NO_PMIX=1 leaves Slurm's PMIx plugin out, as on a cluster built without it.
#
# Sourced (`. tests/slurm/slurm_cluster.sh`), it only defines the functions below, for COMMAND:
#   slurm_submit SBATCH_ARGS...        sbatch --parsable; prints the job id
#   slurm_job_states JOB               "ID STATE RESTARTS" per job (each task of an array)
#   slurm_wait JOB PATTERN [SECONDS]   prints each state change until every line of
#                                      slurm_job_states matches the extended regex PATTERN
#   slurm_wait_done JOB [SECONDS]      waits for the end; 0 when every job COMPLETED
#   slurm_show_logs [FILES...]         the files, then the tails of the daemons' logs
# A job can then be signalled (scancel --signal=USR1 --batch JOB) and its requeue awaited
# (slurm_wait JOB '(RUNNING|COMPLETED) [1-9]'), as tests/slurm/slurm_requeue_test.sh does.

SLURM_TERMINAL='(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)'

slurm_submit() {
    sbatch --parsable "$@" | cut -d';' -f1
}

slurm_job_states() { # one line per job: id (ID_TASK for array tasks), state, restarts
    scontrol -o show job "$1" 2>/dev/null | awk '{
        id = ""; task = ""; state = ""; restarts = 0
        for (i = 1; i <= NF; i++) {
            split($i, kv, "=")
            if (kv[1] == "JobId") id = kv[2]
            else if (kv[1] == "ArrayJobId") id = kv[2]
            else if (kv[1] == "ArrayTaskId") task = "_" kv[2]
            else if (kv[1] == "JobState") state = kv[2]
            else if (kv[1] == "Restarts") restarts = kv[2]
        }
        print id task, state, restarts }' | sort -V
}

slurm_wait() { # JOB PATTERN [SECONDS]
    local job=$1 pattern=$2 limit=${3:-120} start=$SECONDS states last=""
    while :; do
        states=$(slurm_job_states "$job")
        if [ "$states" != "$last" ] && [ -n "$states" ]; then # the lines that changed
            printf '%s\n' "$states" | grep -vxF -f <(printf '%s\n' "${last:-none}") |
                sed "s/^/  [$((SECONDS - start))s] job /"
            last=$states
        fi
        if [ -n "$states" ] && ! printf '%s\n' "$states" | grep -qvE " $pattern( |$)"; then
            return 0
        fi
        if [ $((SECONDS - start)) -ge "$limit" ]; then
            echo "job $job: not /$pattern/ after ${limit} s" >&2
            return 1
        fi
        sleep 0.5
    done
}

slurm_wait_done() { # JOB [SECONDS]: 0 when every job (array task) ended COMPLETED
    slurm_wait "$1" "$SLURM_TERMINAL" "${2:-120}" || return 1
    ! slurm_job_states "$1" | grep -qv ' COMPLETED '
}

slurm_show_logs() {
    local f
    for f in "$@" "$SLURM_CLUSTER_DIR"/log/*.log; do
        [ -f "$f" ] || continue
        echo "---- $f"
        tail -n 30 "$f"
    done
}

# --- the cluster -------------------------------------------------------------------------

_cluster_pids=() # munged, slurmctld, slurmd: started here, stopped by these ids

# Two TCP ports free on loopback, away from Slurm's 6817/6818 and below the kernel's ephemeral
# range: a port the kernel handed out (bind to 0) was free when asked but could be another
# process's by the time slurmd bound it (an MPI job's connection in the parallel suite took
# 42225 once: "Unable to bind listen port"), which ports outside the range cannot be.
_free_ports() {
    /usr/bin/python3 -c '
import random, socket
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
pool = [p for p in range(10000, low) if p not in (6817, 6818)]
random.shuffle(pool)
found = []
for port in pool:
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        found.append(port)
    except OSError:
        pass
    finally:
        s.close()
    if len(found) == 2:
        break
if len(found) < 2:  # no room below the range: ask the kernel
    s = [socket.socket() for _ in range(2)]
    for x in s:
        x.bind(("127.0.0.1", 0))
    found = [x.getsockname()[1] for x in s]
print(*found)'
}

_write_conf() { # DIR HOST CTLD_PORT SLURMD_PORT
    local dir=$1 host=$2 cpus mem user
    user=$(id -un)
    # The node as slurmd sees it, but with at least SLURM_CLUSTER_CPUS [4] CPUs
    # (config_overrides) so that the 4-task jobs of the tests are accepted on a 2-core
    # machine as on a real node. Open MPI then does not know the node is oversubscribed:
    # its ranks must yield when idle, or they spin and the run is 100 times slower.
    cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p')
    mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
    if [ "${cpus:-0}" -lt "${SLURM_CLUSTER_CPUS:-4}" ]; then
        cpus=${SLURM_CLUSTER_CPUS:-4}
        export OMPI_MCA_mpi_yield_when_idle=1
    fi
    # cred_expire=10 and sched_interval=2: a requeued job starts again after some 10 s,
    # not 120 s and the next minute's scheduling pass.
    # Job ids of their own: two test clusters at once (ctest -j) both numbering from job 1 gave
    # two srun jobs the same PMIx namespace, hence the same Open MPI shared-memory segments:
    # one crashed in the exchange, the other hung.
    local first_job=$((1 + ($$ % 60000) * 1000))
    cat >"$dir/slurm.conf" <<EOF
FirstJobId=$first_job
ClusterName=polkatest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$3
SlurmdPort=$4
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
SchedulerParameters=sched_interval=2,bf_interval=2
MailProg=/bin/true
$(_plugin_dir "$dir")
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

_plugin_dir() { # DIR: with SLURM_CLUSTER_NO_PMIX=1, every plugin but PMIx, as on a cluster
    [ -n "${SLURM_CLUSTER_NO_PMIX:-}" ] || return 0 # built without it
    local lib f
    for lib in /usr/lib/*/slurm-wlm /usr/lib*/slurm /usr/local/lib/slurm; do
        [ -f "$lib/mpi_none.so" ] && break
    done
    mkdir -p "$1/plugins"
    for f in "$lib"/*.so; do
        case ${f##*/} in mpi_pmix*) ;; *) ln -s "$f" "$1/plugins/" ;; esac
    done
    echo "PluginDir=$1/plugins"
}

_start_munge() { # DIR: a fresh key, munged in the foreground on its own socket
    local dir=$1 m=$1/munge
    mkdir -p "$m"
    chmod 700 "$m"
    head -c 1024 /dev/urandom >"$m/munge.key"
    chmod 400 "$m/munge.key"
    munged --foreground --force --socket="$m/munge.socket" --key-file="$m/munge.key" \
        --pid-file="$m/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$m/munged.seed" >>"$dir/log/munged.out" 2>&1 &
    _cluster_pids+=($!)
    for _ in $(seq 100); do
        munge -n --socket="$m/munge.socket" 2>/dev/null |
            unmunge --socket="$m/munge.socket" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "slurm_cluster: munged did not answer on $m/munge.socket" >&2
    return 1
}

slurm_cluster_start() { # DIR: the daemons of a cluster whose files go under DIR
    local dir=$1 host ports
    host=$(hostname -s)
    mkdir -p "$dir/state" "$dir/spool" "$dir/tmp" "$dir/log"
    _start_munge "$dir" || return 1
    read -r -a ports < <(_free_ports)
    _write_conf "$dir" "$host" "${ports[0]}" "${ports[1]}"
    export SLURM_CONF=$dir/slurm.conf SLURM_CLUSTER_DIR=$dir
    slurmctld -D -i -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 &
    _cluster_pids+=($!)
    slurmd -D -f "$SLURM_CONF" >>"$dir/log/slurmd.out" 2>&1 &
    _cluster_pids+=($!)
    for _ in $(seq 300); do
        case $(sinfo -h -N -o %T 2>/dev/null) in idle*) echo "slurm_cluster: node $host idle" \
            "(ports ${ports[*]}, conf $SLURM_CONF)"; return 0 ;; esac
        sleep 0.1
    done
    echo "slurm_cluster: the node did not come up in 30 s" >&2
    slurm_show_logs "$dir"/log/*.out
    return 1
}

_marked_pids() { # processes whose environment names this cluster (grep -z: NUL-separated)
    grep -lsxzF "POLKA_SLURM_CLUSTER=$1" /proc/[0-9]*/environ | cut -d/ -f3 | grep -vxF "$$"
}

slurm_cluster_stop() { # DIR: cancels the jobs, stops the daemons, kills what is left
    local dir=$1 p alive=() left
    unset POLKA_SLURM_CLUSTER
    scancel --quiet --user="$(id -un)" 2>/dev/null
    for _ in $(seq 50); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.2
    done
    kill -TERM "${_cluster_pids[@]}" 2>/dev/null
    for _ in $(seq 50); do
        alive=()
        for p in "${_cluster_pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
        [ ${#alive[@]} -eq 0 ] && break
        sleep 0.2
    done
    [ ${#alive[@]} -gt 0 ] && kill -KILL "${alive[@]}" 2>/dev/null
    left=$(_marked_pids "$dir" | tr '\n' ' ')
    if [ -n "$left" ]; then
        echo "slurm_cluster: killing processes of the cluster left: $left" >&2
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null
    fi
    wait 2>/dev/null
}

_cluster_main() {
    local missing=() c dir status
    for c in munged munge unmunge slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
        command -v "$c" >/dev/null || missing+=("$c")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "SKIP: no ${missing[*]} here: a real Slurm needs Debian's slurm-wlm and munge" \
            "(tools/install_deps.sh installs them)"
        exit 77
    fi
    [ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
    dir=$(mktemp -d "${TMPDIR:-/tmp}/polka-slurm.XXXXXX")
    chmod 755 "$dir"
    # The daemons, COMMAND and the jobs it submits carry this mark, found again by stop.
    export POLKA_SLURM_CLUSTER=$dir
    trap 'slurm_cluster_stop "$dir"; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
    trap 'exit 143' TERM INT HUP
    slurm_cluster_start "$dir" || exit 1
    # In the background so that a signal runs the traps at once, not when COMMAND ends.
    "$@" <&0 &
    status=0
    wait $! || status=$?
    exit "$status"
}

if ! (return 0 2>/dev/null); then # run, not sourced
    set -uo pipefail
    _cluster_main "$@"
fi
