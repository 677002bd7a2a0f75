#!/usr/bin/env python3
"""The report of bench/run-gpu (issue 15): reads RESULTS/bench.json (drape
bench) and RESULTS/devices.txt (drape devices) and writes RESULTS/report.md
and RESULTS/report.json: per case the kernel form, the device with its
driver and OpenCL version, ms/frame and fps, and the projection kernel's
achieved memory bandwidth next to the device's peak; and issue 15's targets
(1024², 20 substeps: >= 120 fps without self-collision, >= 30 fps with it;
projection bandwidth >= 50 % of the peak), met or not.

Bandwidth of the projection: the bytes one frame's projections must move,
divided by the projection's device time per frame (bench.json
stage_ms.project, from drape's event profile). Per constraint and
projection: its compliance, a, b and rest (4 x 4 B), both particles read
and written (4 x 16 B), 80 B; with iterations > 1 also its multiplier
(written in the first iteration, read and written in the others). That is
the least traffic a projection needs, the same for both kernel forms; a
cache that keeps particles between colours can make the figure exceed what
DRAM alone would give. Peak: OpenCL has no query for it (NVIDIA's
cl_nv_device_attribute_query gives no memory clock or bus width), so a
table of datasheet figures by device name, or --peak-gbs.

Standard library only: the GPU machine's python3 has no extra packages we
could rely on."""
import argparse
import json
import math
import os
import re
import sys

# Datasheet peak memory bandwidth, GB/s, by a piece of the OpenCL device
# name; the longest matching piece wins (so "A100 80GB PCIe" before "A100",
# "A100" before "A10").
PEAK_GBS = {
    "H200": 4800.0,          # NVIDIA H200 SXM, HBM3e
    "H100 NVL": 3900.0,
    "H100 PCIe": 2000.0,
    "H100": 3350.0,          # H100 SXM5, HBM3
    "GH200": 4000.0,
    "A100-SXM4-80GB": 2039.0,
    "A100 80GB PCIe": 1935.0,
    "A100": 1555.0,          # 40 GB
    "L40S": 864.0,
    "L40": 864.0,
    "L4": 300.0,
    "A10": 600.0,
    "V100": 900.0,
    "T4": 320.0,
    "RTX 4090": 1008.0,
    "RTX 3090": 936.0,
    "MI300X": 5300.0,
    "MI250X": 3277.0,
}

BYTES_PER_PROJECTION = 80  # compliance, a, b, rest; two float4 read + written
TARGET_FPS_OFF, TARGET_FPS_ON, TARGET_BW = 120.0, 30.0, 0.5


def peak_for(name):
    best = None
    for key, gbs in PEAK_GBS.items():
        if key.lower() in name.lower() and (best is None or len(key) > len(best[0])):
            best = (key, gbs)
    return best


def parse_devices(text):
    """{index: {name, type, driver, device_version, correct_div_sqrt}} from
    `drape devices`."""
    devs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^  device (\d+): (.*)$", line)
        if m:
            cur = {"name": m.group(2).strip()}
            devs[int(m.group(1))] = cur
            continue
        if cur is None:
            continue
        m = re.match(r"^    type (\S+),", line)
        if m:
            cur["type"] = m.group(1)
        m = re.match(r"^    driver (.*?), (OpenCL .*)$", line)
        if m:
            cur["driver"], cur["device_version"] = m.group(1), m.group(2)
        m = re.match(r"^    correctly rounded divide and sqrt: (\w+)", line)
        if m:
            cur["correct_div_sqrt"] = m.group(1) == "yes"
    return devs


