#!/usr/bin/env bash
# drape batch on one machine (issue 19; docs/batch.md):
#  1. the jobs: --list gives the product of the vary entries in the order
#     written (the last varies fastest), linspace/logspace values, and
#     with "samples" + "seed" the draws of splitmix64 as a Python copy of
#     the generator computes them, the same on every call;
#  2. bad sweeps exit 2 naming the key path (sweep keys, a key path the
#     scene lacks, a key the loader does not know, a value it refuses);
#  3. an 8-job sweep with --jobs 2: every job done, `drape run` on a job's
#     scene.json gives the same OBJ bytes, the summary's parameters and
#     lowest point agree with the plan and with each job's final OBJ;
#  4. resume: a rerun skips every job (status files untouched); a batch
#     killed with SIGKILL mid-way leaves no job process, and the rerun
#     runs only the jobs that had not finished; SIGTERM exits 143 leaving
#     no temporary folder; shards I/N run jobs I, I+N, ... and the last
#     shard to finish writes the summary;
#  5. a crash, a timeout, a divergence and an invalid job each fail that
#     job alone, with its reason;
#  6. --slurm writes the array script; --summary's flags are checked;
#     a changed sweep file is refused for an existing --out folder.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
source "$S/tests/lib_cli.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
die() { echo "FAIL $*"; fail=1; }

# --- 1. the jobs ---
cat >"$T/base.json" <<'EOF'
{"dt": 0.016666, "substeps": 10, "frames": 12,
 "cloth": [{"name": "sheet", "grid": {"cols": 8, "rows": 8, "spacing": 0.05,
            "origin": [-0.175, 0.6, -0.175], "plane": "xz"},
            "compliance": {"stretch": 0, "shear": 1e-6, "bend": 1e-3}}],
 "sphere": [{"center": [0, 0.3, 0], "radius": 0.2}],
 "floor": {"height": 0}}
EOF
cat >"$T/grid.json" <<'EOF'
{"scene": "base.json", "frames": 12,
 "vary": {"cloth[0].compliance.bend": {"logspace": [1e-4, 1e-2, 3]},
          "sphere[0].radius": {"linspace": [0.1, 0.2, 2]},
          "wind": [[0, 0, 0], [2, 0, 0]]}}
