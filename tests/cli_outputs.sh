#!/usr/bin/env bash
# Output safety and interruption (issue 13 items 1, 6-9), through the drape
# command:
#  - output paths are checked before the run: a FIFO, a folder, a symlink to
#    a device or the scene itself as --stats, a missing folder, a file as
#    --obj-dir / bench --out, a FIFO as string --out -> exit 2 at once, the
#    target untouched;
#  - gnuplot runs without a shell: a folder named x';touch PWNED;' makes no
#    PWNED file and gets its plot, a folder named it's gets its plot;
#  - SIGINT / SIGTERM: exit 130 / 143, no temporary file, stats and manifest
#    say "interrupted", the video holds the frames so far, no ffmpeg left;
#  - manifest run.json; another run into the same folder is refused without
#    --overwrite, which removes only drape's files; 5-digit frame names for
#    --frames 10000;
#  - a diverging run: frames before the divergence kept, none after, stats
#    and manifest "diverged", video finished with the earlier frames, exit 1.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}/scenes
T=${DRAPE_BINARY_DIR:?}/test-tmp/cli_outputs-$$
rm -rf "$T" && mkdir -p "$T"
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed
die() { echo "FAIL $*"; fail=1; }
now_ms() { date +%s%3N; }
have() { command -v "$1" >/dev/null 2>&1; }
# A drape run long enough to be still going when a check must come first.
LONG=(run "$S/hanging_rope.json" --frames 1000000 --backend cpu)
# A tiny rope: 10000 frames in about 2 s.
echo '{"dt": 0.01, "substeps": 1, "rope": [{"length": 0.2, "segments": 2, "end": [0.2, 0, 0]}]}' >"$T/tiny.json"
echo '{"dt": 0.01, "substeps": 1, "rope": [{"length": 0.3, "segments": 3, "end": [0.3, 0, 0]}]}' >"$T/tiny2.json"

# --- item 6: output paths, refused before the run, target untouched ---
mkfifo "$T/fifo"
mkdir "$T/adir"
cp "$S/hanging_rope.json" "$T/scene.json"
ln -s /dev/null "$T/devlink"
for target in fifo adir scene.json devlink; do
  t0=$(now_ms)
  out=$(cd "$T" && timeout 20 "$D" run scene.json --frames 1000000 --backend cpu --stats "$target" 2>&1)
  rc=$?
  ms=$(($(now_ms) - t0))
  check "--stats $target refused (${ms} ms)" 2 $rc
  expect_msg "--stats $target" "--stats \"$target\"" "$out"
  ((ms < 3000)) || die "--stats $target: took $ms ms, not refused before the run"
