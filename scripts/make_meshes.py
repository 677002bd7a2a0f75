#!/usr/bin/env python3
"""Writes the triangle meshes of meshes/ (docs/scenes.md "Mesh cloth").

python3 only, no downloads, deterministic (a fixed seed per mesh), so the
files in the repository are exactly what this script writes:

  python3 scripts/make_meshes.py            # meshes/*.obj, meshes/skirt_seams.json,
                                            # meshes/specimen_30cm_clamp.json
                                            # (the cloth meshes; colliders:
                                            # scripts/make_colliders.py)
  python3 scripts/make_meshes.py --square N --size S --out FILE
                                            # an irregular N x N-point square
                                            # (e.g. 256: 65k vertices, for drape bench)

Every mesh is an irregular triangulation: jittered points (no two closer
than 0.6 of the mean spacing) joined by a Delaunay triangulation written
here (Bowyer-Watson: each point removes the triangles whose circumcircle
holds it and fans the hole's boundary to itself). Not a grid: vertices
have 4 to 8 neighbours and no edge directions repeat.

OBJ files list their vertices in the order the faces first use them, the
order drape numbers a mesh's vertices in, so the indices in
skirt_seams.json and in scenes' pin_vertices are the file's own. Each
vertex has a UV (vt): its planar coordinates over the panel, 0..1.
"""
import argparse
import json
import math
import os
import random


def delaunay(pts):
    """Triangles (i, j, k), counter-clockwise, of the Delaunay triangulation
    of pts (a list of (x, y)), inserted in the given order (keep it spatially
    coherent: each search starts from the last triangle made)."""
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    r = max(max(xs) - min(xs), max(ys) - min(ys)) * 20 + 1
    P = list(pts) + [(cx - r, cy - r), (cx + r, cy - r), (cx, cy + r)]
    n = len(pts)
    tris = {}      # id -> (a, b, c, ccx, ccy, rr)
    edge = {}      # directed edge (u, v) -> triangle id that has it
    next_id = [0]

    def add(a, b, c):
        ax, ay = P[a]
        bx, by = P[b]
        qx, qy = P[c]
        d = 2 * (ax * (by - qy) + bx * (qy - ay) + qx * (ay - by))
        ux = ((ax * ax + ay * ay) * (by - qy) + (bx * bx + by * by) * (qy - ay) +
              (qx * qx + qy * qy) * (ay - by)) / d
        uy = ((ax * ax + ay * ay) * (qx - bx) + (bx * bx + by * by) * (ax - qx) +
              (qx * qx + qy * qy) * (bx - ax)) / d
        t = next_id[0]
        next_id[0] += 1
        tris[t] = (a, b, c, ux, uy, (ax - ux) ** 2 + (ay - uy) ** 2)
        edge[(a, b)] = t
        edge[(b, c)] = t
        edge[(c, a)] = t
        return t

    last = add(n, n + 1, n + 2)

    def orient(a, b, px, py):
        ax, ay = P[a]
        bx, by = P[b]
        return (bx - ax) * (py - ay) - (by - ay) * (px - ax)

    for i in range(n):
        px, py = P[i]
        # walk to the triangle that holds the point
        t = last if last in tris else next(iter(tris))
        while True:
            a, b, c = tris[t][:3]
            moved = False
            for u, v in ((a, b), (b, c), (c, a)):
                if orient(u, v, px, py) < 0 and (v, u) in edge:
                    t = edge[(v, u)]
                    moved = True
                    break
            if not moved:
                break
        # the cavity: triangles whose circumcircle holds the point
        bad = {t}
        stack = [t]
        while stack:
            s = stack.pop()
            a, b, c = tris[s][:3]
            for u, v in ((a, b), (b, c), (c, a)):
                o = edge.get((v, u))
                if o is None or o in bad:
                    continue
                _, _, _, ux, uy, rr = tris[o]
                if (px - ux) ** 2 + (py - uy) ** 2 < rr:
                    bad.add(o)
                    stack.append(o)
        boundary = []
        for s in bad:
            a, b, c = tris[s][:3]
            for u, v in ((a, b), (b, c), (c, a)):
                if edge.get((v, u)) not in bad:
                    boundary.append((u, v))
        for s in bad:
            a, b, c = tris[s][:3]
            for u, v in ((a, b), (b, c), (c, a)):
                if edge.get((u, v)) == s:
                    del edge[(u, v)]
            del tris[s]
        for u, v in boundary:
            last = add(u, v, i)
    out = []
    for a, b, c, _, _, _ in tris.values():
        if a >= n or b >= n or c >= n:
            continue
        ax, ay = P[a]
        bx, by = P[b]
        qx, qy = P[c]
        area2 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
        longest = max((bx - ax) ** 2 + (by - ay) ** 2, (qx - ax) ** 2 + (qy - ay) ** 2,
                      (qx - bx) ** 2 + (qy - by) ** 2)
        if area2 > 1e-9 * longest:  # slivers of collinear boundary points
            out.append((a, b, c))
    out.sort(key=lambda t: min(t))
    return out


