#!/usr/bin/env bash
# Capsule and mesh collider keys the loader must refuse with exit 2 naming
# the key (issue 17): a missing mesh file, keys out of order, a non-finite
# transform (1e999 reads as infinity), a sequence whose files are missing,
# change their vertex count, have no %d, or no positive fps, a capsule
# without a radius; a scene with both kinds runs, and its
# PNG differs from the same scene's without them (the renderer draws them).
set -u
D=${DRAPE_EXE:?}
M=${DRAPE_SOURCE_DIR:?}/meshes
T=${DRAPE_BINARY_DIR:?}/test-tmp/cli_colliders-$$
rm -rf "$T" && mkdir -p "$T"
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed

cloth='"cloth": [{ "grid": { "cols": 8, "rows": 8, "spacing": 0.05, "origin": [-0.2, 0.9, -0.2] } }]'
run_bad() { # name json pattern
  printf '{ %s, %s }\n' "$cloth" "$2" > "$T/$1.json"
  out=$("$D" run "$T/$1.json" --frames 1 --backend cpu 2>&1); rc=$?
  check "$1: exit 2" 2 $rc
  expect_fixed "$1: names the key" "$out" "$3"
}
run_bad missing_file '"collider": [{ "mesh": { "file": "no_such.obj" } }]' \
  'collider[0].mesh.file = "no_such.obj": cannot read'
run_bad keys_order "\"collider\": [{ \"mesh\": { \"file\": \"$M/box.obj\" }, \"keys\": [[1, 0,0,0, 0,0,0], [0.5, 0,0,0, 0,0,0]] }]" \
  'collider[0].keys[1][0] = 0.5: key times must increase'
run_bad capsule_keys_order '"capsule": [{ "a": [0,0,0], "b": [1,0,0], "radius": 0.1, "keys": [[0, 0,0,0, 0,0,0], [0, 1,0,0, 0,0,0]] }]' \
  'capsule[0].keys[1][0] = 0: key times must increase'
run_bad nonfinite "\"collider\": [{ \"mesh\": { \"file\": \"$M/box.obj\", \"translate\": [0, 1e999, 0] } }]" \
  'collider[0].mesh.translate[1]'
run_bad nonfinite_key '"capsule": [{ "a": [0,0,0], "b": [1,0,0], "radius": 0.1, "keys": [[0, 0,0,0, 0,-1e999,0]] }]' \
  'capsule[0].keys[0][5]'
run_bad sequence_missing "\"collider\": [{ \"sequence\": { \"files\": \"walk_%04d.obj\", \"fps\": 30 } }]" \
  "collider[0].sequence.files = \"walk_%04d.obj\": no file 'walk_0001.obj'"
cp "$M/box.obj" "$T/seq_1.obj"; cp "$M/box.obj" "$T/seq_2.obj"; cp "$M/sphere_5k.obj" "$T/seq_3.obj"
run_bad sequence_count "\"collider\": [{ \"sequence\": { \"files\": \"$T/seq_%d.obj\" } }]" \
  "collider[0].sequence.files: '$T/seq_3.obj' (frame 2) has 2452 vertices"
run_bad sequence_pattern '"collider": [{ "sequence": { "files": "walk.obj" } }]' \
  'collider[0].sequence.files = "walk.obj": expected a file name pattern with one %d'
run_bad sequence_fps "\"collider\": [{ \"sequence\": { \"files\": \"$T/seq_%d.obj\", \"fps\": 0 } }]" \
  'collider[0].sequence.fps = 0: must be > 0'
run_bad no_radius '"capsule": [{ "a": [0,0,0], "b": [1,0,0] }]' 'capsule[0].radius: missing'
run_bad bad_radius '"capsule": [{ "a": [0,0,0], "b": [1,0,0], "radius": -1 }]' 'capsule[0].radius = -1'

printf '{ %s, "capsule": [{ "a": [-0.5,0.5,0], "b": [0.5,0.5,0], "radius": 0.1 }], "collider": [{ "mesh": { "file": "%s/box.obj", "scale": 0.3 } }] }\n' "$cloth" "$M" > "$T/good.json"
out=$("$D" run "$T/good.json" --frames 3 --backend cpu 2>&1); rc=$?
check "capsule and box collider: runs" 0 $rc

