#!/usr/bin/env bash
# --kernel-form and DRAPE_KERNEL_FORM (docs/cli.md, docs/solver.md "Two
# kernel forms"): parsing, exit codes, what `drape devices` and
# `drape run --stats` say, and that both forms write the same OBJ bytes as
# the CPU reference on this (PoCL) machine.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed
out=$("$D" --kernel-form bogus devices 2>&1); check "--kernel-form bogus" 2 $?
grep -q -- '--kernel-form "bogus": expected auto, gpu or cpu' <<<"$out" ||
  { echo "FAIL bad value message: $out"; fail=1; }
out=$("$D" devices --kernel-form 2>&1); check "--kernel-form after the command" 2 $?
out=$("$D" --kernel-form 2>&1); check "--kernel-form without a value" 2 $?
out=$(DRAPE_KERNEL_FORM=vec "$D" devices 2>&1); check "DRAPE_KERNEL_FORM=vec" 2 $?
grep -q 'DRAPE_KERNEL_FORM = "vec": expected auto, gpu or cpu' <<<"$out" ||
  { echo "FAIL env message: $out"; fail=1; }
out=$("$D" --kernel-form=gpu devices 2>&1); check "--kernel-form=gpu devices" 0 $?
# a CPU device gets the vector form from auto, a GPU the gpu form
if grep -q "type CPU" <<<"$out"; then
  grep -q "kernel form (auto): vector" <<<"$out" || { echo "FAIL devices: $out"; fail=1; }
fi
# the stats name the form that ran; every form writes the reference's bytes
scene="$S/scenes/hanging_rope.json"
run() { # name expected_form backend command...
  local name=$1 want=$2 backend=$3; shift 3
  "$@" run "$scene" --frames 20 --backend "$backend" --obj-dir "$T/$name" \
    --stats "$T/$name.json" >/dev/null 2>&1
  check "run $name" 0 $?
  grep -q "\"kernel_form\": \"$want\"" "$T/$name.json" ||
    { echo "FAIL $name: stats lack \"kernel_form\": \"$want\""; fail=1; }
}
run gpu gpu cl "$D" --kernel-form gpu
run cpu vector cl "$D" --kernel-form cpu
run env-gpu gpu cl env DRAPE_KERNEL_FORM=gpu "$D"
run flag-beats-env vector cl env DRAPE_KERNEL_FORM=gpu "$D" --kernel-form cpu
run reference cpu-reference cpu "$D" --kernel-form gpu
for name in gpu cpu env-gpu; do
  cmp -s "$T/$name/frame_0020.obj" "$T/reference/frame_0020.obj" &&
    echo "ok   $name form: OBJ bytes of the CPU reference" ||
    { echo "FAIL $name form: OBJ differs from the CPU reference"; fail=1; }
done
exit $fail