def rect_points(nx, ny, w, h, seed, jitter=0.2, edge_jitter=0.2):
    """Jittered points over [0, w] x [0, h]: nx x ny cells, one point each,
    moved up to `jitter` of a cell; points on the border stay on it (moved
    along it), the corners stay put. Returned row by row, serpentine, so
    that each insertion starts next to the last one."""
    rng = random.Random(seed)
    dx, dy = w / (nx - 1), h / (ny - 1)
    pts = []
    for j in range(ny):
        cols = range(nx) if j % 2 == 0 else range(nx - 1, -1, -1)
        for i in cols:
            x = w if i == nx - 1 else i * dx
            y = h if j == ny - 1 else j * dy
            on_x = i in (0, nx - 1)
            on_y = j in (0, ny - 1)
            if not on_x:
                x += rng.uniform(-1, 1) * (edge_jitter if on_y else jitter) * dx
            if not on_y:
                y += rng.uniform(-1, 1) * (edge_jitter if on_x else jitter) * dy
            pts.append((x, y))
    return pts


def first_use_order(tris, n):
    """Renumbers vertices in the order the triangles first use them (what
    drape does on load); returns (old -> new, triangles renumbered)."""
    new = [-1] * n
    k = 0
    out = []
    for t in tris:
        r = []
        for v in t:
            if new[v] < 0:
                new[v] = k
                k += 1
            r.append(new[v])
        out.append(tuple(r))
    return new, out


def write_obj(path, comment, xyz, uv, tris):
    """xyz, uv indexed by the original vertex; written in first-use order."""
    new, ntris = first_use_order(tris, len(xyz))
    order = [0] * (max(new) + 1)
    for old, k in enumerate(new):
        if k >= 0:
            order[k] = old
    with open(path, "w") as f:
        f.write("# %s\n# written by scripts/make_meshes.py: %d vertices, %d triangles\n"
                % (comment, len(order), len(ntris)))
        for old in order:
            f.write("v %.7g %.7g %.7g\n" % tuple(xyz[old]))
        for old in order:
            f.write("vt %.7g %.7g\n" % tuple(uv[old]))
        for a, b, c in ntris:
            f.write("f %d/%d %d/%d %d/%d\n" % (a + 1, a + 1, b + 1, b + 1, c + 1, c + 1))
    return new


def square(n, size, seed):
    """An irregular triangulation of a size x size square in the xz plane
    (y = 0), centred on the origin, n x n points."""
    pts = rect_points(n, n, size, size, seed)
    tris = delaunay(pts)
    # (x, y) in the plane -> (x, 0, z); triangles counter-clockwise seen
    # from +y: the plane's (x, y) -> (x, z) flips orientation, so swap
    xyz = [(x - size / 2, 0.0, y - size / 2) for x, y in pts]
    uv = [(x / size, y / size) for x, y in pts]
    tris = [(a, c, b) for a, b, c in tris]
    return xyz, uv, tris


