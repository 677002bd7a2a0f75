#!/usr/bin/env bash
# Strings inside `drape run` (seed 000 model on the CPU, in the cloth frame
# loop): the scene runner's string must be the same string that
# `drape string` computes, node for node, and its OBJ must hold it.
set -u
D=${DRAPE_EXE:?}
T=$(mktemp -d "${DRAPE_BINARY_DIR:-/tmp}/cli_run_string.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
# A scene whose frames end on whole ticks: dt = 0.02 s = 200 ticks of 1e-4 s.
cat > "$T/s.json" <<'JSON'
{ "dt": 0.02, "substeps": 4, "iterations": 1,
  "string": [{ "name": "cord", "anchor": [-1.6, 2.6], "z": 0.25,
               "hand": [[0.0, 2.4, 2.6]], "release_at": 0.06 }] }
JSON
"$D" run "$T/s.json" --frames 10 --obj-dir "$T/obj" 2>"$T/err" || { echo "FAIL run: $(cat "$T/err")"; exit 1; }
# The reference: the same string held at its initial end, released at 0.06 s.
"$D" string --hold --release-at 0.06 --seconds 0.2 --dump-at 0.2 --out "$T/ref.csv" ||
  { echo "FAIL drape string"; exit 1; }
obj="$T/obj/frame_0010.obj"
grep -q '^o cord$' "$obj" || { echo "FAIL no 'o cord' in $obj"; fail=1; }
nv=$(grep -c '^v ' "$obj")
[[ $nv == 81 ]] || { echo "FAIL $nv vertices, expected 81"; fail=1; }
grep -q '^l 1 2 3 .* 81$' "$obj" || { echo "FAIL no polyline over 81 nodes"; fail=1; }
# Compare every node (OBJ has %.9g, so 1e-6 m absolute is plenty).
python3 - "$obj" "$T/ref.csv" <<'PY' || fail=1
import sys
obj = [tuple(map(float, l.split()[1:4])) for l in open(sys.argv[1]) if l.startswith("v ")]
ref = [l.strip().split(",") for l in open(sys.argv[2]).readlines()[1:]]
ref = [(float(r[2]), float(r[3])) for r in ref]
worst = max(max(abs(a[0]-b[0]), abs(a[1]-b[1])) for a, b in zip(obj, ref))
zs = set(a[2] for a in obj)
print(f"run vs string: worst node difference {worst:.3g} m over {len(ref)} nodes; z = {zs}")
ok = len(obj) == len(ref) == 81 and worst < 1e-6 and zs == {0.25}
# The end was released and has fallen below its hand height by t = 0.2 s.
ok = ok and obj[-1][1] < 2.6 - 0.05
sys.exit(0 if ok else 1)
PY
# The seed demo scene runs headlessly with its string drawn (a few frames).
"$D" run "${DRAPE_SOURCE_DIR:?}/scenes/string_hand.json" --frames 3 --png-dir "$T/png" --size 160x90 \
  --no-progress 2>"$T/err2" || { echo "FAIL string_hand render: $(cat "$T/err2")"; fail=1; }
[[ -s "$T/png/frame_0003.png" ]] || { echo "FAIL no frame_0003.png"; fail=1; }
[[ $fail == 0 ]] && echo "ok   strings in drape run"
exit $fail
