#!/usr/bin/env bash
# `drape run`: OBJ frames and stats JSON, identical bytes on a second run,
# the CPU backend agreeing with OpenCL, and bad input (exit 2, a message
# naming the flag, no output left behind).
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}/scenes
T=${DRAPE_BINARY_DIR:?}/test-tmp/cli_run-$$
rm -rf "$T" && mkdir -p "$T"
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed

# --- outputs ---
"$D" run "$S/drape_sphere.json" --frames 5 --obj-dir "$T/a" --stats "$T/a.json" 2>"$T/err"
check "run sphere scene" 0 $?
for f in 1 2 3 4 5; do [[ -s "$T/a/frame_000$f.obj" ]] || { echo "FAIL missing frame_000$f.obj"; fail=1; }; done
[[ -e "$T/a/frame_0006.obj" ]] && { echo "FAIL wrote a 6th frame"; fail=1; }
obj="$T/a/frame_0005.obj"
[[ $(grep -c '^o sheet$' "$obj") == 1 ]] || { echo "FAIL no 'o sheet'"; fail=1; }
[[ $(grep -c '^v ' "$obj") == 4096 ]] || { echo "FAIL v count $(grep -c '^v ' "$obj")"; fail=1; }
[[ $(grep -c '^f ' "$obj") == $((2 * 63 * 63)) ]] || { echo "FAIL f count"; fail=1; }
ls "$T/a" | grep -q tmp && { echo "FAIL temporary files left in $T/a"; fail=1; }
python3 - "$T/a.json" <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
fr = d["frames"]
assert len(fr) == 5, len(fr)
assert d["particles"] == 4096 and d["constraints"] > 0, d  # a material cloth: its membranes, not distance colours
for i, f in enumerate(fr):
    assert f["frame"] == i + 1
    assert abs(f["time"] - (i + 1) * 0.016666) < 1e-6
    o = f["objects"][0]
    assert o["name"] == "sheet" and o["max_strain"] >= o["mean_strain"] >= 0
    assert f["kinetic_energy"] > 0 and f["min_sphere_clearance"] > 0
    assert f["ms"]["project"] is not None and f["ms"]["frame"] > 0
    assert "drape_coefficient" not in o  # only for a cloth with drape_disk_radius
print("ok   stats JSON: 5 frames, fields present")
EOF

# --- the Cusick drape test: drape_coefficient for its specimen only ---
"$D" run "$S/cusick.json" --frames 3 --stats "$T/cusick.json" 2>"$T/err"
check "run cusick scene" 0 $?
python3 - "$T/cusick.json" <<'EOF' || fail=1
import json, sys
fr = json.load(open(sys.argv[1]))["frames"]
assert len(fr) == 3, len(fr)
dc = [f["objects"][0]["drape_coefficient"] for f in fr]
assert 0.98 < dc[0] <= 1.005 and dc[2] < dc[0], dc  # flat, then falling
print("ok   stats JSON: drape_coefficient %s" % dc)
EOF
sed 's/"drape_disk_radius": 0.09/"drape_disk_radius": 0.2/; s|\.\./meshes/|'"${DRAPE_SOURCE_DIR}"'/meshes/|g' \
  "$S/cusick.json" >"$T/cusick_bad.json"
out=$("$D" run "$T/cusick_bad.json" --frames 2 2>&1); check "drape_disk_radius beyond the specimen" 2 $?
expect_fixed "drape_disk_radius beyond the specimen" "$out" \
  "cloth[0].drape_disk_radius = 0.2: must be 0 (no drape test) or > 0 and < 0.149969 m"

# --- same scene twice: identical bytes ---
"$D" run "$S/drape_sphere.json" --frames 5 --obj-dir "$T/b" 2>/dev/null
check "second run" 0 $?
for f in 1 2 3 4 5; do
  cmp -s "$T/a/frame_000$f.obj" "$T/b/frame_000$f.obj" || { echo "FAIL frame $f differs between runs"; fail=1; }
done