def disk(rings, radius, seed, exact=()):
    """An irregular triangulation of a disk in the xz plane: rings of points
    with about the same spacing, each ring turned by a random angle. The
    outer ring lies on the circle; so do the rings numbered in `exact`
    (their points are not moved in or out), so that a circle inside the
    disk is an edge path of the mesh (the support disk's rim under a
    Cusick specimen)."""
    rng = random.Random(seed)
    pts = [(0.0, 0.0)]
    for k in range(1, rings + 1):
        r = radius * k / rings
        m = max(6, int(round(2 * math.pi * k)))
        off = rng.uniform(0, 2 * math.pi)
        for i in range(m):
            a = off + 2 * math.pi * i / m
            rr = r if k == rings else r + rng.uniform(-0.2, 0.2) * radius / rings
            if k in exact:
                rr = r
            pts.append((rr * math.cos(a), rr * math.sin(a)))
    tris = delaunay(pts)
    xyz = [(x, 0.0, y) for x, y in pts]
    uv = [(0.5 + x / (2 * radius), 0.5 + y / (2 * radius)) for x, y in pts]
    tris = [(a, c, b) for a, b, c in tris]
    return xyz, uv, tris


def tube(nu, nv, radius, height, seed):
    """An open cylinder about the y axis from y = 0 to height: an irregular
    triangulation of the unrolled rectangle, rolled up, its two side
    borders (which get the same heights) joined into one seam."""
    circ = 2 * math.pi * radius
    pts = rect_points(nu + 1, nv, circ, height, seed, edge_jitter=0.0)
    tris = delaunay(pts)
    # join the right border to the left one: same height, same vertex
    left = {}
    for i, (x, y) in enumerate(pts):
        if x == 0.0:
            left[round(y, 12)] = i
    remap = list(range(len(pts)))
    for i, (x, y) in enumerate(pts):
        if x == circ:
            remap[i] = left[round(y, 12)]
    tris = [(remap[a], remap[b], remap[c]) for a, b, c in tris]
    xyz = []
    for x, y in pts:
        a = x / radius
        xyz.append((radius * math.cos(a), y, -radius * math.sin(a)))
    uv = [(x / circ, y / height) for x, y in pts]
    return xyz, uv, tris