done
out=$(cd "$T" && "$D" run scene.json --frames 2 --stats scene.json 2>&1)
expect_msg "scene as --stats" "is an input of this run" "$out"
[[ -p "$T/fifo" ]] || die "the FIFO is gone"
[[ -d "$T/adir" ]] || die "the folder is gone"
[[ -L "$T/devlink" && -c /dev/null ]] || die "the symlink or /dev/null changed"
cmp -s "$S/hanging_rope.json" "$T/scene.json" || die "the scene file was overwritten"
t0=$(now_ms)
out=$(timeout 20 "$D" "${LONG[@]}" --stats "$T/nodir/x.json" 2>&1)
rc=$?
ms=$(($(now_ms) - t0))
check "--stats nodir/x.json refused before the run (${ms} ms)" 2 $rc
expect_msg "--stats nodir" "does not exist" "$out"
((ms < 3000)) || die "--stats nodir/x.json took $ms ms"
[[ -e "$T/nodir" ]] && die "--stats created a folder"
touch "$T/afile"
out=$(timeout 20 "$D" "${LONG[@]}" --obj-dir "$T/afile" 2>&1); check "--obj-dir on a file" 2 $?
expect_msg "--obj-dir on a file" "--obj-dir" "$out"
out=$(timeout 20 "$D" "${LONG[@]}" --png-dir "$T/fifo" 2>&1); check "--png-dir on a FIFO" 2 $?
out=$(timeout 20 "$D" "${LONG[@]}" --video "$T/fifo.mp4" --stats "$T/fifo.mp4" 2>&1)
check "--video and --stats the same file" 2 $?
# drape string --out: FIFO, folder, missing folder; a good one leaves no temporary
out=$(timeout 20 "$D" string --out "$T/fifo" 2>&1); check "string --out FIFO" 2 $?
expect_msg "string --out FIFO" "FIFO" "$out"
[[ -p "$T/fifo" ]] || die "string --out removed the FIFO"
out=$(timeout 20 "$D" string --out "$T/adir" 2>&1); check "string --out folder" 2 $?
t0=$(now_ms)
out=$(timeout 20 "$D" string --seconds 100 --out "$T/nodir/x.csv" 2>&1)
rc=$?
check "string --out nodir/x.csv before the run ($(($(now_ms) - t0)) ms)" 2 $rc
"$D" string --seconds 0.01 --out "$T/s.csv" 2>/dev/null; check "string --out FILE" 0 $?
[[ $(head -1 "$T/s.csv") == "t,i,x,y,vx,vy" ]] || die "string CSV header"
ls -a "$T" | grep -q 's\.csv\.tmp' && die "string left a temporary file"
# bench --out: a file, refused before any case
t0=$(now_ms)
out=$(timeout 60 "$D" bench --sizes 64 --settings 20x1 --self off --devices cpu --frames 100 \
  --warmup 0 --peer off --out "$T/afile" 2>&1)
rc=$?
ms=$(($(now_ms) - t0))
check "bench --out FILE before any case (${ms} ms)" 2 $rc
expect_msg "bench --out FILE" "--out" "$out"
grep -q "cpu-reference" <<<"$out" && die "bench --out FILE ran a case first"
[[ -f "$T/afile" && ! -s "$T/afile" ]] || die "bench --out FILE changed the file"
# compare --out: a FIFO where compare.json goes
mkdir -p "$T/cmpfifo" && mkfifo "$T/cmpfifo/compare.json"
out=$(timeout 60 "$D" compare "$S/hanging_rope.json" --frames 3 --sweep none --backend cpu \
  --out "$T/cmpfifo" 2>&1)
check "compare --out with a FIFO inside" 2 $?
[[ -p "$T/cmpfifo/compare.json" ]] || die "compare replaced the FIFO"

# --- item 7: helpers without a shell ---
if have gnuplot; then
  inj="x';touch PWNED;'"
  (cd "$T" && timeout 120 "$D" compare "$S/hanging_rope.json" --frames 3 --sweep none \
    --backend cpu --out "$inj" >"$T/cmp.out" 2>&1)
  check "compare --out with quotes and ;" 0 $?
  [[ -e "$T/PWNED" ]] && die "compare ran a shell command from the folder name"
  [[ -s "$T/$inj/compare.png" ]] || die "compare wrote no plot into $inj: $(tail -3 "$T/cmp.out")"
  (cd "$T" && timeout 120 "$D" bench --sizes 8 --settings 1x1 --self off --devices cpu --frames 2 \
    --warmup 0 --peer off --out "it's" >"$T/bench.out" 2>&1)
  check "bench --out it's" 0 $?
  [[ -s "$T/it's/bench.png" ]] || die "bench wrote no plot into it's: $(tail -3 "$T/bench.out")"
  [[ -n $(find "$T/it's" "$T/$inj" -name '*.tmp*') ]] && die "temporary files left by bench/compare"
  # A gnuplot that fails is reported: exit 1, the message says the plot is missing.
  mkdir -p "$T/bin" && printf '#!/bin/sh\necho "fake gnuplot: broken" >&2\nexit 3\n' >"$T/bin/gnuplot"
  chmod +x "$T/bin/gnuplot"
  out=$(cd "$T" && PATH="$T/bin:$PATH" timeout 120 "$D" bench --sizes 8 --settings 1x1 --self off \
    --devices cpu --frames 2 --warmup 0 --peer off --out "broken" 2>&1)
  check "bench with a failing gnuplot" 1 $?
  expect_msg "bench with a failing gnuplot" "exited with status 3" "$out"
  [[ -s "$T/broken/bench.csv" && ! -e "$T/broken/bench.png" ]] || die "failing gnuplot: files"
