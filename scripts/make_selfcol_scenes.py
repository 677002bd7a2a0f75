#!/usr/bin/env python3
"""Writes the self-collision cases of issue 18 (docs/selfcollision.md,
"Cases and measurements") into scenes/.

python3 only, deterministic:

  python3 scripts/make_selfcol_scenes.py

twist.json          the cloth-twist benchmark: a 50x50 cloth, 1 m, no gravity,
                    its left and right edges (columns 0 and 49) pinned and
                    turned in opposite directions at pi/3 rad/s about the
                    cloth's middle line (the x axis), stretch and shear
                    compliance 1e-3, self-collision vertex-triangle, 10 s.
                    The pins follow keyed paths, one key every 1/12 s (the
                    chord of a 5 degree step is 0.5 mm off the circle at the
                    cloth's edge).
                    python3 scripts/make_selfcol_scenes.py --inext PATH writes
                    the same with stretch compliance 0 to PATH (not kept in
                    scenes/: 400 kB of keys once is enough; the tests set the
                    compliance through the API).
stack10.json        ten 24x24 sheets (0.92 m) stacked 4 cm apart, dropped
                    on a sphere.
fold.json           a 40x40 sheet (0.78 m) lying on the floor; its far edge
                    is carried by two pins over the near half and laid down
                    on it.
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "scenes")


def num(v):
    """Short decimals: 6 significant digits are 1 um at 1 m."""
    s = "%.6g" % v
    return 0.0 if s in ("-0", "0") else float(s)


def twist(stretch, name, desc):
    n, size = 50, 1.0
    sp = size / (n - 1)
    omega, seconds, per_key = math.pi / 3, 10.0, 1.0 / 12
    keys_n = int(round(seconds / per_key))
    paths = []
    for col, sign in ((0, 1.0), (n - 1, -1.0)):
        x = -0.5 + col * sp
        for row in range(n):
            z0 = -0.5 + row * sp
            keys = []
            for k in range(keys_n + 1):
                t = k * per_key
                a = sign * omega * t
                keys.append([num(t), num(x), num(-z0 * math.sin(a)), num(z0 * math.cos(a))])
            paths.append({"pin": [row, col], "keys": keys})
    return {
        "description": desc,
        "gravity": [0, 0, 0],
        "dt": 0.016666, "substeps": 20, "iterations": 1,
        "frames": 600,
        "cloth": [{
            "name": name,
            "grid": {"cols": n, "rows": n, "spacing": num(sp),
                     "origin": [-0.5, 0.0, -0.5], "plane": "xz"},
            "mass_per_area": 0.2,
            "compliance": {"stretch": stretch, "shear": 1e-3, "bend": 1e-3},
            "damping": 0.05, "thickness": 0.01,
            "self_collision": True, "self_collision_mode": "vertex-triangle", "self_collision_bounds": True,
            "pin_paths": paths}],
        "camera": {"eye": [0.0, 1.2, 2.2], "target": [0, 0, 0], "fov_deg": 40},
        "render": {"width": 1280, "height": 720},
    }


def stack10():
    cloths = []
    for k in range(10):
        cloths.append({
            "name": "sheet%d" % k,
            "grid": {"cols": 24, "rows": 24, "spacing": 0.04,
                     "origin": [num(-0.46 + 0.013 * k), num(1.0 + 0.04 * k),
                                num(-0.46 - 0.011 * k)], "plane": "xz"},
            "mass_per_area": 0.2, "thickness": 0.01,
            "compliance": {"stretch": 0, "shear": 1e-6, "bend": 1e-3},
            "self_collision": True, "self_collision_bounds": True})
    return {
        "description": "Issue 18: ten 24x24 sheets (0.92 m, spacing 0.04 = 4x their "
                       "thickness), stacked 4 cm apart and offset a little, dropped on a sphere.",
        "gravity": [0, -9.81, 0],
        "dt": 0.016666, "substeps": 20, "iterations": 1,
        "frames": 240,
        "cloth": cloths,
        "sphere": [{"center": [0, 0.5, 0], "radius": 0.35, "friction": 0.3}],
        "floor": {"height": 0, "friction": 0.5},
        "camera": {"eye": [1.9, 1.5, 2.3], "target": [0, 0.5, 0], "fov_deg": 40},
        "render": {"width": 1280, "height": 720},
    }


def fold():
    n, sp = 40, 0.02
    L = (n - 1) * sp
    x0, z0, y0 = -L / 2, -L / 2, 0.012
    paths = []
    for col in (0, n - 1):
        x = x0 + col * sp
        # the far edge (row n-1, z = +L/2) goes up, over and down onto the
        # near half (z = -L/2 + a little), in 1.5 s, then is held there
        keys = [[0.0, x, y0, z0 + L], [0.5, x, 0.35, z0 + 0.7 * L],
                [1.0, x, 0.3, z0 + 0.2 * L], [1.5, x, 0.035, z0 + 0.04]]
        paths.append({"pin": [n - 1, col], "keys": [[num(v) for v in k] for k in keys]})
    return {
        "description": "Issue 18: a 40x40 sheet (0.78 m, spacing 0.02 = 2x its thickness) "
                       "lying on the floor; two pins carry its far edge's corners up, over and "
                       "down onto the near half, so the sheet folds onto itself, and hold them.",
        "gravity": [0, -9.81, 0],
        "dt": 0.016666, "substeps": 20, "iterations": 1,
        "frames": 180,
        "cloth": [{
            "name": "sheet",
            "grid": {"cols": n, "rows": n, "spacing": sp,
                     "origin": [num(x0), y0, num(z0)], "plane": "xz"},
            "mass_per_area": 0.2, "thickness": 0.01,
            "compliance": {"stretch": 0, "shear": 1e-6, "bend": 1e-3},
            "damping": 0.05, "self_collision": True, "self_collision_bounds": True, "pin_paths": paths}],
        "floor": {"height": 0, "friction": 0.5},
        "camera": {"eye": [1.4, 1.0, 1.2], "target": [0, 0.05, 0], "fov_deg": 40},
        "render": {"width": 1280, "height": 720},
    }


def write(name, scene):
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        # one pin path per line keeps the file diffable and small
        json.dump(scene, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", os.path.relpath(path), os.path.getsize(path), "bytes")


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--inext":
        with open(sys.argv[2], "w") as f:
            json.dump(twist(0.0, "twist", "Issue 18: the cloth-twist benchmark with stretch "
                            "compliance 0 (inextensible). Written by "
                            "scripts/make_selfcol_scenes.py --inext."), f, separators=(",", ":"))
            f.write("\n")
        sys.exit(0)
    write("twist.json", twist(1e-3, "twist",
          "Issue 18, the cloth-twist benchmark: a 50x50 cloth (1 m), no gravity, its left and "
          "right edges pinned and turned in opposite directions at pi/3 rad/s about the cloth's "
          "middle line, stretch and shear compliance 1e-3, self-collision vertex-triangle. "
          "Written by scripts/make_selfcol_scenes.py."))
    write("stack10.json", stack10())
    write("fold.json", fold())
