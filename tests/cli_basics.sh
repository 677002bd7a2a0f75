#!/usr/bin/env bash
# The drape command's contract: help, version, devices, exit codes.
set -u
D=${DRAPE_EXE:?}
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed
out=$("$D" --help); check "--help" 0 $?
grep -q "devices" <<<"$out" || { echo "FAIL --help lists no commands"; fail=1; }
out=$("$D" --version); check "--version" 0 $?
grep -qE '^drape [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out" || { echo "FAIL version text: $out"; fail=1; }
out=$("$D" devices); check "devices" 0 $?
grep -qi "pthread\|cpu\|gpu" <<<"$out" || { echo "FAIL devices lists no device: $out"; fail=1; }
grep -q "cl_khr_gl_sharing" <<<"$out" || { echo "FAIL devices lacks gl sharing column"; fail=1; }
out=$("$D" --device 99 devices 2>&1); check "--device 99" 2 $?
grep -q "device 99" <<<"$out" && grep -q "valid device indices are 0\.\." <<<"$out" ||
  { echo "FAIL bad device message: $out"; fail=1; }
out=$(DRAPE_DEVICE=99 "$D" devices 2>&1); check "DRAPE_DEVICE=99" 2 $?
out=$(DRAPE_DEVICE=abc "$D" devices 2>&1); check "DRAPE_DEVICE=abc" 2 $?
grep -q "DRAPE_DEVICE" <<<"$out" || { echo "FAIL env message: $out"; fail=1; }
out=$("$D" frobnicate 2>&1); check "unknown command" 2 $?
grep -q "usage:" <<<"$out" || { echo "FAIL unknown command prints no usage"; fail=1; }
out=$("$D" --frob 2>&1); check "unknown flag" 2 $?
grep -q "usage:" <<<"$out" || { echo "FAIL unknown flag prints no usage"; fail=1; }
out=$("$D" devices --frob 2>&1); check "unknown subcommand flag" 2 $?
out=$("$D" 2>&1); check "no command" 2 $?
exit $fail