else
  echo "skip gnuplot checks (gnuplot not installed)"
fi

# --- item 9: manifest, folders of other runs, --overwrite, frame digits ---
"$D" run "$T/tiny.json" --frames 3 --backend cpu --obj-dir "$T/m" --stats "$T/m.json" 2>/dev/null
check "run with manifest" 0 $?
python3 - "$T/m/run.json" "$T/m.json" "$T/tiny.json" <<'EOF' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))
assert m["status"] == "complete" and m["error"] is None, m
assert m["scene"].endswith("tiny.json") and m["frames_done"] == 3 and m["frames_requested"] == 3, m
assert len(m["scene_fnv1a64"]) == 16, m
# FNV-1a 64 of the scene bytes, computed here independently
h = 0xcbf29ce484222325
for b in open(sys.argv[3], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
assert m["scene_fnv1a64"] == "%016x" % h, (m["scene_fnv1a64"], "%016x" % h)
assert m["outputs"] == [{"kind": "obj", "files": "frame_%04d.obj", "every": 1, "written": 3}], m
assert m["drape"] and m["started"] and m["finished"], m
s = json.load(open(sys.argv[2]))
assert s["status"] == "complete" and s["error"] is None and s["frames_done"] == 3, s
print("ok   manifest and stats: status complete, FNV-1a hash, 3 frames")
EOF
echo keep >"$T/m/notes.txt"
out=$("$D" run "$T/tiny2.json" --frames 2 --backend cpu --obj-dir "$T/m" 2>&1)
check "another run into the same folder" 2 $?
expect_msg "another run into the same folder" "--overwrite" "$out"
expect_msg "another run into the same folder" "tiny.json" "$out"
[[ -f "$T/m/frame_0003.obj" ]] || die "the refused run removed frames"
"$D" run "$T/tiny2.json" --frames 2 --backend cpu --obj-dir "$T/m" --overwrite 2>/dev/null
check "--overwrite" 0 $?
[[ -f "$T/m/notes.txt" ]] || die "--overwrite removed a file drape did not make"
[[ -e "$T/m/frame_0003.obj" ]] && die "--overwrite left the earlier run's frame 3"
grep -q tiny2.json "$T/m/run.json" || die "run.json is not the new run's"
[[ $(ls "$T/m" | grep -c '^frame_') == 2 ]] || die "--overwrite: frames $(ls "$T/m")"
# a run that fails before its first frame (here a bad flag combination found
# by the renderer) leaves no manifest, so the fixed command needs no --overwrite
out=$("$D" run "$T/tiny.json" --frames 2 --backend cpu --interop share --png-dir "$T/early" 2>&1)
check "failure before the first frame" 2 $?
[[ -e "$T/early/run.json" ]] && die "a run that failed before frame 1 left run.json"
"$D" run "$T/tiny.json" --frames 2 --backend cpu --png-dir "$T/early" --size 32x32 2>/dev/null
check "the fixed command into the same folder" 0 $?
# --overwrite removes regular files only; a FIFO named like a frame stays and
# the run is refused (a rename would replace it)
mkdir -p "$T/ovf" && mkfifo "$T/ovf/frame_0001.obj"
out=$("$D" run "$T/tiny.json" --frames 2 --backend cpu --obj-dir "$T/ovf" --overwrite 2>&1)
check "--overwrite with a FIFO named frame_0001.obj" 2 $?
[[ -p "$T/ovf/frame_0001.obj" ]] || die "--overwrite replaced a FIFO"
# a PNG of an earlier run also counts as another run's frame
mkdir -p "$T/p" && touch "$T/p/frame_0001.png"
out=$("$D" run "$T/tiny.json" --frames 2 --backend cpu --obj-dir "$T/p" 2>&1)
check "folder with another run's PNG" 2 $?
t0=$(now_ms)
"$D" run "$T/tiny.json" --frames 10000 --backend cpu --obj-dir "$T/w" --stats "$T/w.json" 2>/dev/null
check "--frames 10000 ($(($(now_ms) - t0)) ms)" 0 $?
[[ -f "$T/w/frame_00001.obj" && -f "$T/w/frame_09999.obj" && -f "$T/w/frame_10000.obj" ]] ||
  die "5-digit frame names: $(ls "$T/w" | head -3)"
[[ -e "$T/w/frame_0001.obj" ]] && die "4-digit name with --frames 10000"
[[ $(ls "$T/w" | LC_ALL=C sort | grep '^frame_' | tail -1) == frame_10000.obj ]] ||
  die "frame 10000 does not sort last"
grep -q '"files": "frame_%05d.obj"' "$T/w/run.json" || die "manifest pattern for 5 digits"

# --- item 1 (drape run side): a diverging run ---
# Explicit springs past their stability limit (h = 0.012 s > ~0.005 s):
# finite for 8 frames, diverged in frame 9 on the CPU backend.
cat >"$T/div.json" <<'EOF'
{"dt": 0.012, "substeps": 1,
 "cloth": [{"grid": {"rows": 4, "cols": 4, "spacing": 0.2, "plane": "xy"}, "solver": "springs",
            "particle_mass": 0.5, "mass_per_area": 12.5, "stiffness": 5000, "spring_damping": 0,
            "bend_stiffness": 0, "damping": 0, "tethers": false, "pins": [[0, 0], [0, 3]]}]}
EOF
vid=()
have ffmpeg && vid=(--video "$T/div.mp4")
out=$("$D" run "$T/div.json" --frames 40 --backend cpu --obj-dir "$T/dv" --png-dir "$T/dvp" \
  --size 64x48 --stats "$T/dv.json" "${vid[@]}" --no-progress 2>&1)
check "diverging run" 1 $?
expect_msg "diverging run" "diverged" "$out"
n=$(ls "$T/dv" | grep -c '^frame_.*\.obj$')
((n >= 1)) && [[ -f "$T/dv/frame_$(printf %04d "$n").obj" && ! -e "$T/dv/frame_$(printf %04d $((n + 1))).obj" ]] ||
  die "diverging run: OBJ frames $(ls "$T/dv" | tr '\n' ' ')"
[[ $(ls "$T/dvp" | grep -c '^frame_.*\.png$') == "$n" ]] || die "diverging run: PNG count"
grep -qi nan "$T"/dv/frame_*.obj && die "a NaN frame was written"
python3 - "$T/dv.json" "$T/dv/run.json" "$T/dvp/run.json" "$n" <<'EOF' || fail=1
import json, sys
n = int(sys.argv[4])
s = json.load(open(sys.argv[1]))
assert s["status"] == "diverged" and "diverged" in s["error"], s["status"]
assert s["frames_done"] == n and len(s["frames"]) == n, (s["frames_done"], len(s["frames"]), n)
for p in sys.argv[2:4]:
    m = json.load(open(p))
    assert m["status"] == "diverged" and "diverged" in m["error"] and m["frames_done"] == n, m
print("ok   diverged: %d frames kept, stats and manifests say diverged" % n)
EOF
if have ffmpeg && have ffprobe; then
  expect_msg "diverging run" "finished the video" "$out"
  nv=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of csv=p=0 "$T/div.mp4")
  [[ "$nv" == "$n" ]] || die "diverged video has $nv frames, expected $n"
