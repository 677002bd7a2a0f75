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
[[ $(grep -c '^l ' "$obj") == 80 && "$(grep '^l ' "$obj" | tail -1)" == "l 80 81" ]] ||
  { echo "FAIL expected 80 links 'l a a+1' over 81 nodes"; fail=1; }
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

# Issue 13: a string that diverges inside `drape run` stops the run with
# exit 1 and a message naming the string, the frame, its time and the
# stiff parameter; the frames before it stay (finite), the frame itself and
# later ones are not written, and the stats record "diverged". EA = 8e7 N
# (explicit elastic forces 126x too stiff for h) blows up at t = 0.086 s,
# in frame 5 of 0.02 s, the same on every run (the solver is deterministic).
cat > "$T/stiff.json" <<'JSON'
{ "dt": 0.02, "substeps": 4, "iterations": 1,
  "string": [{ "name": "cord", "anchor": [-1.6, 2.6], "EA": 8e7 }] }
JSON
t0=$(date +%s.%N)
timeout 120 "$D" run "$T/stiff.json" --frames 8 --obj-dir "$T/stiff" --stats "$T/stiff_stats.json" \
  2>"$T/err3"; rc=$?
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
if [[ $rc != 1 ]]; then echo "FAIL stiff string: exit $rc, expected 1: $(cat "$T/err3")"; fail=1
else echo "ok   stiff string in drape run: exit 1 after $took s"; fi
msg=$(cat "$T/err3")
grep -qE 'string "cord" diverged at frame [0-9]+ \(t = [0-9.]+ s\): energy blow-up' <<<"$msg" ||
  { echo "FAIL message: $msg"; fail=1; }
grep -qF 'stiffest parameter: EA = 8e+07 N' <<<"$msg" || { echo "FAIL EA not named: $msg"; fail=1; }
bad_frame=$(sed -nE 's/.*string "cord" diverged at frame ([0-9]+) .*/\1/p' <<<"$msg" | head -1)
[[ ${bad_frame:-0} -ge 2 ]] || { echo "FAIL expected a later frame to diverge, got '${bad_frame}'"; fail=1; }
for ((k = 1; k < ${bad_frame:-1}; k++)); do
  f=$(printf '%s/stiff/frame_%04d.obj' "$T" $k)
  [[ -s $f ]] || { echo "FAIL frame $k before the divergence is missing"; fail=1; }
done
for ((k = ${bad_frame:-1}; k <= 8; k++)); do
  f=$(printf '%s/stiff/frame_%04d.obj' "$T" $k)
  [[ ! -e $f ]] || { echo "FAIL frame $k (at or after the divergence) was written"; fail=1; }
done
! grep -qi nan "$T"/stiff/*.obj 2>/dev/null || { echo "FAIL nan in an OBJ"; fail=1; }
grep -q '"status": "diverged"' "$T/stiff_stats.json" || { echo "FAIL stats status"; fail=1; }
[[ $fail == 0 ]] && echo "ok   diverged string: frames 1..$((bad_frame - 1)) kept, $bad_frame.. not written"

# A string h giving more than 1e9 ticks over the run, and links shorter
# than 1e-6 m, are refused before the run (exit 2, named).
sed 's/"EA": 8e7/"h": 1e-300/' "$T/stiff.json" >"$T/tiny_h.json"
msg=$("$D" run "$T/tiny_h.json" --frames 2 --obj-dir "$T/tiny_h" 2>&1); rc=$?
if [[ $rc == 2 ]] && grep -qF 'string "cord": h = 1e-300 s: the run'"'"'s 0.04 s would be 4e+298 ticks' <<<"$msg" &&
   ! ls "$T"/tiny_h/frame_* >/dev/null 2>&1; then echo "ok   string h = 1e-300 refused"
else echo "FAIL string h = 1e-300: exit $rc: $msg"; fail=1; fi
sed 's/"EA": 8e7/"length": 1e-300/' "$T/stiff.json" >"$T/tiny_l.json"
msg=$("$D" run "$T/tiny_l.json" --frames 2 2>&1); rc=$?
if [[ $rc == 2 ]] && grep -qF 'length' <<<"$msg" && grep -qF '1e-300' <<<"$msg"; then
  echo "ok   string length = 1e-300 refused"
else echo "FAIL string length 1e-300: exit $rc: $msg"; fail=1; fi
exit $fail