EOF
out=$("$D" batch "$T/grid.json" --list 2>&1)
check "--list" 0 $?
python3 - "$out" <<'PY' && echo "ok   product order and linspace/logspace values" || fail=1
import sys
rows = [l.split("\t") for l in sys.argv[1].strip().split("\n")]
assert rows[0] == ["job", "cloth[0].compliance.bend", "sphere[0].radius", "wind"], rows[0]
rows = rows[1:]
assert len(rows) == 12, len(rows)
bends, radii, winds = [1e-4, 1e-3, 1e-2], [0.1, 0.2], ["[0,0,0]", "[2,0,0]"]
for j, r in enumerate(rows):
    assert r[0] == "%05d" % j, r
    b, rad, w = bends[j // 4], radii[(j // 2) % 2], winds[j % 2]
    assert float(r[1]) == b, (j, r[1], b)  # whole decades exactly
    assert float(r[2]) == rad and r[3] == w, (j, r)
PY

cat >"$T/rand.json" <<'EOF'
{"scene": "base.json", "frames": 12, "samples": 6, "seed": 19,
 "vary": {"sphere[0].radius": {"uniform": [0.1, 0.3]},
          "cloth[0].compliance.bend": [1e-4, 1e-3, 1e-2]}}
EOF
out1=$("$D" batch "$T/rand.json" --list 2>&1)
check "--list of random draws" 0 $?
out2=$("$D" batch "$T/rand.json" --list 2>&1)
[[ "$out1" == "$out2" ]] && echo "ok   the same draws twice" || die "draws differ between calls"
python3 - "$out1" <<'PY' && echo "ok   draws are splitmix64's (seed 19)" || fail=1
import sys
M = (1 << 64) - 1
def sm(seed, n):  # output n of splitmix64 seeded with seed (docs/batch.md)
    z = (seed + (n + 1) * 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)
assert sm(0, 0) == 0xE220A8397B1DCDAF  # Vigna's splitmix64.c, seed 0
rows = [l.split("\t") for l in sys.argv[1].strip().split("\n")][1:]
assert len(rows) == 6
for j, r in enumerate(rows):
    u0 = (sm(19, 2 * j) >> 11) * 2.0**-53
    u1 = (sm(19, 2 * j + 1) >> 11) * 2.0**-53
    want_r = 0.1 + (0.3 - 0.1) * u0
    want_b = [1e-4, 1e-3, 1e-2][int(u1 * 3)]
    assert float(r[1]) == want_r, (j, r[1], repr(want_r))
    assert float(r[2]) == want_b, (j, r[2], want_b)
PY
sed 's/"seed": 19/"seed": 20/' "$T/rand.json" >"$T/rand20.json"
out3=$("$D" batch "$T/rand20.json" --list 2>&1)
[[ "$out3" != "$out1" ]] && echo "ok   another seed, other draws" || die "seed 20 drew as seed 19"

# --- 2. bad sweeps: exit 2, the key path named ---
bad_sweep() { # name 'json' pattern
  printf '%s\n' "$2" >"$T/bad.json"
  local o
  o=$("$D" batch "$T/bad.json" --out "$T/badout" 2>&1)
  check "$1" 2 $?
  expect_fixed "$1" "$o" "$3"
  [[ -e "$T/badout/jobs" ]] && die "$1: made job folders"
}
bad_sweep "unknown sweep key" '{"scene": "base.json", "vary": {"wind": [[0,0,0]]}, "frams": 3}' \
  "frams: unknown key"
bad_sweep "index past the scene's list" '{"scene": "base.json", "vary": {"cloth[3].damping": [0.1]}}' \
  'vary "cloth[3].damping": the scene has no cloth[3] (it has cloth[0] .. cloth[0])'
bad_sweep "key the loader does not know" '{"scene": "base.json", "vary": {"cloth[0].compliance.bendy": [0.1]}}' \
  "cloth[0].compliance.bendy: unknown key"
bad_sweep "value the loader refuses" '{"scene": "base.json", "vary": {"sphere[0].radius": [0.2, -1]}}' \
  "job 00001 (sphere[0].radius = -1): sphere[0].radius"
bad_sweep "uniform without samples" '{"scene": "base.json", "vary": {"sphere[0].radius": {"uniform": [0.1, 0.2]}}}' \
  'vary "sphere[0].radius": uniform: only with "samples"'
bad_sweep "logspace from 0" '{"scene": "base.json", "vary": {"sphere[0].radius": {"logspace": [0, 1, 3]}}}' \
  "logspace: a and b must be > 0"
bad_sweep "samples without seed" '{"scene": "base.json", "samples": 3, "vary": {"wind": [[0,0,0]]}}' \
  "seed: missing"
bad_sweep "not a key path" '{"scene": "base.json", "vary": {"cloth.0.x": [1]}}' \
  'vary "cloth.0.x"'
bad_sweep "JSON syntax" '{"scene": "base.json",
  "vary": {"wind": [[0,0,0],]}}' "JSON syntax error at line 2"
bad_sweep "missing base scene" '{"scene": "nothere.json", "vary": {"wind": [[0,0,0]]}}' \
  "nothere.json"
out=$("$D" batch "$T/grid.json" --out "$T/g" --frames 3 2>&1)
check "--frames (a sweep key, not a flag)" 2 $?
out=$("$D" batch "$T/grid.json" --out "$T/g" --jobs 0 2>&1)
check "--jobs 0" 2 $?
out=$("$D" batch "$T/grid.json" --out "$T/g" --shard 4/4 2>&1)
check "--shard 4/4" 2 $?
expect_msg "--shard 4/4" "0 <= I < N" "$out"