fi
# The cloth on OpenCL, a NaN injected at frame 5 (DRAPE_FAULT_NAN, src/cloth/
# step.c): frames 1..4 kept, the PNG of frame 5 not written either.
out=$(DRAPE_FAULT_NAN=5 "$D" run "$S/drape_sphere.json" --frames 10 --obj-dir "$T/fn" \
  --png-dir "$T/fn" --size 64x48 --stats "$T/fn.json" --no-progress 2>&1)
check "NaN at frame 5 (OpenCL)" 1 $?
expect_msg "NaN at frame 5" 'diverged at frame 5' "$out"
expect_msg "NaN at frame 5" 'frames 1..4 were written' "$out"
[[ $(ls "$T/fn" | tr '\n' ' ') == "frame_0001.obj frame_0001.png frame_0002.obj frame_0002.png frame_0003.obj frame_0003.png frame_0004.obj frame_0004.png run.json " ]] ||
  die "NaN at frame 5: files $(ls "$T/fn" | tr '\n' ' ')"
grep -q '"status": "diverged"' "$T/fn.json" && grep -q '"status": "diverged"' "$T/fn/run.json" ||
  die "NaN at frame 5: status"
temps() { find "$@" \( -name '*.tmp*' -o -name '*partial*' -o -name '*.part' \) -print; }
[[ -n $(temps "$T/dv" "$T/dvp" "$T" -maxdepth 1) ]] && die "temporary files after divergence"

