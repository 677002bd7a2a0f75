#!/usr/bin/env python3
"""Resolution convergence of the main drape (scenes/drape_sphere.json).

The same 2.205 m cotton cloth (the scene's material) is run as an n x n grid
for each n, spacing 2.205 / (n - 1), everything else as in the scene except
self-collision (off: the shape of the drape, not its contacts, which cost
20x). For each size it records, averaged over the last second of the run,
the covered area (the footprint on the floor plane, m^2) and the lowest
point (m), and at the end the mean and max strain and the constraint
residual; then the differences between successive sizes, which shrink as
the discretisation converges.

Usage: bench/drape_convergence.py [--drape PATH] [--sizes 64,128,256,512]
                                  [--frames 240] [--out DIR]
Writes DIR/convergence.csv, convergence.json and convergence.png (gnuplot).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--drape", default=os.path.join(ROOT, "build", "drape"))
    ap.add_argument("--scene", default=os.path.join(ROOT, "scenes", "drape_sphere.json"))
    ap.add_argument("--sizes", default="64,128,256,512")
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--backend", default="cl", choices=["cl", "cpu"])
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "latest"))
    a = ap.parse_args()
    try:
        sizes = [int(s) for s in a.sizes.split(",")]
    except ValueError:
        sys.exit("drape_convergence: --sizes %r: expected a comma list of whole numbers" % a.sizes)
    if any(n < 8 or n > 2048 for n in sizes):
        sys.exit("drape_convergence: --sizes: each size must be 8..2048")
    if a.frames < 60:
        sys.exit("drape_convergence: --frames %d: at least 60 (the last second is averaged)" % a.frames)
    if not os.access(a.drape, os.X_OK):
        sys.exit("drape_convergence: %s is not an executable (build drape first)" % a.drape)
    base = json.load(open(a.scene))
    cloth = base["cloth"][0]
    side = cloth["grid"]["spacing"] * (cloth["grid"]["cols"] - 1)
    os.makedirs(a.out, exist_ok=True)
    rows = []
    tmp = tempfile.mkdtemp(prefix="drape_conv_")
    try:
        for n in sizes:
            s = json.loads(json.dumps(base))
            c = s["cloth"][0]
            c["grid"]["cols"] = c["grid"]["rows"] = n
            c["grid"]["spacing"] = side / (n - 1)
            c["self_collision"] = False
            c.pop("self_collision_bounds", None)
            path = os.path.join(tmp, "drape_%d.json" % n)
            json.dump(s, open(path, "w"))
            stats = os.path.join(tmp, "stats_%d.json" % n)
            t0 = time.time()
            r = subprocess.run([a.drape, "run", path, "--frames", str(a.frames), "--stats", stats,
                                "--backend", a.backend], capture_output=True, text=True)
            wall = time.time() - t0
            if r.returncode != 0:
                sys.exit("drape_convergence: %d x %d failed (exit %d): %s"
                         % (n, n, r.returncode, r.stderr.strip()[-500:]))
            fr = json.load(open(stats))["frames"]
            last = fr[-60:]
            o = [f["objects"][0] for f in last]
            row = {
                "n": n,
                "spacing_m": side / (n - 1),
                "covered_area_m2": sum(x["covered_area"] for x in o) / len(o),
                "lowest_m": sum(x["lowest"] for x in o) / len(o),
                "mean_strain": o[-1]["mean_strain"],
                "max_strain": o[-1]["max_strain"],
                "residual": o[-1].get("residual", float("nan")),
                "wall_s": wall,
                "series_covered_area_m2": [f["objects"][0]["covered_area"] for f in fr],
                "series_lowest_m": [f["objects"][0]["lowest"] for f in fr],
            }
            rows.append(row)
            print("%5d  spacing %.4f m  covered %.4f m^2  lowest %.4f m  mean strain %.3f %%  "
                  "max %.1f %%  (%.0f s)" % (n, row["spacing_m"], row["covered_area_m2"],
                                             row["lowest_m"], 100 * row["mean_strain"],
                                             100 * row["max_strain"], wall), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for i in range(1, len(rows)):
        rows[i]["d_covered_area_m2"] = rows[i]["covered_area_m2"] - rows[i - 1]["covered_area_m2"]
        rows[i]["d_lowest_m"] = rows[i]["lowest_m"] - rows[i - 1]["lowest_m"]
    keys = ["n", "spacing_m", "covered_area_m2", "lowest_m", "d_covered_area_m2", "d_lowest_m",
            "mean_strain", "max_strain", "residual", "wall_s"]
    with open(os.path.join(a.out, "convergence.csv"), "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join("%.6g" % r[k] if k in r else "" for k in keys) + "\n")
    json.dump({"scene": os.path.relpath(a.scene, ROOT), "frames": a.frames,
               "backend": a.backend, "rows": rows},
              open(os.path.join(a.out, "convergence.json"), "w"), indent=1)
    print("\n    n  covered (m^2)  change   lowest (m)  change")
    for r in rows:
        print("%5d  %12.4f  %7s  %10.4f  %7s" % (
            r["n"], r["covered_area_m2"],
            "%+.4f" % r["d_covered_area_m2"] if "d_covered_area_m2" in r else "",
            r["lowest_m"], "%+.4f" % r["d_lowest_m"] if "d_lowest_m" in r else ""))
    if shutil.which("gnuplot"):
        dat = os.path.join(a.out, "convergence.dat")
        with open(dat, "w") as f:
            for r in rows:
                f.write("%d %.6g %.6g\n" % (r["n"], r["covered_area_m2"], r["lowest_m"]))
        gp = ("set terminal png size 800,500; set output '%s';"
              "set logscale x 2; set xlabel 'particles per side';"
              "set ylabel 'covered area (m^2)'; set y2label 'lowest point (m)';"
              "set ytics nomirror; set y2tics; set key top left;"
              "set title 'Main drape (cotton\\_shirting): convergence with resolution';"
              "plot '%s' u 1:2 w lp lw 2 t 'covered area' axes x1y1,"
              " '' u 1:3 w lp lw 2 t 'lowest point' axes x1y2"
              % (os.path.join(a.out, "convergence.png"), dat))
        r = subprocess.run(["gnuplot", "-e", gp], capture_output=True, text=True)
        os.remove(dat)
        if r.returncode != 0:
            sys.exit("drape_convergence: gnuplot failed: %s" % r.stderr.strip())
    print("wrote %s/convergence.csv, convergence.json%s" % (
        a.out, " and convergence.png" if shutil.which("gnuplot") else ""))


if __name__ == "__main__":
    main()