# --- 3. a sweep with --jobs 2 ---
SW=$S/scenes/sweeps/cloth_small.json
out=$("$D" batch "$SW" --out "$T/a" --jobs 2 2>&1)
check "8-job sweep, --jobs 2" 0 $?
expect_fixed "8-job sweep" "$out" "8 done, 0 failed"
n=$(grep -l '"status":	"done"' "$T"/a/jobs/0000?/status.json | wc -l)
[[ $n == 8 ]] && echo "ok   8 status.json say done" || die "$n of 8 jobs done: $out"
ls -d "$T"/a/jobs/*.tmp >/dev/null 2>&1 && die "a temporary job folder is left"
for j in 00002 00005; do
  (cd "$T" && "$D" run "a/jobs/$j/scene.json" --obj-dir "run$j" >/dev/null 2>&1)
  if cmp -s "$T/run$j/frame_0030.obj" "$T/a/jobs/$j/final.obj"; then
    echo "ok   job $j: drape run on its scene.json gives the same OBJ bytes"
  else
    die "job $j: drape run on its scene.json differs from the batch's final.obj"
  fi
done
python3 - "$T/a" <<'PY' && echo "ok   summary: parameters from the plan, metrics from each job's OBJ" || fail=1
import csv, json, sys
d = sys.argv[1]
plan = json.load(open(d + "/plan.json"))
rows = list(csv.DictReader(open(d + "/summary.csv")))
summ = json.load(open(d + "/summary.json"))
assert len(rows) == 8 and summ["done"] == 8 and summ["jobs"] == 8, (len(rows), summ["done"])
for j, r in enumerate(rows):
    bend, rad, wind = plan["jobs"][j]
    assert int(r["job"]) == j and r["status"] == "done", r
    assert float(r["cloth[0].compliance.bend"]) == bend and float(r["sphere[0].radius"]) == rad
    assert [float(r["wind[%d]" % i]) for i in range(3)] == wind, r
    ys = [float(l.split()[2]) for l in open("%s/jobs/%05d/final.obj" % (d, j)) if l.startswith("v ")]
    assert float(r["lowest_y"]) == min(ys), (j, r["lowest_y"], min(ys))
    st = json.load(open("%s/jobs/%05d/status.json" % (d, j)))
    assert st["metrics"]["max_strain"] == float(r["max_strain"]) and st["frames_done"] == 30
    assert 0 < st["metrics"]["max_strain"] < 0.2 and float(r["ms_per_frame"]) > 0
    assert summ["rows"][j]["params"]["sphere[0].radius"] == rad
# the wind pushes the cloth: with the same bend and radius, lower with wind
assert float(rows[1]["lowest_y"]) < float(rows[0]["lowest_y"]), (rows[0]["lowest_y"], rows[1]["lowest_y"])
PY
[[ $(head -c 4 "$T/a/summary.png" | od -An -c | tr -d ' ') == 211PNG ]] &&
  echo "ok   summary.png is a PNG" || die "no summary.png"

# video: one job, 3 frames, every OBJ frame and video.mp4 (headless EGL, ffmpeg)
if command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; then
  cat >"$T/video.json" <<EOF
{"scene": "$S/scenes/sweep_cloth.json", "frames": 3, "vary": {"wind": [[1, 0, 0]]},
 "obj": true, "video": true}
EOF
  out=$("$D" batch "$T/video.json" --out "$T/v" 2>&1)
  check "a job with video and every OBJ frame" 0 $?
  nf=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of csv=p=0 "$T/v/jobs/00000/video.mp4" 2>&1)
  [[ $nf == 3 ]] && echo "ok   video.mp4 has 3 frames" || die "video.mp4: $nf frames"
  (cd "$T" && "$D" run v/jobs/00000/scene.json --obj-dir runv >/dev/null 2>&1)
  for f in 1 2 3; do
    cmp -s "$T/runv/frame_000$f.obj" "$T/v/jobs/00000/obj/frame_000$f.obj" ||
      die "video job: frame $f differs from drape run"
  done
  echo "ok   the video job's OBJ frames 1-3 equal drape run's"
else
  echo "ok   skipped the video job: no ffmpeg/ffprobe"
fi

# --- 4. resume, kill, shards ---
stat -c %n.%.9Y.%i "$T"/a/jobs/*/status.json >"$T/before"
out=$("$D" batch "$SW" --out "$T/a" --jobs 2 2>&1)
check "rerun" 0 $?
expect_fixed "rerun" "$out" "0 done, 0 failed, 8 skipped"
stat -c %n.%.9Y.%i "$T"/a/jobs/*/status.json >"$T/after"
cmp -s "$T/before" "$T/after" && echo "ok   the rerun touched no finished job" || die "status files changed"

cat >"$T/long.json" <<EOF
{"scene": "$S/scenes/sweep_cloth.json", "frames": 60,
 "vary": {"cloth[0].damping": {"linspace": [0.0, 0.2, 16]}}}
EOF
"$D" batch "$T/long.json" --out "$T/k" --jobs 2 --quiet >/dev/null 2>&1 &
bp=$!
for _ in $(seq 400); do
  (($(ls -d "$T"/k/jobs/[0-9][0-9][0-9][0-9][0-9] 2>/dev/null | wc -l) >= 3)) && break
  sleep 0.05
done
{ kill -KILL $bp; wait $bp; } 2>/dev/null
sleep 0.5
left=$(pgrep -f -- "--job $T/k/" | wc -l)
[[ $left == 0 ]] && echo "ok   SIGKILL of the batch leaves no job running" || die "$left job processes left"
ls "$T"/k/jobs/[0-9][0-9][0-9][0-9][0-9]/status.json >"$T/kfiles"
ndone=$(wc -l <"$T/kfiles")
stat -c %n.%.9Y.%i $(cat "$T/kfiles") >"$T/kbefore"
out=$("$D" batch "$T/long.json" --out "$T/k" --jobs 2 2>&1)
check "resume after SIGKILL" 0 $?
expect_fixed "resume after SIGKILL" "$out" "$((16 - ndone)) done, 0 failed, $ndone skipped"
stat -c %n.%.9Y.%i $(cat "$T/kfiles") >"$T/kafter"
cmp -s "$T/kbefore" "$T/kafter" && echo "ok   resume kept the $ndone finished jobs" || die "finished jobs redone"
[[ $(ls -d "$T"/k/jobs/* | grep -c '\.tmp$') == 0 && $(ls -d "$T"/k/jobs/* | wc -l) == 16 ]] &&
  echo "ok   16 job folders, no temporary one" || die "job folders: $(ls "$T/k/jobs" | tr '\n' ' ')"

"$D" batch "$T/long.json" --out "$T/t" --jobs 2 --quiet >/dev/null 2>&1 &
bp=$!
for _ in $(seq 400); do
  [[ -d "$T/t/jobs/00001" ]] && break
  sleep 0.05
done
kill -TERM $bp
wait $bp
check "SIGTERM stops the batch" 143 $?
sleep 0.3
[[ $(ls -d "$T"/t/jobs/*.tmp 2>/dev/null | wc -l) == 0 ]] && echo "ok   SIGTERM leaves no temporary folder" ||
  die "temporary folders after SIGTERM"
[[ $(pgrep -f -- "--job $T/t/" | wc -l) == 0 ]] || die "job processes after SIGTERM"

for i in 0 1 2; do
  out=$("$D" batch "$SW" --out "$T/s" --shard $i/3 2>&1)
  check "--shard $i/3" 0 $?
  have=$(ls "$T/s/jobs" | tr '\n' ' ')
  case $i in
  0) want="00000 00003 00006 " ;;
  1) want="00000 00001 00003 00004 00006 00007 " ;;
  2) want="00000 00001 00002 00003 00004 00005 00006 00007 " ;;
  esac
  [[ "$have" == "$want" ]] || die "after shard $i/3: jobs $have, expected $want"
  if ((i < 2)); then [[ -e "$T/s/summary.csv" ]] && die "summary before every shard finished"; fi
done
[[ $(grep -c ',done,' "$T/s/summary.csv") == 8 ]] && echo "ok   the last shard wrote the summary" ||
  die "no summary of 8 done jobs after the shards"
for j in 0 1 2 3 4 5 6 7; do
  cmp -s "$T/s/jobs/0000$j/final.obj" "$T/a/jobs/0000$j/final.obj" || die "job $j: shard bits differ from --jobs 2"
done
echo "ok   sharded jobs give the bits of --jobs 2"

# --- 5. failures of single jobs ---
cat >"$T/fail.json" <<'EOF'
{"scene": "base.json", "frames": 8, "timeout_s": 3, "invalid": "skip",
 "vary": {"sphere[0].radius": [0.1, 0.12, 0.14, 0.16, -1, 0.18]}}
EOF
t0=$(date +%s%N)
out=$(DRAPE_BATCH_FAULT=crash@1,hang@2 "$D" batch "$T/fail.json" --out "$T/f" --jobs 2 2>&1)
check "a crash, a timeout and an invalid job" 0 $?
ms=$((($(date +%s%N) - t0) / 1000000))
python3 - "$T/f" <<'PY' && echo "ok   each failed job has its reason; the others are done" || fail=1
import json, sys
st = [json.load(open("%s/jobs/%05d/status.json" % (sys.argv[1], j))) for j in range(6)]
got = [(s["status"], s["reason"]) for s in st]
want = [("done", None), ("failed", "error"), ("failed", "timeout"), ("done", None),
        ("failed", "invalid"), ("done", None)]
assert got == want, got
assert "signal 6" in st[1]["error"], st[1]["error"]
assert 3 <= st[2]["wall_s"] < 8, st[2]["wall_s"]
assert "sphere[0].radius" in st[4]["error"], st[4]["error"]
PY
((ms < 20000)) && echo "ok   the hung job was killed at its timeout (batch $ms ms)" || die "batch took $ms ms"
out=$("$D" batch "$T/fail.json" --out "$T/f" --retry-failed 2>&1)
check "--retry-failed" 0 $?
expect_fixed "--retry-failed" "$out" "2 done, 1 failed, 3 skipped"
[[ $(grep -c ',done,' "$T/f/summary.csv") == 5 ]] || die "after --retry-failed: $(cat "$T/f/summary.csv")"
cat >"$T/divbase.json" <<'EOF'
{"dt": 0.012, "substeps": 1, "frames": 40,
 "cloth": [{"grid": {"rows": 4, "cols": 4, "spacing": 0.2, "plane": "xy"}, "solver": "springs",
            "particle_mass": 0.5, "mass_per_area": 12.5, "stiffness": 100, "spring_damping": 0,
            "bend_stiffness": 0, "damping": 0, "tethers": false, "pins": [[0, 0], [0, 3]]}]}
EOF
cat >"$T/div.json" <<'EOF'
{"scene": "divbase.json", "backend": "cpu", "vary": {"cloth[0].stiffness": [100, 5000]}}
EOF
out=$("$D" batch "$T/div.json" --out "$T/dv" 2>&1)
check "a diverging job" 0 $?
grep -q '"reason":	"diverged"' "$T/dv/jobs/00001/status.json" &&
  grep -q '"status":	"done"' "$T/dv/jobs/00000/status.json" &&
  echo "ok   stiffness 5000 diverged, 100 done" || die "divergence: $(cat "$T/dv/jobs/00001/status.json")"

# a base scene that names mesh files relative to its own folder (a cloth
# mesh, a collider mesh, a collider sequence): every job finds them
mkdir -p "$T/meshy/m"
cp "$S/meshes/square_small.obj" "$S/meshes/box.obj" "$T/meshy/m/"
cp "$S/meshes/box.obj" "$T/meshy/m/seq_0000.obj"
cp "$S/meshes/box.obj" "$T/meshy/m/seq_0001.obj"
cat >"$T/meshy/base.json" <<'EOF'
{"dt": 0.016666, "substeps": 5, "frames": 3,
 "cloth": [{"name": "sheet", "mesh": {"file": "m/square_small.obj", "translate": [0, 2, 0]}}],
 "collider": [{"mesh": {"file": "m/box.obj", "translate": [3, 0, 0]}},
              {"sequence": {"files": "m/seq_%04d.obj", "fps": 30}}]}
EOF
cat >"$T/meshy/sweep.json" <<'EOF'
{"scene": "base.json", "frames": 3, "vary": {"substeps": [5, 6]}}
EOF
out=$("$D" batch "$T/meshy/sweep.json" --out "$T/meshy/out" 2>&1)
check "a sweep over relative mesh paths" 0 $?
[[ $(grep -l '"status":	"done"' "$T"/meshy/out/jobs/*/status.json | wc -l) == 2 ]] &&
  grep -qF "\"$T/meshy/m/seq_%04d.obj\"" "$T/meshy/out/jobs/00000/scene.json" &&
  grep -qF "\"$T/meshy/m/box.obj\"" "$T/meshy/out/jobs/00000/scene.json" &&
  echo "ok   both jobs done, their scenes name the files absolutely" ||
  die "relative mesh paths: $out $(cat "$T"/meshy/out/jobs/*/status.json)"