# --obj-colliders: DIR/colliders_NNNN.obj beside the frames, one `o` per
# capsule (130 vertices) and mesh collider (the box's 26); refused without
# --obj-dir
out=$("$D" run "$T/good.json" --frames 2 --backend cpu --obj-dir "$T/obj" --obj-colliders 2>&1); rc=$?
check "--obj-colliders: runs" 0 $rc
f="$T/obj/colliders_0002.obj"
if [[ -f "$f" ]] && [[ "$(grep -c '^o ' "$f")" == 2 ]] && [[ "$(grep -c '^v ' "$f")" == 156 ]]; then
  echo "ok   --obj-colliders: capsule0 and collider0, 130 + 26 vertices"
else
  echo "FAIL --obj-colliders: $f: $(grep '^o ' "$f" 2>&1 | tr '\n' ' ') $(grep -c '^v ' "$f" 2>&1) vertices"; fail=1
fi
out=$("$D" run "$T/good.json" --frames 1 --obj-colliders 2>&1); rc=$?
check "--obj-colliders without --obj-dir: exit 2" 2 $rc
expect_fixed "--obj-colliders without --obj-dir: says so" "$out" "--obj-colliders \"\": needs --obj-dir DIR"

# drape bench --scene: the stage table with the colliders' line and the
# ratio; an option of the ladder is refused with --scene
out=$("$D" bench --scene "$T/good.json" --frames 2 --warmup 1 --backend cpu 2>&1); rc=$?
check "bench --scene: runs" 0 $rc
expect_msg "bench --scene: the colliders stage" "^colliders  *[0-9.]*$" "$out"
expect_msg "bench --scene: the ratio" "^colliders [0-9.]* ms/frame, cloth solve [0-9.]* ms/frame: [0-9.]*x$" "$out"
# a scene with self-collision on OpenCL: its line against the rest of the
# solve, with the contact lists' builds (issue 18)
# (the main scene's sheet with the per-constraint keys and no step bounds:
# the lists serve the unbounded passes)
python3 - "${DRAPE_SOURCE_DIR}/scenes/drape_sphere.json" "$T/sheet.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
c = s["cloth"][0]
c.pop("material"), c.pop("self_collision_bounds", None)
c["mass_per_area"] = 0.2
c["compliance"] = {"stretch": 0, "shear": 1e-6, "bend": 1e-3}
json.dump(s, open(sys.argv[2], "w"))
PY
out=$("$D" bench --scene "$T/sheet.json" --frames 3 --warmup 2 \
  --backend cl 2>&1); rc=$?
check "bench --scene, self-collision: runs" 0 $rc
expect_msg "bench --scene: self-collision against the rest" \
  "^self-collision [0-9.]* ms/frame, the rest of the solve [0-9.]* ms/frame: [0-9.]*x; contact lists: [0-9.]* builds a frame, [0-9]*% of the passes on them$" "$out"
expect_msg "bench --scene: the lists were read" "builds a frame, [1-9][0-9]*% of the passes" "$out"
# and the stage by part, which add up to it (each printed to 0.001 ms)
expect_msg "bench --scene: self-collision parts" \
  "^self-collision parts, ms/frame: clamp [0-9.]* hash_particles [0-9.]* particles [0-9.]* hash_triangles [0-9.]* vertex_triangle [0-9.]* bound [0-9.]*$" "$out"
sum=$(printf '%s\n' "$out" | awk '/^self-collision parts/ { for (i = 4; i <= NF; i += 2) s += $(i + 1) }
  /^self-collision [0-9]/ { t = $2 } END { d = s - t; if (d < 0) d = -d; print (t > 0 && d <= 0.004) ? "yes" : "no " s " vs " t }')
check "bench --scene: the parts add up to the stage" yes "$sum"
out=$("$D" bench --scene "$T/good.json" --sizes 64 2>&1); rc=$?
check "bench --scene --sizes: exit 2" 2 $rc
expect_fixed "bench --scene --sizes: names it" "$out" '--sizes "64": unknown option with --scene'

# the renderer draws them: the same scene with and without the capsule and
# box renders different pixels (EGL, no display)
printf '{ %s }\n' "$cloth" > "$T/plain.json"
if "$D" run "$T/good.json" --frames 1 --png-dir "$T/png_c" --size 160x90 >/dev/null 2>&1 &&
   "$D" run "$T/plain.json" --frames 1 --png-dir "$T/png_p" --size 160x90 >/dev/null 2>&1; then
  if cmp -s "$T/png_c/frame_0001.png" "$T/png_p/frame_0001.png"; then
    echo "FAIL render: the colliders changed no pixel"; fail=1
  else
    echo "ok   render: the colliders are drawn"
  fi
else
  echo "ok   render: skipped (no EGL renderer here)"
fi

rm -rf "$T"
exit $fail