# --- CPU reference backend agrees ---
"$D" run "$S/drape_sphere.json" --frames 5 --obj-dir "$T/c" --backend cpu 2>/dev/null
check "--backend cpu" 0 $?
paste <(grep '^v ' "$T/a/frame_0005.obj") <(grep '^v ' "$T/c/frame_0005.obj") |
  awk '{ for (k = 2; k <= 4; k++) { d = $k - $(k + 4); if (d < 0) d = -d; if (d > m) m = d } }
       END { printf "     cl vs cpu after 100 substeps: max |dx| = %g m\n", m; exit !(m < 1e-4) }' ||
  { echo "FAIL cpu and cl differ"; fail=1; }

# --- rope: v + l ---
"$D" run "$S/hanging_rope.json" --frames 2 --obj-dir "$T/r" 2>/dev/null
check "rope scene" 0 $?
robj="$T/r/frame_0002.obj"
# one `l a b` per link (Blender's importer reads two vertices of an l line)
[[ $(grep -c '^v ' "$robj") == 81 && $(grep -c '^l ' "$robj") == 80 && $(grep -c '^f ' "$robj") == 0 ]] ||
  { echo "FAIL rope OBJ layout"; fail=1; }
[[ "$(grep '^l ' "$robj" | head -2 | tr '\n' ' ')" == "l 1 2 l 2 3 " && "$(grep '^l ' "$robj" | tail -1)" == "l 80 81" ]] ||
  { echo "FAIL rope links"; fail=1; }

# --- bad input: exit 2, message names the flag, nothing written ---
out=$("$D" run "$S/drape_sphere.json" --frames 0 2>&1); check "--frames 0" 2 $?
expect_msg "--frames 0" "--frames" "$out"
out=$("$D" run "$S/drape_sphere.json" --frames 2x 2>&1); check "--frames 2x" 2 $?
out=$("$D" run "$S/drape_sphere.json" --frames 2 --backend gpu 2>&1); check "--backend gpu" 2 $?
expect_msg "--backend gpu" "expected cl" "$out"
out=$("$D" run "$S/drape_sphere.json" --frames 2 --device x 2>&1); check "--device x" 2 $?
out=$("$D" run "$S/drape_sphere.json" --frames 2 --device 99 2>&1); check "--device 99" 2 $?
expect_msg "--device 99" "device 99" "$out"
out=$("$D" run "$S/drape_sphere.json" --frames 2 --frob 2>&1); check "unknown option" 2 $?
expect_msg "unknown option" "usage:" "$out"
out=$("$D" run 2>&1); check "missing scene" 2 $?
out=$("$D" run "$T/nope.json" --frames 2 2>&1); check "missing scene file" 2 $?
expect_msg "missing scene file" "nope.json" "$out"
# springs/jakobsen run now (tests/cli_seeds.sh); one scene cannot mix solvers
echo '{"frames": 2, "cloth": [{"grid": {"rows": 4, "cols": 4}, "solver": "springs"}],
       "rope": [{"length": 1, "end": [1, 0, 0]}]}' >"$T/mixed.json"
out=$("$D" run "$T/mixed.json" --backend cpu 2>&1); check "mixed solvers" 2 $?
expect_msg "mixed solvers" 'rope\[0\].solver = "xpbd" but cloth\[0\].solver = "springs"' "$out"
echo '{"cloth": [{"grid": {"rows": 4, "cols": 4}}]}' >"$T/noframes.json"
out=$("$D" run "$T/noframes.json" 2>&1); check "no frame count" 2 $?
expect_msg "no frame count" "--frames" "$out"
touch "$T/afile"
out=$("$D" run "$S/drape_sphere.json" --frames 2 --obj-dir "$T/afile/sub" 2>&1); check "--obj-dir under a file" 2 $?
expect_msg "--obj-dir under a file" "--obj-dir" "$out"
out=$("$D" run "$S/drape_sphere.json" --frames 2 --stats "$T/no/such/dir/s.json" 2>&1)
check "--stats in a missing directory" 2 $?
[[ -e "$T/no" ]] && { echo "FAIL --stats created a directory"; fail=1; }
ls "$T" | grep -q '\.tmp' && { echo "FAIL temporary files left in $T"; fail=1; }

[[ $fail == 0 ]] && rm -rf "$T"
exit $fail