# a shard checks only its own jobs: job 1 is invalid (substeps 0), so
# shard 0/2 (job 0) runs and shard 1/2 (job 1) stops naming it
cat >"$T/meshy/bad.json" <<'EOF'
{"scene": "base.json", "frames": 2, "vary": {"substeps": [5, 0]}}
EOF
out=$("$D" batch "$T/meshy/bad.json" --out "$T/meshy/sh" --shard 0/2 2>&1)
check "shard 0/2 beside an invalid job of shard 1" 0 $?
out=$("$D" batch "$T/meshy/bad.json" --out "$T/meshy/sh" --shard 1/2 2>&1)
check "shard 1/2 with its invalid job" 2 $?
expect_fixed "the invalid job named" "$out" "job 00001 (substeps = 0)"

# two runs of one shard on one folder: the second is refused while the
# first holds the folder's lock for that shard, and the first finishes
cat >"$T/slow.json" <<'EOF'
{"scene": "base.json", "frames": 1000, "vary": {"substeps": [30]}}
EOF
"$D" batch "$T/slow.json" --out "$T/locked" --jobs 1 >"$T/first.log" 2>&1 &
first=$!
for _ in $(seq 100); do [[ -e "$T/locked/.lock-shard-0-of-1" ]] && break; sleep 0.05; done
out=$("$D" batch "$T/slow.json" --out "$T/locked" --jobs 1 2>&1)
check "a second run of the same shard" 2 $?
expect_fixed "the lock named" "$out" "another drape batch holds the lock on this folder for shard 0/1"
wait "$first"
check "the first run, undisturbed" 0 $?