def projection_bytes(c):
    iters, cons = c["iterations"], c["constraints"]
    per = BYTES_PER_PROJECTION * iters
    if iters > 1:
        per += 4 + 8 * (iters - 1)
    return float(c["substeps"]) * cons * per


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True, help="folder with bench.json and devices.txt")
    ap.add_argument("--peak-gbs", type=float, default=None,
                    help="the device's peak memory bandwidth, GB/s (overrides the table)")
    a = ap.parse_args()
    if a.peak_gbs is not None and not (a.peak_gbs > 0 and math.isfinite(a.peak_gbs)):
        sys.exit("gpu_report: --peak-gbs %r: expected a positive number of GB/s" % a.peak_gbs)
    bench = json.load(open(os.path.join(a.results, "bench.json")))
    devtxt = os.path.join(a.results, "devices.txt")
    devs = parse_devices(open(devtxt).read()) if os.path.exists(devtxt) else {}

    rows = []
    for c in bench["cases"]:
        m = re.match(r"^cl(\d+):(.*)$", c["backend"])
        dev = devs.get(int(m.group(1)), {}) if m else {}
        name = dev.get("name", m.group(2) if m else c["backend"])
        if a.peak_gbs is not None:
            peak, src = a.peak_gbs, "--peak-gbs"
        else:
            hit = peak_for(name)
            peak, src = (hit[1], "table: " + hit[0]) if hit else (None, "unknown")
        ms = c["ms_frame"]["median"]
        pms = c.get("stage_ms", {}).get("project", -1.0)
        pbytes = projection_bytes(c)
        gbs = pbytes / (pms * 1e-3) / 1e9 if pms and pms > 0 else None
        rows.append({
            "device": name, "device_index": int(m.group(1)) if m else None,
            "driver": dev.get("driver"), "device_version": dev.get("device_version"),
            "correct_div_sqrt": dev.get("correct_div_sqrt"),
            "kernel_form": c["kernel_form"], "n": c["n"], "particles": c["particles"],
            "constraints": c["constraints"], "substeps": c["substeps"],
            "iterations": c["iterations"], "self_collision": c["self_collision"],
            "ok": c["ok"], "status": c["status"],
            "ms_frame": ms, "fps": 1000.0 / ms if ms > 0 else None,
            "project_ms_frame": pms if pms >= 0 else None,
            "project_bytes_frame": pbytes, "project_gbs": gbs,
            "peak_gbs": peak, "peak_source": src,
            "project_fraction_of_peak": gbs / peak if gbs and peak else None,
        })

    # issue 15's targets, on the largest cloth at 20x1
    targets = []
    big = max((r["n"] for r in rows), default=0)
    for selfc, fps in ((False, TARGET_FPS_OFF), (True, TARGET_FPS_ON)):
        for r in rows:
            if r["n"] == big and r["substeps"] == 20 and r["iterations"] == 1 and \
               r["self_collision"] == selfc:
                targets.append({"what": "%d^2, 20x1, self-collision %s: >= %g fps" %
                                (big, "on" if selfc else "off", fps),
                                "device": r["device"], "value": r["fps"],
                                "met": bool(r["ok"] and r["fps"] and r["fps"] >= fps)})
    bw = [r for r in rows if r["n"] == big and r["project_fraction_of_peak"] is not None]
    if bw:
        r = max(bw, key=lambda r: r["project_fraction_of_peak"])
        targets.append({"what": "projection bandwidth >= 50 %% of the peak (%d^2)" % big,
                        "device": r["device"], "value": r["project_fraction_of_peak"],
                        "met": r["project_fraction_of_peak"] >= TARGET_BW})

    out = {"date": bench.get("date"), "commit": bench.get("commit"),
           "machine": bench.get("machine"), "frames": bench.get("frames"),
           "bytes_per_projection": BYTES_PER_PROJECTION, "cases": rows, "targets": targets}
    with open(os.path.join(a.results, "report.json"), "w") as f:
        json.dump(out, f, indent=1)

    def num(v, fmt):
        return fmt % v if v is not None else "-"

    lines = ["# drape on %s" % ", ".join(sorted({r["device"] for r in rows})), "",
             "%s, commit %s, %s frames per case (bench/run-gpu)." %
             (bench.get("date"), bench.get("commit"), bench.get("frames")), ""]
    for d in sorted({(r["device"], r["driver"], r["device_version"], r["correct_div_sqrt"])
                     for r in rows}, key=str):
        lines.append("- %s: driver %s, %s, correctly rounded divide/sqrt: %s" %
                     (d[0], d[1] or "?", d[2] or "?", {True: "yes", False: "no"}.get(d[3], "?")))
    lines += ["", "| form | n | particles | steps | self | ms/frame | fps | project ms | "
              "project GB/s | peak GB/s | of peak | ok |", "|" + "---|" * 12]
    for r in rows:
        lines.append("| %s | %d | %d | %dx%d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["kernel_form"], r["n"], r["particles"], r["substeps"], r["iterations"],
            "on" if r["self_collision"] else "off", num(r["ms_frame"], "%.3f"),
            num(r["fps"], "%.1f"), num(r["project_ms_frame"], "%.3f"),
            num(r["project_gbs"], "%.1f"), num(r["peak_gbs"], "%.0f"),
            num(r["project_fraction_of_peak"] and 100 * r["project_fraction_of_peak"], "%.1f %%"),
            "yes" if r["ok"] else r["status"]))
    lines += ["", "Peak: %s. Projection bytes: %d B per constraint and projection "
              "(bench/gpu_report.py)." % (", ".join(sorted({r["peak_source"] for r in rows})),
                                         BYTES_PER_PROJECTION), "", "## Targets (issue 15)", ""]
    for t in targets:
        v = t["value"]
        shown = "-" if v is None else ("%.1f %%" % (100 * v) if "bandwidth" in t["what"]
                                       else "%.1f fps" % v)
        lines.append("- %s: %s, %s" % (t["what"], shown, "met" if t["met"] else "NOT met"))
    if not targets:
        lines.append("- (no case at 20x1 to compare)")
    with open(os.path.join(a.results, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
