#!/usr/bin/env python3
"""Writes the collider meshes of meshes/ (docs/scenes.md "Mesh colliders").

python3 only, no downloads, deterministic:

  python3 scripts/make_colliders.py     # meshes/sphere_5k.obj, meshes/box.obj,
                                        # meshes/mannequin.obj, meshes/cusick_support.obj

sphere_5k.obj: a closed UV sphere of radius 1 about the origin, 50 segments
by 50 rings (4900 triangles, 2452 vertices), outward winding, vertices on
the sphere (the facets lie inside it by at most r (1 - cos(pi/50)) = 2 mm
per metre of radius).
box.obj: the closed unit cube [-0.5, 0.5]^3, each face split into 2 x 2
squares (48 triangles), outward winding.
mannequin.obj: a standing figure 1.75 m tall, y up, feet on y = 0, facing
+z, arms out and down 25 degrees: legs, hips, torso, shoulders, neck, head,
arms and hands as capsules and ellipsoids joined by a smooth minimum (the
polynomial one, blend radius 3 cm) into one signed distance field, meshed
by marching tetrahedra (each cube of a 2.5 cm grid split into the six
tetrahedra around its main diagonal, so neighbouring cubes agree on their
shared faces and the surface is closed); edge points shared by edge, kept
at least 1% of an edge from its ends; each triangle wound so its normal
follows the field's gradient (outward).
cusick_support.obj: the support of the Cusick drape test (ISO 9073-9, BS
5058: a 30 cm specimen on an 18 cm disk), y up, standing on y = 0: a disk
of radius 0.09 m, 5 mm thick, its top face at y = 0.2 (above the floor by
more than a 30 cm specimen can hang), on a pedestal of radius 15 mm; one
closed surface of revolution, 128 segments round (the rim's chords lie
within r (1 - cos(pi/128)) = 0.03 mm of the circle), the top face in four
rings so that no triangle spans the whole radius, outward winding.
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


def smin(a, b, k):
    h = max(k - abs(a - b), 0.0) / k
    return min(a, b) - h * h * k * 0.25


def sd_capsule(p, a, b, r):
    pa = [p[i] - a[i] for i in range(3)]
    ba = [b[i] - a[i] for i in range(3)]
    t = sum(pa[i] * ba[i] for i in range(3)) / sum(x * x for x in ba)
    t = min(max(t, 0.0), 1.0)
    d = [pa[i] - ba[i] * t for i in range(3)]
    return math.sqrt(sum(x * x for x in d)) - r


def sd_ellipsoid(p, c, r):
    q = [(p[i] - c[i]) for i in range(3)]
    k0 = math.sqrt(sum((q[i] / r[i]) ** 2 for i in range(3)))
    k1 = math.sqrt(sum((q[i] / (r[i] * r[i])) ** 2 for i in range(3)))
    if k1 == 0:
        return -min(r)
    return k0 * (k0 - 1.0) / k1


def arm(side):
    s = side
    sh = (0.19 * s, 1.42, 0.0)
    el = (0.19 * s + 0.27 * math.cos(math.radians(25)) * s, 1.42 - 0.27 * math.sin(math.radians(25)), 0.0)
    wr = (el[0] + 0.25 * math.cos(math.radians(25)) * s, el[1] - 0.25 * math.sin(math.radians(25)), 0.0)
    hand = (wr[0] + 0.06 * s, wr[1] - 0.025, 0.0)
    return sh, el, wr, hand


def body_sdf(p):
    d = sd_ellipsoid(p, (0.0, 1.64, 0.0), (0.08, 0.11, 0.095))                  # head
    d = smin(d, sd_capsule(p, (0, 1.44, 0), (0, 1.56, 0), 0.05), 0.03)          # neck
    d = smin(d, sd_ellipsoid(p, (0.0, 1.2, 0.0), (0.17, 0.27, 0.11)), 0.03)     # torso
    d = smin(d, sd_capsule(p, (-0.16, 1.40, 0), (0.16, 1.40, 0), 0.065), 0.04)  # shoulders
    d = smin(d, sd_ellipsoid(p, (0.0, 0.93, 0.0), (0.18, 0.13, 0.12)), 0.04)    # hips
    for s in (-1.0, 1.0):
        sh, el, wr, hand = arm(s)
        d = smin(d, sd_capsule(p, sh, el, 0.047), 0.03)                         # upper arm
        d = smin(d, sd_capsule(p, el, wr, 0.038), 0.02)                         # forearm
        d = smin(d, sd_ellipsoid(p, hand, (0.055, 0.03, 0.045)), 0.02)          # hand
        hip, knee, ankle = (0.095 * s, 0.9, 0.0), (0.1 * s, 0.49, 0.01), (0.1 * s, 0.085, 0.0)
        d = smin(d, sd_capsule(p, hip, knee, 0.075), 0.03)                      # thigh
        d = smin(d, sd_capsule(p, knee, ankle, 0.05), 0.02)                     # shin
        d = smin(d, sd_capsule(p, (0.1 * s, 0.04, -0.03), (0.1 * s, 0.035, 0.13), 0.035), 0.03)  # foot
    return d


# the six tetrahedra of a cube around its diagonal 0-6 (corners as bits x, y, z)
CUBE = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
TETS = [(0, 6, 1, 2), (0, 6, 2, 3), (0, 6, 3, 7), (0, 6, 7, 4), (0, 6, 4, 5), (0, 6, 5, 1)]


def mannequin(h=0.025):
    lo = (-0.86, -0.02, -0.2)
    n = [int(math.ceil((hi - l) / h)) + 1 for l, hi in zip(lo, (0.86, 1.78, 0.24))]
    field = {}
    for i in range(n[0]):
        for j in range(n[1]):
            for k in range(n[2]):
                p = (lo[0] + i * h, lo[1] + j * h, lo[2] + k * h)
                v = body_sdf(p)
                field[(i, j, k)] = v if v != 0.0 else 1e-12
    verts, tris, index = [], [], {}

    def edge_point(a, b):
        key = (a, b) if a < b else (b, a)
        if key not in index:
            fa, fb = field[a], field[b]
            t = min(max(fa / (fa - fb), 0.01), 0.99)
            index[key] = len(verts)
            verts.append(tuple(lo[q] + (a[q] + t * (b[q] - a[q])) * h for q in range(3)))
        return index[key]

    def grad(p):
        e = 1e-4
        return [(body_sdf(tuple(p[q] + (e if q == r else 0) for q in range(3))) -
                 body_sdf(tuple(p[q] - (e if q == r else 0) for q in range(3)))) for r in range(3)]

    def emit(a, b, c):
        if a == b or b == c or a == c:
            return
        A, B, C = verts[a], verts[b], verts[c]
        u = [B[q] - A[q] for q in range(3)]
        v = [C[q] - A[q] for q in range(3)]
        nrm = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        g = grad(tuple((A[q] + B[q] + C[q]) / 3 for q in range(3)))
        tris.append((a, b, c) if sum(nrm[q] * g[q] for q in range(3)) > 0 else (a, c, b))

    for i in range(n[0] - 1):
        for j in range(n[1] - 1):
            for k in range(n[2] - 1):
                corner = [(i + c[0], j + c[1], k + c[2]) for c in CUBE]
                signs = [field[c] < 0 for c in corner]
                if all(signs) or not any(signs):
                    continue
                for t in TETS:
                    ids = [corner[q] for q in t]
                    ins = [x for x in ids if field[x] < 0]
                    out = [x for x in ids if field[x] >= 0]
                    if len(ins) == 0 or len(ins) == 4:
                        continue
                    if len(ins) == 1 or len(ins) == 3:
                        one, rest = (ins[0], out) if len(ins) == 1 else (out[0], ins)
                        emit(edge_point(one, rest[0]), edge_point(one, rest[1]), edge_point(one, rest[2]))
                    else:
                        p0, p1 = edge_point(ins[0], out[0]), edge_point(ins[0], out[1])
                        p2, p3 = edge_point(ins[1], out[1]), edge_point(ins[1], out[0])
                        emit(p0, p1, p2)
                        emit(p0, p2, p3)
    return verts, tris


def lathe(profile, seg):
    """A closed surface of revolution about the y axis: `profile` is a list
    of (r, y) from a point on the axis (r = 0) to another, each point but
    the two on the axis swept round in `seg` segments. Outward when the
    profile runs counter-clockwise in the (r, y) half-plane (out along the
    bottom, up the side, in along the top)."""
    verts, ring = [], []
    for r, y in profile:
        if r == 0.0:
            ring.append([len(verts)] * seg)
            verts.append((0.0, y, 0.0))
        else:
            ring.append([len(verts) + s for s in range(seg)])
            for s in range(seg):
                ph = 2 * math.pi * s / seg
                verts.append((r * math.cos(ph), y, -r * math.sin(ph)))
    tris = []
    for j in range(len(profile) - 1):
        lo, hi = ring[j], ring[j + 1]
        for s in range(seg):
            t = (s + 1) % seg
            a, b, c, d = lo[s], lo[t], hi[t], hi[s]
            # seen from outside, the profile goes up and the angle to the
            # left (towards -z at x > 0): a b c d is counter-clockwise
            if a != b:
                tris.append((a, b, c))
            if c != d:
                tris.append((a, c, d))
    return verts, tris


def main():
    os.makedirs(OUT, exist_ok=True)
    v, t = uv_sphere(50, 50)
    write_obj(os.path.join(OUT, "sphere_5k.obj"), v, t, "UV sphere, radius 1, %d triangles" % len(t))
    v, t = cube(2)
    write_obj(os.path.join(OUT, "box.obj"), v, t, "unit cube, %d triangles" % len(t))
    r, top, th, stem = 0.09, 0.2, 0.005, 0.015
    profile = [(0.0, 0.0), (stem, 0.0), (stem, top - th), (r, top - th), (r, top)]
    profile += [(r * k / 4, top) for k in (3, 2, 1)] + [(0.0, top)]
    v, t = lathe(profile, 128)
    write_obj(os.path.join(OUT, "cusick_support.obj"), v, t,
              "Cusick drape test support: disk r 0.09 m, top at y = 0.2, on a pedestal, "
              "%d triangles" % len(t))
    v, t = mannequin()
    write_obj(os.path.join(OUT, "mannequin.obj"), v, t,
              "mannequin 1.75 m, y up, facing +z, %d triangles, %d vertices" % (len(t), len(v)))


if __name__ == "__main__":
    main()