# --- item 8: SIGINT / SIGTERM ---
# Job control on: background jobs of a script otherwise start with SIGINT
# ignored, which drape (rightly) leaves ignored.
set -m
for sig in INT TERM; do
  want=$([[ $sig == INT ]] && echo 130 || echo 143)
  dir="$T/sig$sig"
  mkdir -p "$dir"
  vid=()
  have ffmpeg && vid=(--video "$dir/v.mp4" --size 64x48)
  "$D" "${LONG[@]}" --obj-dir "$dir/obj" --stats "$dir/s.json" "${vid[@]}" --no-progress \
    2>"$dir/err" &
  pid=$!
  # until frames are being written (and ffmpeg runs)
  for _ in $(seq 100); do
    [[ -f "$dir/obj/frame_0000005.obj" ]] && break
    sleep 0.1
  done
  sleep 0.5
  kill -"$sig" "$pid"
  wait "$pid"
  check "SIG$sig -> exit $want" "$want" $?
  sleep 0.2
  pgrep -f "partial-$pid" >/dev/null && die "SIG$sig: ffmpeg still running"
  left=$(temps "$dir")
  [[ -z "$left" ]] || die "SIG$sig: temporary files left: $left"
  expect_msg "SIG$sig message" "interrupted by SIG$sig" "$(cat "$dir/err")"
  python3 - "$dir" "$sig" "${#vid[@]}" <<'EOF' || fail=1
import json, os, subprocess, sys
d, sig, video = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.load(open(d + "/s.json"))
m = json.load(open(d + "/obj/run.json"))
n = s["frames_done"]
assert s["status"] == "interrupted" and ("SIG" + sig) in s["error"], s["status"]
assert m["status"] == "interrupted" and m["frames_done"] == n, m
assert 5 <= n < 1000000 and len(s["frames"]) == n, n
objs = sorted(f for f in os.listdir(d + "/obj") if f.endswith(".obj"))
assert len(objs) == n and objs[-1] == "frame_%07d.obj" % n, (len(objs), objs[-1], n)
if video:
    nv = int(subprocess.check_output(["ffprobe", "-v", "error", "-count_frames", "-select_streams",
        "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", d + "/v.mp4"]))
    assert nv == n, (nv, n)
print("ok   SIG%s: %d frames, stats/manifest interrupted%s" % (sig, n, ", video complete" if video else ""))
EOF
done
# drape bench: stops at the next frame, writes nothing, exit 143
"$D" bench --sizes 64 --settings 20x1 --self off --devices cpu --frames 100000 --warmup 0 \
  --peer off --out "$T/bsig" >"$T/bsig.out" 2>&1 &
pid=$!
sleep 1.5
kill -TERM "$pid"
wait "$pid"
check "bench SIGTERM -> exit 143" 143 $?
[[ -n "$(ls -A "$T/bsig" 2>/dev/null)" ]] && die "bench interrupted wrote files: $(ls -A "$T/bsig")"
set +m

[[ $fail == 0 ]] && rm -rf "$T"
exit $fail