# a tampered plan.json: refused at once, naming what is wrong
cp "$T/a/plan.json" "$T/plan.keep"
python3 - "$T/a/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["digits"] = 1e300; json.dump(p, open(sys.argv[1], "w"))
PY
out=$("$D" batch --summary "$T/a" 2>&1)
check "--summary of a plan with digits 1e300" 2 $?
expect_fixed "digits named" "$out" "plan.json is not a drape batch plan (digits: not 5, 6 or 7)"
python3 - "$T/a/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["digits"] = 5; p["keys"] = ["k%d" % i for i in range(100000)]
json.dump(p, open(sys.argv[1], "w"))
PY
out=$("$D" batch --summary "$T/a" 2>&1)
check "--summary of a plan with 100,000 keys" 2 $?
expect_fixed "keys named" "$out" "(keys: not 1 to 32 key paths)"
cp "$T/plan.keep" "$T/a/plan.json"

# --- 6. --slurm, --summary flags, a changed sweep ---
out=$("$D" batch "$SW" --out "$T/sl" --slurm --tasks 4 --max-parallel 2 --partition debug \
  --gpus-per-task 1 --time 10:00 2>&1)
check "--slurm" 0 $?
f=$T/sl/batch.sbatch
grep -qx '#SBATCH --array=0-3%2' "$f" && grep -qx '#SBATCH --partition=debug' "$f" &&
  grep -qx '#SBATCH --gpus-per-task=1' "$f" && grep -qx '#SBATCH --time=10:00' "$f" &&
  grep -qF -- "--shard \"\$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT\"" "$f" &&
  grep -qF "'$SW'" "$f" && [[ "$(tail -1 <<<"$out")" == "sbatch $T/sl/batch.sbatch" ]] &&
  [[ ! -e "$T/sl/jobs" ]] && echo "ok   the array script, and nothing run" || die "script: $(cat "$f") / $out"
