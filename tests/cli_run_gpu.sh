#!/usr/bin/env bash
# bench/run-gpu --dry (issue 15): the GPU script runs on this machine's
# OpenCL device with the GPU kernel form forced and tiny sizes, writes the
# bench results with that form recorded, and the report of a GPU run: the
# device's name, driver and OpenCL version, and the projection's achieved
# bandwidth against the peak given by --peak-gbs; at most 8 files (what the
# device tool brings back).
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
if OUT="$T/out" DRAPE_EXE="$D" bash "$S/bench/run-gpu" --dry --peak-gbs 50 >"$T/log" 2>&1; then
  echo "ok   run-gpu --dry exits 0"
else
  echo "FAIL run-gpu --dry:"; cat "$T/log"; fail=1
fi
for f in devices.txt bench.txt bench.json bench.csv run-gpu.log report.md report.json results.tar.gz; do
  [[ -s "$T/out/$f" ]] && echo "ok   $f written" || { echo "FAIL no $f"; fail=1; }
done
nf=$(ls "$T/out" | wc -l)
[[ $nf -le 8 ]] && echo "ok   $nf files (at most 8)" || { echo "FAIL $nf files: $(ls "$T/out")"; fail=1; }
tar -tzf "$T/out/results.tar.gz" | grep -qx bench.json && echo "ok   results.tar.gz holds bench.json" \
  || { echo "FAIL results.tar.gz: $(tar -tzf "$T/out/results.tar.gz" | tr '\n' ' ')"; fail=1; }
python3 - "$T/out" <<'PY' || fail=1
import json, math, os, sys
d = sys.argv[1]
cases = json.load(open(os.path.join(d, "bench.json")))["cases"]
forms = sorted({c["kernel_form"] for c in cases})
selfs = sorted({c["self_collision"] for c in cases})
ok = len(cases) == 4 and forms == ["gpu"] and selfs == [False, True] and all(c["ok"] for c in cases)
print(("ok  " if ok else "FAIL"), "bench.json:", len(cases), "cases, forms", forms, "self", selfs)
rep = json.load(open(os.path.join(d, "report.json")))
bad = []
for r in rep["cases"]:
    if r["kernel_form"] != "gpu": bad.append("form %s" % r["kernel_form"])
    if not r["device"] or not r["driver"]: bad.append("device %r driver %r" % (r["device"], r["driver"]))
    if not (r["device_version"] or "").startswith("OpenCL "): bad.append("version %r" % r["device_version"])
    g = r["project_gbs"]
    # bytes: substeps x constraints x 80 B (iterations 1)
    if r["project_bytes_frame"] != r["substeps"] * r["constraints"] * 80.0: bad.append("bytes")
    if not (g and math.isfinite(g) and 0.001 < g < 10000): bad.append("GB/s %r" % g)
    if r["peak_gbs"] != 50 or r["peak_source"] != "--peak-gbs": bad.append("peak %r" % r["peak_gbs"])
    f = r["project_fraction_of_peak"]
    if not (f and abs(f - g / 50) < 1e-9): bad.append("fraction %r" % f)
    if not (r["fps"] and abs(r["fps"] * r["ms_frame"] - 1000) < 1e-6): bad.append("fps")
ok = not bad and len(rep["cases"]) == 4 and any("bandwidth" in t["what"] for t in rep["targets"])
print(("ok  " if ok else "FAIL"), "report.json: device %r, driver %r, projection %.3g-%.3g GB/s of 50"
      % (rep["cases"][0]["device"], rep["cases"][0]["driver"],
         min(r["project_gbs"] or 0 for r in rep["cases"]),
         max(r["project_gbs"] or 0 for r in rep["cases"])), bad)
md = open(os.path.join(d, "report.md")).read()
ok2 = "driver" in md and "project GB/s" in md and "## Targets (issue 15)" in md
print(("ok  " if ok2 else "FAIL"), "report.md has the device, the table and the targets")
sys.exit(0 if ok and ok2 else 1)
PY
# the peak given by hand must be a number
if OUT="$T/bad" DRAPE_EXE="$D" bash "$S/bench/run-gpu" --dry --peak-gbs fast >"$T/bad.log" 2>&1; then
  echo "FAIL --peak-gbs fast accepted"; fail=1
else
  rc=$?
  grep -q -- '--peak-gbs "fast": expected a positive number of GB/s' "$T/bad.log" && [[ $rc == 2 ]] \
    && echo "ok   --peak-gbs fast: exit 2 naming it" || { echo "FAIL --peak-gbs fast: rc $rc: $(cat "$T/bad.log")"; fail=1; }
fi
# the table of peaks: the longest name that matches
python3 - "$S/bench/gpu_report.py" <<'PY' || fail=1
import importlib.util, sys
spec = importlib.util.spec_from_file_location("gpu_report", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
got = {n: m.peak_for(n) for n in ("NVIDIA H200", "NVIDIA A100 80GB PCIe", "NVIDIA A10",
                                  "NVIDIA A100-SXM4-40GB", "pthread-skylake")}
want = {"NVIDIA H200": 4800.0, "NVIDIA A100 80GB PCIe": 1935.0, "NVIDIA A10": 600.0,
        "NVIDIA A100-SXM4-40GB": 1555.0, "pthread-skylake": None}
ok = all((got[k][1] if got[k] else None) == v for k, v in want.items())
print(("ok  " if ok else "FAIL"), "peak table:", {k: v and v[1] for k, v in got.items()})
sys.exit(0 if ok else 1)
PY
exit $fail
