#!/usr/bin/env bash
# bench/run-gpu --dry (issue 15): the GPU script runs on this machine's
# OpenCL device with the GPU kernel form forced and tiny sizes, and writes
# the bench results with that form recorded.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
if OUT="$T/out" DRAPE_EXE="$D" bash "$S/bench/run-gpu" --dry >"$T/log" 2>&1; then
  echo "ok   run-gpu --dry exits 0"
else
  echo "FAIL run-gpu --dry:"; cat "$T/log"; fail=1
fi
for f in devices.txt bench.txt bench.json bench.csv run-gpu.log; do
  [[ -s "$T/out/$f" ]] && echo "ok   $f written" || { echo "FAIL no $f"; fail=1; }
done
python3 - "$T/out/bench.json" <<'PY' || fail=1
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
forms = sorted({c["kernel_form"] for c in cases})
selfs = sorted({c["self_collision"] for c in cases})
ok = len(cases) == 4 and forms == ["gpu"] and selfs == [False, True] and all(c["ok"] for c in cases)
print(("ok  " if ok else "FAIL"), "bench.json:", len(cases), "cases, forms", forms, "self", selfs)
sys.exit(0 if ok else 1)
PY
exit $fail
