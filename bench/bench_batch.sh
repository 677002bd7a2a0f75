#!/usr/bin/env bash
# bench_batch: the targets of issue 19 for `drape batch` (BENCHMARKS.md,
# "Batch runs: drape batch").
#
#  1. Overhead per job beyond the simulation itself (target < 0.5 s): an
#     N-job sweep of the small cloth (scenes/sweep_cloth.json) with --jobs 1.
#     The simulation of a job is its frames x the median ms of a frame
#     (from its stats.json), so kernel builds, world creation and the first
#     frame's extra work count as overhead, not as simulation. Per job:
#     wall_s (spawn to status.json in place) minus that; per batch: its
#     wall time minus the jobs' simulation, over N, which adds the parent's
#     share (sweep parse, every job's scene through the loader, the plan,
#     scheduling, the summary with its figure).
#  2. Resume: a 1000-job sweep of small scenes (8x8 cloth, 10 frames) with
#     --jobs 2 is killed with SIGKILL once ~40% of its jobs have finished,
#     then run again: the rerun runs exactly the jobs that had not
#     finished (finished ones keep their status.json, same inode and
#     mtime), all 1000 end done, no temporary folder is left, and a third
#     run finds nothing to do (its wall time: the fixed cost of a 1000-job
#     sweep).
#
# Usage: bench/bench_batch.sh [--exe build/drape] [--out bench/results]
#                             [--jobs N (default 1000)] [--overhead-jobs N (default 20)]
# Writes OUT/bench_batch.csv and OUT/bench_batch.json; prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
EXE=build/drape
OUT=bench/results
NJOBS=1000
NOVER=20
while (($#)); do
  case $1 in
  --exe) EXE=$2; shift 2 ;;
  --out) OUT=$2; shift 2 ;;
  --jobs) NJOBS=$2; shift 2 ;;
  --overhead-jobs) NOVER=$2; shift 2 ;;
  -h | --help) sed -n 2,27p "$0"; exit 0 ;;
  *) echo "bench_batch: unknown argument $1" >&2; exit 2 ;;
  esac
done
EXE=$(realpath "$EXE")
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$T/pocl-cache}
now() { date +%s.%N; }

# --- 1. overhead per job ---
cat >"$T/over.json" <<EOF
{"scene": "$PWD/scenes/sweep_cloth.json", "frames": 60, "obj": "last",
 "vary": {"cloth[0].damping": {"linspace": [0.0, 0.1, $NOVER]}}}
EOF
# warm PoCL's kernel cache first: the target is "kernel build from the cache"
"$EXE" run scenes/sweep_cloth.json --frames 1 >/dev/null 2>&1
t0=$(now)
"$EXE" batch "$T/over.json" --out "$T/over" --jobs 1 --quiet >/dev/null
t1=$(now)
t2=$(now)
"$EXE" batch --summary "$T/over" >/dev/null
t3=$(now)

# --- 2. 1000 jobs, killed, resumed ---
cat >"$T/tiny.json" <<'EOF'
{"dt": 0.016666, "substeps": 10, "frames": 10,
 "cloth": [{"name": "sheet", "grid": {"cols": 8, "rows": 8, "spacing": 0.05,
            "origin": [-0.175, 0.6, -0.175], "plane": "xz"},
            "compliance": {"stretch": 0, "shear": 1e-6, "bend": 1e-3}}],
 "sphere": [{"center": [0, 0.3, 0], "radius": 0.2}], "floor": {"height": 0}}
EOF
cat >"$T/big.json" <<EOF
{"scene": "tiny.json", "frames": 10, "samples": $NJOBS, "seed": 1,
 "vary": {"sphere[0].radius": {"uniform": [0.1, 0.3]},
          "cloth[0].compliance.bend": {"logspace": [1e-5, 1e-1, 5]}}}
EOF
kill_at=$((NJOBS * 2 / 5))
t4=$(now)
"$EXE" batch "$T/big.json" --out "$T/big" --jobs 2 --quiet >/dev/null 2>&1 &
bp=$!
while :; do
  n=$( (find "$T/big/jobs" -maxdepth 1 -name '[0-9]*' ! -name '*.tmp' 2>/dev/null || true) | wc -l)
  ((n >= kill_at)) && break
  kill -0 $bp 2>/dev/null || break
  sleep 0.02
done
{ kill -KILL $bp; wait $bp; } 2>/dev/null || true
t5=$(now)
sleep 0.3
left_procs=$(pgrep -f -- "--job $T/big/" | wc -l || true)
find "$T/big/jobs" -maxdepth 2 -path '*[0-9]/status.json' ! -path '*.tmp/*' | sort >"$T/finished"
stat -c '%n %.9Y %i' $(cat "$T/finished") >"$T/before" 2>/dev/null
stale_tmp=$(find "$T/big/jobs" -maxdepth 1 -name '*.tmp' | wc -l)
t6=$(now)
"$EXE" batch "$T/big.json" --out "$T/big" --jobs 2 >"$T/resume.log" 2>&1
t7=$(now)
stat -c '%n %.9Y %i' $(cat "$T/finished") >"$T/after" 2>/dev/null
t8=$(now)
"$EXE" batch "$T/big.json" --out "$T/big" --jobs 2 >"$T/again.log" 2>&1
t9=$(now)

python3 - "$T" "$OUT" "$NOVER" "$NJOBS" "$t0" "$t1" "$t2" "$t3" "$t4" "$t5" "$t6" "$t7" "$t8" "$t9" \
  "$left_procs" "$stale_tmp" "$EXE" <<'PY'
import json, os, re, statistics, subprocess, sys
T, OUT = sys.argv[1], sys.argv[2]
nover, njobs = int(sys.argv[3]), int(sys.argv[4])
t = [float(x) for x in sys.argv[5:15]]
left_procs, stale_tmp, exe = int(sys.argv[15]), int(sys.argv[16]), sys.argv[17]

