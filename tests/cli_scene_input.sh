#!/usr/bin/env bash
# Scene input the loader must refuse, quickly and by name (issue 13): a FIFO
# (fopen() used to block on it forever), a device, a directory; a UTF-8 BOM
# and leading zeros (docs/scenes.md promises strict JSON); values that
# underflow in float (exit 2 naming the key, the value and the smallest
# value allowed) for `drape run`, `drape compare` and `drape view`; the
# self-collision and tear_ratio messages; `drape bench --settings`, which
# read 20x1.5 as 20x1.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}/scenes
T=${DRAPE_BINARY_DIR:?}/test-tmp/cli_scene_input-$$
rm -rf "$T" && mkdir -p "$T"
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed

# --- files that are not regular files ---
mkfifo "$T/pipe.json"
start=$(date +%s)
timeout 10 "$D" run "$T/pipe.json" --frames 1 2>"$T/err"
check "run FIFO" 2 $?
(( $(date +%s) - start < 5 )) || { echo "FAIL run FIFO took $(( $(date +%s) - start )) s"; fail=1; }
expect_fixed "FIFO message" "$(cat "$T/err")" "scene file '$T/pipe.json': not a regular file (it is a FIFO (named pipe))"
timeout 10 "$D" view "$T/pipe.json" --frames 1 2>"$T/err" >/dev/null
check "view FIFO" 2 $?
expect_fixed "view FIFO message" "$(cat "$T/err")" "SCENE \"$T/pipe.json\": not a regular file (a FIFO)"
timeout 10 "$D" run /dev/zero --frames 1 2>"$T/err"
check "run /dev/zero" 2 $?
expect_fixed "/dev/zero message" "$(cat "$T/err")" "scene file '/dev/zero': not a regular file (it is a character device)"
timeout 10 "$D" run "$T" --frames 1 2>"$T/err"
check "run a directory" 2 $?
expect_fixed "directory message" "$(cat "$T/err")" "scene file '$T': not a regular file (it is a directory)"

# --- strict JSON ---
printf '\xEF\xBB\xBF{"dt": 0.01}\n' >"$T/bom.json"
"$D" run "$T/bom.json" --frames 1 2>"$T/err"
check "run BOM" 2 $?
expect_fixed "BOM message" "$(cat "$T/err")" "scene file '$T/bom.json': JSON syntax error at line 1, column 1: the text starts with a UTF-8 byte order mark"
printf '{\n  "substeps": 010\n}\n' >"$T/zero.json"
"$D" run "$T/zero.json" --frames 1 2>"$T/err"
check "run leading zero" 2 $?
expect_fixed "leading zero message" "$(cat "$T/err")" "line 2, column 15: number '010': leading zeros are not allowed"
printf '{"gravity": [0, -01, 0]}' >"$T/zero2.json"
"$D" run "$T/zero2.json" --frames 1 2>"$T/err"
check "run -01" 2 $?
expect_fixed "-01 message" "$(cat "$T/err")" "number '-01': leading zeros"

# --- float limits: every command that loads a scene refuses them ---
while IFS='|' read -r json want; do
  printf '%s\n' "$json" >"$T/f.json"
  for cmd in run compare view; do
    out=("--frames" "1")
    [[ $cmd == run ]] && out+=("--backend" "cpu")
    [[ $cmd == compare ]] && out=("--frames" "1" "--no-plot" "--out" "$T/cmp")
    timeout 60 "$D" "$cmd" "$T/f.json" "${out[@]}" 2>"$T/err" >/dev/null
    check "$cmd $json" 2 $?
    expect_fixed "$cmd message" "$(cat "$T/err")" "scene file '$T/f.json': $want"
  done
done <<'EOF2'
{"dt": 1e-40}|dt = 1e-40: the substep h = dt / substeps
{"dt": 1e-300}|dt = 1e-300: the substep h = dt / substeps
{"cloth": [{"grid": {"spacing": 1e-300}}]}|cloth[0].grid.spacing = 1e-300: below the smallest normal float
{"cloth": [{"grid": {"spacing": 1e-40}}]}|cloth[0].grid.spacing = 1e-40: below the smallest normal float
{"cloth": [{"mass_per_area": 1e-40}]}|cloth[0].mass_per_area = 1e-40: a corner particle's mass
{"cloth": [{"mass_per_area": 1e-300}]}|cloth[0].mass_per_area = 1e-300: a corner particle's mass
{"cloth": [{"particle_mass": 1e-40}]}|cloth[0].particle_mass = 1e-40: below the smallest normal float
{"cloth": [{"particle_mass": 1e-300}]}|cloth[0].particle_mass = 1e-300: below the smallest normal float
{"rope": [{"length": 1e-40}]}|rope[0].length = 1e-40: the link rest length
{"rope": [{"length": 1e-300}]}|rope[0].length = 1e-300: the link rest length
{"rope": [{"mass_per_length": 1e-40}]}|rope[0].mass_per_length = 1e-40: an end node's mass
{"rope": [{"mass_per_length": 1e-300}]}|rope[0].mass_per_length = 1e-300: an end node's mass
{"cloth": [{"grid": {"cols": 8, "rows": 8}, "thickness": 1e-300, "self_collision": true}]}|cloth[0].thickness = 1e-300: below the smallest normal float, it would underflow to 0
{"cloth": [{"grid": {"cols": 8, "rows": 8}, "tear_ratio": 1.0000001, "solver": "springs"}]}|cloth[0].tear_ratio = 1.0000001: the springs solver does not tear
EOF2

# --- drape bench --settings: whole numbers only ---
for v in 20x1.5 20x 20x1, ,20x1 x1 0x1 "20 x1" +20x1 20x1e0 1001x1 99999999999x1; do
  "$D" bench --settings "$v" --sizes 4 --devices cpu --frames 1 --warmup 0 --peer off \
    --self off --out "$T/bench" >/dev/null 2>"$T/err"
  check "bench --settings '$v'" 2 $?
  expect_fixed "bench message" "$(cat "$T/err")" "drape bench: --settings \"$v\": expected SUBSTEPSxITERATIONS, whole numbers 1..1000"
done
[[ -e "$T/bench" ]] && { echo "FAIL bench wrote output after bad --settings"; fail=1; }
"$D" bench --settings 3x2,1x4 --sizes 4 --devices cpu --frames 1 --warmup 0 --peer off \
  --self off --out "$T/bench" >"$T/out" 2>"$T/err"
check "bench --settings 3x2,1x4" 0 $?
grep -qE ' 3x2 ' "$T/out" && grep -qE ' 1x4 ' "$T/out" || { echo "FAIL bench did not run 3x2 and 1x4:"; cat "$T/out"; fail=1; }

if [[ $fail == 0 ]]; then rm -rf "$T"; fi
exit $fail
