#!/usr/bin/env bash
# `drape bench` end to end on a tiny ladder: the table, CSV and JSON carry
# every case with its physics check, and bad flags exit 2. (Timings are
# printed, never asserted.)
set -u
D=${DRAPE_EXE:?}
T=$(mktemp -d "${DRAPE_BINARY_DIR:-/tmp}/cli_bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
"$D" bench --sizes 8,12 --settings 4x1,2x2 --self off,on --devices all --frames 2 --warmup 1 --material none \
  --peer off --out "$T/out" > "$T/table.txt" 2>&1
rc=$?
[[ $rc == 0 ]] || { echo "FAIL bench exit $rc"; cat "$T/table.txt"; fail=1; }
for f in bench.csv bench.json; do [[ -s "$T/out/$f" ]] || { echo "FAIL no $f"; fail=1; }; done
# issue 18's measure: the stage table sets self-collision beside the rest of
# the step, with their ratio on the self-collision rows, then the contact
# lists' builds a frame and share of passes ("-" on the CPU reference,
# which has none)
grep -q "selfcol *rest *self/rest *lists b/f %" "$T/table.txt" ||
  { echo "FAIL stage table lacks selfcol/rest/lists"; fail=1; }
grep -E "^cpu-reference +12 +4x1 +on " "$T/table.txt" | tail -1 | grep -qE " [0-9]+\.[0-9]+ +- *$" ||
  { echo "FAIL no self/rest ratio on a self-collision row"; fail=1; }
grep -E "^cl[0-9]+:.* 12 +4x1 +on " "$T/table.txt" | tail -1 |
  grep -qE " [0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+% *$" ||
  { echo "FAIL no contact-list figures on an OpenCL self-collision row"; fail=1; }
python3 - "$T/out/bench.json" "$T/out/bench.csv" <<'PY' || fail=1
import json, sys, csv
j = json.load(open(sys.argv[1]))
cases = j["cases"]
rows = list(csv.DictReader(open(sys.argv[2])))
# 2 sizes x 2 settings x 2 self modes x (every OpenCL device + the CPU reference)
ok = len(cases) == len(rows) and len(cases) % 8 == 0 and len(cases) >= 16
ok = ok and {c["n"] for c in cases} == {8, 12} and {(c["substeps"], c["iterations"]) for c in cases} == {(4, 1), (2, 2)}
ok = ok and {c["self_collision"] for c in cases} == {False, True}
ok = ok and any(c["backend"] == "cpu-reference" for c in cases)
ok = ok and all(c["ok"] and c["particles"] == c["n"] ** 2 and c["colours"] >= 12 for c in cases)
ok = ok and all(0 <= c["mean_strain"] < 0.05 and c["ms_frame"]["median"] > 0 for c in cases)
ok = ok and all(c["stage_ms"]["project"] >= 0 for c in cases) and "commit" in j and "machine" in j
# the contact lists: only OpenCL self-collision cases run passes on them
# (a share in [0, 1]); the others have none (-1) and no builds
for c in cases:
    on_cl = c["self_collision"] and c["backend"] != "cpu-reference"
    share, builds = c["list_pass_share"], c["list_builds_per_frame"]
    if not ((0 <= share <= 1 and builds >= 0) if on_cl else (share == -1 and builds == 0)):
        print("bench json: contact-list figures wrong:", c["backend"], c["n"], share, builds)
        ok = False
if not ok: print("bench json: a case lacks a field, a physics check or its figures")
# per colour and per self-collision part: they add up to their stage. On
# OpenCL both sides sum the same profiled events (equal up to the printed
# rounding); on the CPU reference the stage is the wall time around the
# parts, so they sum to a little less.
def close(a, b): return abs(a - b) <= 1e-3 * max(1.0, abs(b))
def parts_ok(c):
    parts, stage = sum(c["self_collision_ms"].values()), c["stage_ms"]["self_collision"]
    if c["backend"] == "cpu-reference": return 0.5 * stage - 1e-4 <= parts <= stage + 1e-4
    return close(parts, stage)
for c in cases:
    colours_ok = len(c["project_ms_per_colour"]) == c["colours"] and \
        close(sum(c["project_ms_per_colour"]), c["stage_ms"]["project"])
    hashed = c["self_collision_ms"]["hash_triangles"] > 0 or not c["self_collision"]
    if not (colours_ok and parts_ok(c) and hashed):
        print("bench json: per-colour or self-collision parts do not add up:", c["backend"], c["n"],
              c["project_ms_per_colour"], c["stage_ms"], c["self_collision_ms"])
        ok = False
print("bench json:", len(cases), "cases,", "ok" if ok else "BAD")
sys.exit(0 if ok else 1)
PY
grep -q "ms/frame" "$T/table.txt" || { echo "FAIL no table header"; fail=1; }
grep -q "per colour" "$T/table.txt" || { echo "FAIL no per-stage table"; fail=1; }
# --fuse off: the particle stages show up one by one in the stage profile,
# the fused pass does not (and the default run above had it)
"$D" bench --sizes 12 --settings 4x1 --self off --devices cl --frames 2 --warmup 1 --peer off \
  --fuse off --out "$T/unfused" > "$T/unfused.txt" 2>&1 || { echo "FAIL bench --fuse off"; fail=1; }
python3 - "$T/out/bench.json" "$T/unfused/bench.json" <<'PY' || fail=1
import json, sys
fused = [c for c in json.load(open(sys.argv[1]))["cases"] if c["backend"] != "cpu-reference" and not c["self_collision"]]
apart = json.load(open(sys.argv[2]))["cases"]
ok = all(c["stage_ms"]["fused"] > 0 and c["stage_ms"]["update"] == 0 for c in fused)
ok = ok and len(apart) >= 1 and all(c["stage_ms"]["fused"] == 0 and c["stage_ms"]["update"] > 0 and
                                    c["stage_ms"]["predict"] > 0 and c["stage_ms"]["collide"] > 0 for c in apart)
print("bench --fuse:", "ok" if ok else "BAD")
sys.exit(0 if ok else 1)
PY
# a case that diverges (NaN injected at frame 2, DRAPE_FAULT_NAN) is kept,
# marked DIVERGED / "status": "diverged", and the run exits 1
DRAPE_FAULT_NAN=2 "$D" bench --sizes 12 --settings 4x1 --self off --devices all --frames 2 \
  --warmup 1 --peer off --out "$T/nan" > "$T/nan.txt" 2>&1
rc=$?
[[ $rc == 1 ]] || { echo "FAIL bench with a diverging case: exit $rc, expected 1"; fail=1; }
[[ $(grep -c 'DIVERGED$' "$T/nan.txt") == 2 ]] || { echo "FAIL bench table lacks DIVERGED rows"; fail=1; }
grep -q 'diverged at frame 2' "$T/nan.txt" || { echo "FAIL bench does not say why"; fail=1; }
python3 - "$T/nan/bench.json" <<'PY' || fail=1
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert len(cases) == 2 and all(c["status"] == "diverged" and not c["ok"] for c in cases), cases
print("ok   bench marks diverged cases failed")
PY
# --mesh: per setting, self mode and backend, the mesh cloth and the grid
# of its particle count (square_small: 144 vertices, the 12 x 12 grid),
# both passing their physics checks; the mesh has dihedral bending, the
# grid none; the JSON names the mesh, the CSV's last column the cloth
S=${DRAPE_SOURCE_DIR:?}
"$D" bench --mesh "$S/meshes/square_small.obj" --settings 4x1 --self off,on --devices all --material none \
  --frames 2 --warmup 1 --peer off --out "$T/mesh" > "$T/mesh.txt" 2>&1
rc=$?
[[ $rc == 0 ]] || { echo "FAIL bench --mesh exit $rc"; cat "$T/mesh.txt"; fail=1; }
python3 - "$T/mesh/bench.json" "$T/mesh/bench.csv" "$S/meshes/square_small.obj" <<'PY' || fail=1
import json, sys, csv
j = json.load(open(sys.argv[1]))
cases = j["cases"]
rows = list(csv.DictReader(open(sys.argv[2])))
grid = [c for c in cases if c["cloth"] == "grid"]
mesh = [c for c in cases if c["cloth"] == "mesh"]
ok = j.get("mesh") == sys.argv[3] and len(grid) == len(mesh) and len(mesh) % 2 == 0 and len(mesh) >= 4
ok = ok and [r["cloth"] for r in rows] == [c["cloth"] for c in cases]
ok = ok and all(c["n"] == 12 and c["particles"] == 144 and c["bend_constraints"] == 0 for c in grid)
ok = ok and all(c["particles"] == 144 and c["bend_constraints"] > 0 and c["bend_colours"] > 0 for c in mesh)
ok = ok and all(c["ok"] and 0 <= c["mean_strain"] < 0.05 and c["ms_frame"]["median"] > 0 for c in cases)
# each mesh case right after the grid case of the same backend and setting
ok = ok and all(cases[i]["cloth"] == "grid" and cases[i + 1]["cloth"] == "mesh" and
                cases[i]["backend"] == cases[i + 1]["backend"] and
                cases[i]["self_collision"] == cases[i + 1]["self_collision"]
                for i in range(0, len(cases), 2))
print("bench --mesh:", len(cases), "cases,", "ok" if ok else "BAD")
if not ok: print(json.dumps(cases, indent=1)[:3000])
sys.exit(0 if ok else 1)
PY
grep -Eq '^cpu-reference +- +mesh +4x1' "$T/mesh.txt" || { echo "FAIL bench --mesh: no mesh row in the table"; fail=1; }
# --material: every case carries the per-constraint cloth's ms/frame from
# the same run and the ratio to it (consistent with the two times; never
# compared with a number), and its residual (finite, >= 0); without
# --material the reference figures are null and the residual is there
"$D" bench --sizes 8 --settings 4x1,2x2 --self off --devices all --frames 2 --warmup 1 --peer off \
  --material cotton_shirting --out "$T/mat" > "$T/mat.txt" 2>&1
rc=$?
[[ $rc == 0 ]] || { echo "FAIL bench --material exit $rc"; cat "$T/mat.txt"; fail=1; }
grep -q "ref ms *ratio" "$T/mat.txt" || { echo "FAIL bench table lacks ref ms / ratio"; fail=1; }
python3 - "$T/mat/bench.json" "$T/mat/bench.csv" "$T/out/bench.json" "$T/out/bench.csv" <<'PY' || fail=1
import json, sys, csv, math
j, rows = json.load(open(sys.argv[1])), list(csv.DictReader(open(sys.argv[2])))
plain, prows = json.load(open(sys.argv[3])), list(csv.DictReader(open(sys.argv[4])))
cases = j["cases"]
ok = j["material"] == "cotton_shirting" and len(cases) == len(rows) and len(cases) >= 4
for c, r in zip(cases, rows):
    ref, ratio, res = c["ref_ms_frame"], c["cost_ratio"], c["residual"]
    good = ref is not None and ref > 0 and ratio is not None and ratio > 0
    good = good and math.isclose(ratio, c["ms_frame"]["median"] / ref, rel_tol=1e-3, abs_tol=1e-3)
    good = good and res is not None and math.isfinite(res) and res >= 0
    good = good and r["material"] == "cotton_shirting" and float(r["ref_ms_frame"]) > 0
    good = good and float(r["cost_ratio"]) > 0 and float(r["residual"]) >= 0
    if not good:
        print("bench --material: a case lacks its reference or residual:", c["backend"], c["n"], ref, ratio, res, r)
        ok = False
ok = ok and plain["material"] is None
for c, r in zip(plain["cases"], prows):
    if not (c["ref_ms_frame"] is None and c["cost_ratio"] is None and r["ref_ms_frame"] == "" and
            r["cost_ratio"] == "" and r["material"] == "" and c["residual"] >= 0 and float(r["residual"]) >= 0):
        print("bench without --material: reference figures or residual wrong:", c["backend"], c["n"], r)
        ok = False
print("bench --material:", len(cases), "cases,", "ok" if ok else "BAD")
sys.exit(0 if ok else 1)
PY
for bad in "--mesh $S/meshes/no_such.obj" "--sizes 8 --mesh $S/meshes/square_small.obj" \
           "--sizes 2" "--settings 20y1" "--self maybe" "--devices 99" "--frames 0" "--peer sometimes" "--fuse maybe" \
           "--material no_such_cloth" "--bogus 1"; do
  "$D" bench $bad --out "$T/bad" > "$T/bad.txt" 2>&1
  rc=$?
  if [[ $rc != 2 ]]; then echo "FAIL 'bench $bad': exit $rc, expected 2"; fail=1; fi
  grep -q -e "${bad%% *}" "$T/bad.txt" || { echo "FAIL 'bench $bad' message does not name the flag"; fail=1; }
  [[ -e "$T/bad" ]] && { echo "FAIL 'bench $bad' wrote output"; fail=1; }
done
[[ $fail == 0 ]] && echo "ok   drape bench"
exit $fail
