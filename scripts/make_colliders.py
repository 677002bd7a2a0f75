#!/usr/bin/env python3
"""Writes the collider meshes of meshes/ (docs/scenes.md "Mesh colliders").

python3 only, no downloads, deterministic:

  python3 scripts/make_colliders.py     # meshes/sphere_5k.obj, meshes/box.obj

sphere_5k.obj: a closed UV sphere of radius 1 about the origin, 50 segments
by 50 rings (4900 triangles, 2452 vertices), outward winding, vertices on
the sphere (the facets lie inside it by at most r (1 - cos(pi/50)) = 2 mm
per metre of radius).
box.obj: the closed unit cube [-0.5, 0.5]^3, each face split into 2 x 2
squares (48 triangles), outward winding.
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "meshes")


def write_obj(path, verts, tris, comment):
    with open(path, "w") as f:
        f.write("# %s\n# written by scripts/make_colliders.py\n" % comment)
        for v in verts:
            f.write("v %.9g %.9g %.9g\n" % v)
        for t in tris:
            f.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))


def uv_sphere(seg, rings):
    verts = [(0.0, 1.0, 0.0)]
    for r in range(1, rings):
        th = math.pi * r / rings
        for s in range(seg):
            ph = 2 * math.pi * s / seg
            verts.append((math.sin(th) * math.cos(ph), math.cos(th), -math.sin(th) * math.sin(ph)))
    verts.append((0.0, -1.0, 0.0))
    south = len(verts) - 1

    def ring(r, s):
        return 1 + (r - 1) * seg + (s % seg)

    tris = []
    for s in range(seg):
        tris.append((0, ring(1, s), ring(1, s + 1)))
    for r in range(1, rings - 1):
        for s in range(seg):
            a, b, c, d = ring(r, s), ring(r + 1, s), ring(r + 1, s + 1), ring(r, s + 1)
            tris.append((a, b, c))
            tris.append((a, c, d))
    for s in range(seg):
        tris.append((ring(rings - 1, s), south, ring(rings - 1, s + 1)))
    return verts, tris


def cube(n):
    verts, tris, index = [], [], {}

    def vid(p):
        key = tuple(round(c * 2 * n) for c in p)
        if key not in index:
            index[key] = len(verts)
            verts.append(p)
        return index[key]

    # each face: origin corner, two edge directions whose cross is outward
    faces = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for sign in (-1, 1):
            o = [0.0] * 3
            o[axis] = 0.5 * sign
            eu = [0.0] * 3
            ev = [0.0] * 3
            eu[u] = 1.0
            ev[v] = 1.0
            if sign < 0:
                eu, ev = ev, eu
            faces.append((o, eu, ev))
    for o, eu, ev in faces:
        base = [o[q] - 0.5 * eu[q] - 0.5 * ev[q] for q in range(3)]
        for i in range(n):
            for j in range(n):
                def p(a, b):
                    return tuple(base[q] + eu[q] * a / n + ev[q] * b / n for q in range(3))
                a, b, c, d = vid(p(i, j)), vid(p(i + 1, j)), vid(p(i + 1, j + 1)), vid(p(i, j + 1))
                tris.append((a, b, c))
                tris.append((a, c, d))
    return verts, tris


def main():
    os.makedirs(OUT, exist_ok=True)
    v, t = uv_sphere(50, 50)
    write_obj(os.path.join(OUT, "sphere_5k.obj"), v, t, "UV sphere, radius 1, %d triangles" % len(t))
    v, t = cube(2)
    write_obj(os.path.join(OUT, "box.obj"), v, t, "unit cube, %d triangles" % len(t))


if __name__ == "__main__":
    main()