out=$("$D" batch "$SW" --out "$T/sl" --tasks 4 2>&1)
check "--tasks without --slurm" 2 $?
# a newline in the sweep's path would end batch.sbatch's comment line and
# run what follows it: control characters in paths are refused
nl="$T/x
touch $T/pwned #.json"
cp "$SW" "$nl"
out=$("$D" batch "$nl" --out "$T/inj" --slurm 2>&1)
check "a newline in the sweep path" 2 $?
expect_fixed "control characters" "$out" "a path may not hold control characters (here byte 0x0a"
[[ ! -e "$T/inj/batch.sbatch" && ! -e "$T/pwned" ]] && echo "ok   no script written" || die "script written"
# a symbolic link planted as summary_plot.dat or summary.gp in --out: the
# summary writes a temporary file and will not rename it over a link (as
# every output: docs/cli.md), so the file it points at stays as it was
echo outside > "$T/outside.txt"
for name in summary_plot.dat summary.gp; do
  ln -sf "$T/outside.txt" "$T/a/$name"
  out=$("$D" batch --summary "$T/a" --x "sphere[0].radius" 2>&1)
  check "--summary over a planted $name" 1 $?
  expect_fixed "planted $name" "$out" "$T/a/$name\": became a symbolic link during the run"
  [[ "$(cat "$T/outside.txt")" == outside && -L "$T/a/$name" ]] &&
    echo "ok   $name: the link's target untouched" || die "summary wrote through $name"
  rm -f "$T/a/$name"
