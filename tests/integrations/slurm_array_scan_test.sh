#!/usr/bin/env bash
# `kcheck scan --shard` on a real scheduler (issue #17): starts a one-node
# Slurm cluster on localhost from Debian's packages (munged, slurmctld and
# slurmd, all in a scratch directory, on free ports, stopped on exit),
# submits `sbatch --array=0-3` whose task i runs `kcheck scan --shard i/4`
# over a corpus, waits, merges the four shard reports with `kcheck merge`,
# and checks the merged report is byte for byte the unsharded scan's.
#
#   slurm_array_scan_test.sh KCHECK CORPUS
set -euo pipefail
kcheck=$1 corpus=$2
for tool in munged slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$tool" >/dev/null || { echo "$tool not found: scripts/setup.sh installs slurm-wlm and munge"; exit 1; }
done
work=$(mktemp -d /tmp/kcheck-slurm-XXXXXX)
export SLURM_CONF=$work/slurm.conf

stop() {
  scontrol shutdown >/dev/null 2>&1 || true
  munged --stop --socket="$work/munge.sock" >/dev/null 2>&1 || true
  for pid_file in "$work"/slurmctld.pid "$work"/slurmd.pid; do
    [[ -f $pid_file ]] && kill "$(cat "$pid_file")" 2>/dev/null || true
  done
  sleep 0.5
  rm -rf "$work"
}
trap stop EXIT
fail() {
  echo "$1"
  for log in "$work"/*.log; do echo "== $log"; tail -20 "$log"; done
  exit 1
}

# Two free TCP ports for slurmctld and slurmd.
read -r controller_port node_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])')

head -c 1024 /dev/urandom >"$work/munge.key"
chmod 400 "$work/munge.key"
munged --force --key-file="$work/munge.key" --socket="$work/munge.sock" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed"

node=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<CONF
ClusterName=kcheck-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=kcheck Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -i
slurmd
for _ in $(seq 50); do
  [[ $(sinfo -h -o %t 2>/dev/null) == idle ]] && break
  sleep 0.2
done
[[ $(sinfo -h -o %t 2>/dev/null) == idle ]] || fail "the Slurm node did not come up"

# kcheck exits 1 when a repository fails its audit: the task still succeeded.
sbatch --wait --array=0-3 --output="$work/task-%a.log" \
  --wrap "'$kcheck' scan '$corpus' --shard \$SLURM_ARRAY_TASK_ID/4 --no-cache --threads 1 --format json -o '$work'/shard-\$SLURM_ARRAY_TASK_ID.json; test \$? -le 1" \
  >"$work/sbatch.log" || fail "the array job failed"
for task in 0 1 2 3; do [[ -s $work/shard-$task.json ]] || fail "task $task wrote no report"; done
# Both exit 1 when a repository of the corpus fails its audit (some fixtures do).
status=0
"$kcheck" merge "$work"/shard-{0,1,2,3}.json -o "$work/merged.json" || status=$?
((status <= 1)) || fail "kcheck merge exited $status"
status=0
"$kcheck" scan "$corpus" --no-cache --format json -o "$work/whole.json" || status=$?
((status <= 1)) || fail "the unsharded scan exited $status"
cmp "$work/merged.json" "$work/whole.json" || fail "the merged shards differ from the unsharded scan"
repositories=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["repositories"]))' "$work/whole.json")
((repositories >= 8)) || fail "too few repositories ($repositories) to spread over four shards"
echo "4 Slurm array tasks, $repositories repositories: the merged report equals the unsharded scan"
