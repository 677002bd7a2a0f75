#!/usr/bin/env bash
# Crossings (issue 18; docs/selfcollision.md "Counting crossings"): the
# exact count of edges through triangles that `drape run --stats`, the
# viewer and `drape bench` report. Two sheets laid out to cut through each
# other (no gravity, so they stay where they start) report the count
# derived below at every frame, on the CPU reference and on OpenCL; the
# main scene, a flat cloth falling on the sphere, reports 0; bench has the
# column in its table, CSV and JSON.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed
# A (xz plane, y = 0) and B (xy plane, z = 3.37, x offset 0.31), both 9 x 9
# with spacing 1; B's rows go down from y = 2.123 so its row band 2-3
# straddles y = 0 (y = 0.123 .. -0.877). No gravity: they stay put.
cat >"$T/sheets.json" <<'JSON'
{"gravity": [0, 0, 0], "substeps": 1, "frames": 3,
 "cloth": [{"name": "A", "grid": {"cols": 9, "rows": 9, "spacing": 1, "origin": [0, 0, 0], "plane": "xz"}},
           {"name": "B", "grid": {"cols": 9, "rows": 9, "spacing": 1, "origin": [0.31, 2.123, 3.37], "plane": "xy"}}]}
JSON
"$D" run "$T/sheets.json" --backend cpu --stats "$T/s.json" >/dev/null 2>&1
check "two sheets run" 0 $?
got=$(python3 -c 'import json,sys; print(",".join(str(f["crossings"]) for f in json.load(open(sys.argv[1]))["frames"]))' "$T/s.json")
# A's band 3-4 straddles z = 3.37: its 8 edges along z at x = 1..8 and 8
# diagonals at x = c + 0.37 pierce B; B's band straddles y = 0 at 0.123 / 0.877
# of its height: 8 vertical edges at x = c + 0.31 <= 8 and the diagonals at
# x = c + 0.31 + 0.123 <= 8 (8 of them) pierce A. 32 in all.
[[ "$got" == "32,32,32" ]] && echo "ok   two sheets: crossings $got" ||
  { echo "FAIL two sheets: crossings $got, expected 32 at each frame"; fail=1; }
"$D" run "$T/sheets.json" --stats "$T/s2.json" >/dev/null 2>&1
check "two sheets on OpenCL" 0 $?
got2=$(python3 -c 'import json,sys; print(",".join(str(f["crossings"]) for f in json.load(open(sys.argv[1]))["frames"]))' "$T/s2.json")
[[ "$got2" == "$got" ]] && echo "ok   OpenCL counts the same" || { echo "FAIL OpenCL: $got2 vs $got"; fail=1; }
"$D" run "$S/scenes/drape_sphere.json" --frames 30 --stats "$T/m.json" >/dev/null 2>&1
check "main scene" 0 $?
m=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(max(f["crossings"] for f in d["frames"]), "crossings_ms_per_frame" in d)' "$T/m.json")
[[ "$m" == "0 True" ]] && echo "ok   main scene: no crossing in 30 frames" ||
  { echo "FAIL main scene: $m"; fail=1; }
out=$("$D" bench --sizes 16 --settings 5x1 --self off --devices cpu --frames 3 --warmup 1 --peer off \
  --out "$T/b" 2>&1)
check "bench" 0 $?
expect_msg "bench table has the crossings column" "cross" "$out"
head -1 "$T/b/bench.csv" | grep -q ',crossings,' || { echo "FAIL bench.csv header"; fail=1; }
grep -q '"crossings": 0' "$T/b/bench.json" || { echo "FAIL bench.json crossings"; fail=1; }
exit $fail