done
out=$("$D" batch --summary "$T/a" --x wind 2>&1)
check "--summary --x of a list" 2 $?
expect_fixed "--summary --x" "$out" "allowed: cloth[0].compliance.bend, sphere[0].radius, wind[0]"
out=$("$D" batch --summary "$T/a" --y speed 2>&1)
check "--summary --y unknown" 2 $?
out=$("$D" batch --summary "$T/a" --x "sphere[0].radius" --y lowest_y --by "wind[0]" 2>&1)
check "--summary --x --y --by" 0 $?
python3 - "$T/a/summary_plot.dat" <<'PY' && echo "ok   the figure's data: lowest_y against the radius, a block per wind" || fail=1
import sys
text = open(sys.argv[1]).read()
assert text.startswith("# sphere[0].radius lowest_y (one block per wind[0])"), text
rows = [l.split() for l in text.strip().split("\n")[1:] if l.strip()]
assert len(rows) == 8 and sorted({r[0] for r in rows}) == ["0.2", "0.3"], rows
assert text.count("\n\n\n") == 2, repr(text)
PY
cp "$SW" "$T/changed.json"
sed -i 's/"frames": 30/"frames": 31/; s#"\.\./sweep_cloth.json"#"'"$S"'/scenes/sweep_cloth.json"#' "$T/changed.json"
cp "$T/a/plan.json" "$T/plan.copy"
out=$("$D" batch "$T/changed.json" --out "$T/a" 2>&1)
check "another sweep into the same --out" 2 $?
expect_msg "another sweep" "choose a new --out folder" "$out"
exit $fail