# 1. overhead
per_job, sims = [], []
for j in range(nover):
    d = "%s/over/jobs/%05d" % (T, j)
    st = json.load(open(d + "/status.json"))
    assert st["status"] == "done", st
    ms = [f["ms"] for f in json.load(open(d + "/stats.json"))["frames"]]
    sim = len(ms) * statistics.median(ms) / 1e3
    sims.append(sim)
    per_job.append(st["wall_s"] - sim)
batch_wall = t[1] - t[0]
batch_over = (batch_wall - sum(sims)) / nover
summary_s = t[3] - t[2]

# 2. resume
finished_before = len(open(T + "/finished").read().split())
before, after = open(T + "/before").read(), open(T + "/after").read()
log = open(T + "/resume.log").read()
m = re.search(r"(\d+) done, (\d+) failed, (\d+) skipped", log)
run_done, run_failed, run_skipped = (int(x) for x in m.groups())
summ = json.load(open(T + "/big/summary.json"))
again = open(T + "/again.log").read()
m2 = re.search(r"(\d+) finished before, (\d+) to run", again)
tmp_after = sum(1 for n in os.listdir(T + "/big/jobs") if n.endswith(".tmp"))
resume = {
    "jobs": njobs, "killed_after_s": t[5] - t[4], "finished_before_kill": finished_before,
    "job_processes_left_after_kill": left_procs, "temporary_folders_after_kill": stale_tmp,
    "resume_ran": run_done + run_failed, "resume_skipped": run_skipped,
    "resume_wall_s": t[7] - t[6], "finished_jobs_untouched": before == after,
    "done_at_end": summ["done"], "temporary_folders_at_end": tmp_after,
    "third_run_to_run": int(m2.group(2)), "third_run_wall_s": t[9] - t[8],
}
ok_resume = (resume["resume_ran"] == njobs - finished_before and resume["resume_skipped"] == finished_before
             and resume["finished_jobs_untouched"] and resume["done_at_end"] == njobs
             and tmp_after == 0 and left_procs == 0 and resume["third_run_to_run"] == 0)
dev = json.load(open("%s/over/jobs/00000/status.json" % T)).get("device", "")
res = {
    "drape": subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.split()[-1],
    "device": dev, "cores": os.cpu_count(),
    "overhead": {
        "jobs": nover, "frames": 60, "scene": "scenes/sweep_cloth.json (16x16 cloth)",
        "sim_s_mean": statistics.mean(sims),
        "per_job_overhead_s_mean": statistics.mean(per_job),
        "per_job_overhead_s_max": max(per_job),
        "batch_wall_s": batch_wall, "batch_overhead_per_job_s": batch_over,
        "summary_s": summary_s, "target_s": 0.5, "met": batch_over < 0.5 and max(per_job) < 0.5,
    },
    "resume": dict(resume, met=ok_resume),
}
json.dump(res, open(OUT + "/bench_batch.json", "w"), indent=2)
with open(OUT + "/bench_batch.csv", "w") as f:
    f.write("measure,value,unit,target\n")
    o = res["overhead"]
    f.write("sim_per_job,%.4f,s,\n" % o["sim_s_mean"])
    f.write("overhead_per_job_mean,%.4f,s,< 0.5\n" % o["per_job_overhead_s_mean"])
    f.write("overhead_per_job_max,%.4f,s,< 0.5\n" % o["per_job_overhead_s_max"])
    f.write("batch_overhead_per_job,%.4f,s,< 0.5\n" % o["batch_overhead_per_job_s"])
    f.write("summary_%d_jobs,%.4f,s,\n" % (nover, o["summary_s"]))
    for k in ("finished_before_kill", "resume_ran", "resume_skipped", "done_at_end",
              "job_processes_left_after_kill", "temporary_folders_at_end", "third_run_to_run"):
        f.write("%s,%d,jobs,\n" % (k, resume[k]))
    f.write("finished_jobs_untouched,%d,bool,1\n" % resume["finished_jobs_untouched"])
    for k in ("killed_after_s", "resume_wall_s", "third_run_wall_s"):
        f.write("%s,%.2f,s,\n" % (k, resume[k]))
o = res["overhead"]
print("drape batch, %s, %d cores" % (dev, os.cpu_count()))
print("overhead, %d jobs x 60 frames of a 16x16 cloth, --jobs 1:" % nover)
print("  simulation per job          %7.3f s" % o["sim_s_mean"])
print("  per-job overhead mean / max %7.3f / %.3f s   (target < 0.5 s)" % (o["per_job_overhead_s_mean"], o["per_job_overhead_s_max"]))
print("  batch overhead per job      %7.3f s   (wall %.2f s; summary alone %.3f s)" % (batch_over, batch_wall, summary_s))
print("resume, %d jobs x 10 frames of an 8x8 cloth, --jobs 2:" % njobs)
print("  killed (SIGKILL) after      %7.2f s with %d jobs finished, %d job processes left" % (resume["killed_after_s"], finished_before, left_procs))
print("  rerun ran %d, skipped %d in %.2f s; finished jobs untouched: %s; %d done at the end" % (
    resume["resume_ran"], resume["resume_skipped"], resume["resume_wall_s"], resume["finished_jobs_untouched"], resume["done_at_end"]))
print("  a third run: %d to run, %.2f s" % (resume["third_run_to_run"], resume["third_run_wall_s"]))
print("targets: overhead %s, resume %s" % ("met" if o["met"] else "MISSED", "met" if ok_resume else "MISSED"))
sys.exit(0 if o["met"] and ok_resume else 1)
PY
