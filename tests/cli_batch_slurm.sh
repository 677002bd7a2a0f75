#!/usr/bin/env bash
# drape batch on a real Slurm (issue 19; docs/batch.md "Slurm"): starts
# munged, slurmctld and slurmd (Debian's slurm-wlm and munge, from
# scripts/setup.sh) for this machine alone, with a slurm.conf, a munge key,
# state, spool, socket and logs in a temporary folder and ports that were
# free a moment before, so that nothing under /etc or /run is used and two
# runs at once do not meet. Then:
#  - `drape batch --slurm` writes the array script of an 8-job sweep over
#    4 array tasks (at most 2 at once); sbatch runs it; within a timeout
#    every array task completes with exit 0, every job is done, each task
#    ran its shard, and the last one wrote the summary (8 done rows);
#  - the same sweep with --jobs 2 on this machine gives the same bits per
#    job (final OBJ bytes, final metrics) as the Slurm run;
#  - every daemon this test started is stopped by its pid, and nothing
#    that ran from the temporary folder is left.
# The daemons run as root (SlurmUser=root, munged --force): as another
# user the test says why it skips.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
source "$S/tests/lib_cli.sh"
die() { echo "FAIL $*"; fail=1; }

if [[ $(id -u) != 0 ]]; then
  echo "ok   skipped: a private slurmctld/slurmd needs root (CI runs the tests as root)"
  exit 0
fi
for b in munged slurmctld slurmd; do
  [[ -x /usr/sbin/$b ]] || { echo "FAIL /usr/sbin/$b missing: run scripts/setup.sh (slurm-wlm, munge)"; exit 1; }
done
for b in sbatch squeue scontrol sinfo; do
  command -v $b >/dev/null || { echo "FAIL $b missing: run scripts/setup.sh (slurm-wlm)"; exit 1; }
done

T=$(mktemp -d)
chmod 755 "$T"
pids=()
stop_daemons() {
  local p i
  # slurmd, slurmctld, then munged: the reverse of their start
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    p=${pids[i]}
    kill -TERM "$p" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  pids=()
}
trap 'stop_daemons; rm -rf "$T"' EXIT

# --- the daemons ---
mkdir -p "$T/munge" "$T/key" "$T/state" "$T/spool" "$T/log"
chmod 700 "$T/key"
head -c 128 /dev/urandom >"$T/key/munge.key"
chmod 400 "$T/key/munge.key"
/usr/sbin/munged -F --force --socket="$T/munge/munge.sock" --key-file="$T/key/munge.key" \
  --log-file="$T/log/munged.log" --pid-file="$T/munge/munged.pid" \
  --seed-file="$T/munge/munged.seed" >"$T/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -S "$T/munge/munge.sock" ]] && break; sleep 0.05; done
[[ -S "$T/munge/munge.sock" ]] || { echo "FAIL munged did not start: $(cat "$T/log/munged.out")"; exit 1; }

read -r P1 P2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
H=$(hostname -s)
cat >"$T/slurm.conf" <<EOF
ClusterName=drapetest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$P1
SlurmdPort=$P2
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=drape Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf
/usr/sbin/slurmctld -D -i >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
/usr/sbin/slurmd -D >"$T/log/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 300); do
  [[ $(sinfo -h -o %t 2>/dev/null) == idle ]] && { up=1; break; }
  sleep 0.1
done
if ((up)); then
  echo "ok   slurmctld and slurmd up (ports $P1, $P2), node idle"
else
  echo "FAIL the Slurm node did not come up: $(tail -5 "$T/log/slurmctld.log" "$T/log/slurmd.log" 2>&1)"
  exit 1
fi

# --- the array job ---
SW=$S/scenes/sweeps/cloth_small.json
out=$("$D" batch "$SW" --out "$T/slurm" --slurm --tasks 4 --max-parallel 2 2>&1)
check "--slurm" 0 $?
cmd=$(tail -1 <<<"$out")
[[ "$cmd" == "sbatch $T/slurm/batch.sbatch" ]] || die "the printed command: $cmd"
grep -qx '#SBATCH --array=0-3%2' "$T/slurm/batch.sbatch" || die "array line: $(cat "$T/slurm/batch.sbatch")"
J=$(sbatch --parsable "$T/slurm/batch.sbatch" 2>&1)
check "sbatch" 0 $?
J=${J%%;*}
t0=$(date +%s)
while squeue -h -j "$J" 2>/dev/null | grep -q .; do
  (($(date +%s) - t0 > 240)) && { die "the array job $J still queued or running after 240 s"; scancel "$J"; break; }
  sleep 0.5
done
echo "ok   the array job $J ended after $(($(date +%s) - t0)) s"
info=$(scontrol -o show job "$J" 2>&1)
n_ok=$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$info")
[[ $n_ok == 4 ]] && echo "ok   4 array tasks COMPLETED with exit 0" || die "array tasks: $info"
for i in 0 1 2 3; do
  f=$(ls "$T"/slurm/slurm/task_"${J}"_$i.out 2>/dev/null)
  grep -q "shard $i/4: 2 of them" "$f" 2>/dev/null || die "task $i's log: $(cat "$f" 2>&1)"
done
n=$(grep -l '"status":	"done"' "$T"/slurm/jobs/0000?/status.json 2>/dev/null | wc -l)
[[ $n == 8 ]] && echo "ok   8 of 8 jobs done on Slurm" || die "$n of 8 jobs done"
[[ $(grep -c ',done,' "$T/slurm/summary.csv" 2>/dev/null) == 8 ]] &&
  echo "ok   the last array task wrote the summary (8 done)" || die "summary: $(cat "$T/slurm/summary.csv" 2>&1)"

# --- the same sweep on this machine, --jobs 2: the same bits ---
out=$("$D" batch "$SW" --out "$T/local" --jobs 2 --quiet 2>&1)
check "the same sweep with --jobs 2" 0 $?
python3 - "$T/slurm" "$T/local" <<'PY' && echo "ok   Slurm and --jobs 2: same final OBJ bytes and metrics per job" || fail=1
import csv, json, sys
a, b = sys.argv[1], sys.argv[2]
for j in range(8):
    fa = open("%s/jobs/%05d/final.obj" % (a, j), "rb").read()
    fb = open("%s/jobs/%05d/final.obj" % (b, j), "rb").read()
    assert fa == fb and len(fa) > 1000, "job %d: final.obj differs" % j
    sa = json.load(open("%s/jobs/%05d/status.json" % (a, j)))
    sb = json.load(open("%s/jobs/%05d/status.json" % (b, j)))
    assert sa["metrics"] == sb["metrics"] and sa["params"] == sb["params"], j
timing = {"ms_per_frame", "sim_s", "wall_s"}
ra = list(csv.DictReader(open(a + "/summary.csv")))
rb = list(csv.DictReader(open(b + "/summary.csv")))
assert len(ra) == len(rb) == 8
for x, y in zip(ra, rb):
    assert {k: v for k, v in x.items() if k not in timing} == {k: v for k, v in y.items() if k not in timing}, (x, y)
PY

# --- stop what this test started ---
mine=("${pids[@]}")
stop_daemons
alive=0
for p in "${mine[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
left=$(pgrep -f -- "$T" | wc -l)
[[ $alive == 0 && $left == 0 ]] && echo "ok   munged, slurmctld and slurmd stopped by pid; nothing left running" ||
  die "$alive daemons and $left processes of $T still running"
exit $fail