def skirt_panel(seed, z, flip):
    """One flat panel of a skirt: a trapezoid in the plane z = const, 0.9 m
    wide at the hem (y = 0.2), 0.6 m at the waist (y = 0.75). Its left and
    right borders get the same heights on both panels (the seams)."""
    nx, ny = 19, 12
    pts = rect_points(nx, ny, 1.0, 1.0, seed, jitter=0.2, edge_jitter=0.0)
    tris = delaunay(pts)
    hem, waist, y0, y1 = 0.9, 0.6, 0.2, 0.75
    xyz = []
    for u, v in pts:
        w = hem + (waist - hem) * v
        x = (u - 0.5) * w
        xyz.append((-x if flip else x, y0 + (y1 - y0) * v, z))
    uv = list(pts)
    if flip:
        tris = [(a, c, b) for a, b, c in tris]
    left = [i for _, i in sorted((v, i) for i, (u, v) in enumerate(pts) if u == 0.0)]
    right = [i for _, i in sorted((v, i) for i, (u, v) in enumerate(pts) if u == 1.0)]
    # the border on the -x side first (mirrored, the back's u = 1 border is)
    return (xyz, uv, tris, right, left) if flip else (xyz, uv, tris, left, right)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--square", type=int, help="only an irregular N x N-point square")
    ap.add_argument("--size", type=float, default=2.55, help="its side in m (default 2.55)")
    ap.add_argument("--out", help="its file")
    a = ap.parse_args()
    if a.square:
        xyz, uv, tris = square(a.square, a.size, 7)
        write_obj(a.out, "irregular square, %d x %d points, %g m" % (a.square, a.square, a.size),
                  xyz, uv, tris)
        return
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "meshes")
    os.makedirs(here, exist_ok=True)
    # the main scene's sheet (64 x 64, 2.205 m) as an irregular mesh
    xyz, uv, tris = square(64, 2.205, 1)
    write_obj(os.path.join(here, "square_irregular.obj"),
              "irregular square, 2.205 m side, 64 x 64 jittered points (the main scene's sheet)",
              xyz, uv, tris)
    xyz, uv, tris = square(12, 0.5, 2)
    write_obj(os.path.join(here, "square_small.obj"),
              "irregular square, 0.5 m side, 12 x 12 jittered points (tests)", xyz, uv, tris)
    xyz, uv, tris = disk(12, 0.6, 3)
    write_obj(os.path.join(here, "disk.obj"), "irregular disk, 0.6 m radius, 12 rings", xyz, uv, tris)
    # Cusick drape specimens (ISO 9073-9, BS 5058): 30 cm across, at two
    # mesh sizes (7.5 and 5 mm between rings) for the resolution check of
    # tests/test_cusick.c; ring 0.6 rings lies on r = 9 cm, the rim of the
    # 18 cm support disk. The standard clamps the specimen between two disks
    # of that size: specimen_30cm_clamp.json lists, per mesh, the vertices
    # within r <= 9 cm (scenes/cusick.json pins the r20 list).
    clamp = {}
    for rings, seed in ((20, 8), (30, 9)):
        xyz, uv, tris = disk(rings, 0.15, seed, exact=(rings * 3 // 5,))
        name = "specimen_30cm_r%d" % rings
        new = write_obj(os.path.join(here, name + ".obj"),
                        "Cusick drape specimen, 0.15 m radius, %d rings (%.2f mm apart), ring %d "
                        "on r = 0.09 m" % (rings, 150.0 / rings, rings * 3 // 5), xyz, uv, tris)
        clamp[name] = sorted(new[i] for i, (x, _, z) in enumerate(xyz)
                             if new[i] >= 0 and math.hypot(x, z) <= 0.09 + 1e-6)
    with open(os.path.join(here, "specimen_30cm_clamp.json"), "w") as f:
        f.write("{\n \"comment\": \"vertex indices (first-use order, as in the OBJ files) of the "
                "Cusick specimens within r <= 0.09 m of their centre: the part clamped on the 18 cm "
                "support disk\",\n" + ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(v))
                                                for k, v in clamp.items()) + "\n}\n")
    xyz, uv, tris = tube(24, 12, 0.15, 0.5, 4)
    write_obj(os.path.join(here, "tube.obj"), "open tube, 0.15 m radius, 0.5 m high", xyz, uv, tris)
    seams = {}
    for name, seed, z, flip in (("front", 5, 0.3, False), ("back", 6, -0.3, True)):
        xyz, uv, tris, minus, plus = skirt_panel(seed, z, flip)
        new = write_obj(os.path.join(here, "skirt_%s.obj" % name),
                        "skirt %s panel, flat at z = %g" % (name, z), xyz, uv, tris)
        seams[name] = {"minus_x": [new[i] for i in minus], "plus_x": [new[i] for i in plus]}
    out = {"comment": "vertex indices (first-use order, as in the OBJ files) along the side "
                      "borders of the skirt panels, hem to waist; stitch front_minus_x to "
                      "back_minus_x and front_plus_x to back_plus_x",
           "front_minus_x": seams["front"]["minus_x"], "back_minus_x": seams["back"]["minus_x"],
           "front_plus_x": seams["front"]["plus_x"], "back_plus_x": seams["back"]["plus_x"]}
    with open(os.path.join(here, "skirt_seams.json"), "w") as f:
        f.write("{\n" + ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(v))
                                    for k, v in out.items()) + "\n}\n")


if __name__ == "__main__":
    main()
