#!/usr/bin/env python3
"""Seeded mutation test of `drape run` (tests/cli_mutate.sh runs it in the
ASan + UBSan build).

Makes N mutated scenes from the shipped ones (scenes/*.json) with a fixed
seed: keys deleted, numbers set to 0, -1, 1e-300, 1e300, 1e-40, huge
integers, wrong types, strings, nested junk, unknown and duplicate keys,
truncated text, a byte order mark, leading zeros, bytes that are not JSON.
Each case runs `drape run CASE --frames 2 --obj-dir D --stats S` (most on
the CPU backend, every 5th on OpenCL) under a per-case timeout, and must end
in one of two ways:
  - exit 0, and no OBJ holds "nan" or "inf" and no JSON output a
    non-finite number (messages in it may quote "nan");
  - exit 1 or 2 with a message on stderr that names the scene file;
never a signal, a timeout, a sanitizer report, or nan/inf in any output
file (even one written before a failure). Object sizes are capped after
mutating (grid 16x16, 40 links, 100 string nodes, 2000 substeps x
iterations) so every case stays fast; values beyond the documented limits
are left alone, since those must be refused.

usage: cli_mutate.py DRAPE_EXE SCENES_DIR WORK_DIR [--cases N] [--seed S]
                     [--timeout SECONDS] [--jobs J]
"""
import argparse
import concurrent.futures
import copy
import json
import os
import random
import re
import subprocess
import sys
import time

NUMS = [0, -1, 1e-300, 1e300, 1e-40, 4294967297, 2147483648, -2147483649,
        9007199254740993, 1.5, 0.5, 1e-20, 1e-38, 5e-324, 1e6, 1e12, 100000]
JUNK = ["text", "", True, False, None, [], {}, [1, 2], [[[]]], {"x": 1},
        [0, 1, 0, 1], "1e-300", {"cloth": []}]
# After mutation: cap sizes that are valid but would make a case slow.
# Valid but explosive values (inside the documented ranges): these reach
# the solver, which must either run them to finite frames or stop with
# exit 1 (divergence), never write nan.
EXPLOSIVE = {
    (): {"dt": [1, 0.5, 0.1], "substeps": [1, 2], "iterations": [1, 50],
         "wind": [[1000, 0, 1000], [0, -1000, 0]], "gravity": [[0, -1000, 0], [1000, 1000, 1000]],
         "wind_drag": [1e4]},
    ("cloth",): {"mass_per_area": [1e-4, 1e-6, 1e4], "particle_mass": [1e-6, 1e6],
                 "damping": [1e6, 0], "thickness": [1, 1e-6], "stiffness": [1e12, 1e-3],
                 "spring_damping": [1e9], "bend_stiffness": [1e12], "tear_ratio": [1.0001, 100],
                 "self_collision": [True], "self_friction": [10], "tethers": [False],
                 "compliance": [{"stretch": 1e6, "shear": 1e6, "bend": 1e6},
                                {"stretch": 0, "shear": 0, "bend": 0}],
                 "grid": [{"cols": 2, "rows": 2, "spacing": 100}, {"cols": 16, "rows": 16, "spacing": 1e-4}]},
    ("rope",): {"mass_per_length": [1e-6, 1e6], "compliance": [1e6], "damping": [1e6],
                "length": [1e-3, 1e5], "segments": [1, 40], "ym": [1e12, 1e-6],
                "start": [[0, 0, 0]], "end": [[0, 0, 0], [1000, 0, 0]], "pin_start": [False],
                "pin_end": [True], "start_shape": ["straight"], "tension_only": [False]},
    ("sphere",): {"radius": [1e4, 1e-3], "velocity": [[1e4, 0, 0]], "friction": [10],
                  "center": [[0, 0, 0]]},
    ("string",): {"EA": [1e12, 1e-3], "B": [1e12], "etaA": [1e12], "mu": [1e-6, 1e6],
                  "length": [1e-3, 1e4], "h": [0.01, 1e-4], "nodes": [2, 100]},
}
NEST = "@nest%d@"
FRAMES = 2
CAPS = {"cols": (16, 8192), "rows": (16, 8192), "segments": (40, 1000000),
        "nodes": (100, 100000)}
SANITIZER = re.compile(r"ERROR: AddressSanitizer|runtime error:|LeakSanitizer|"
                       r"ERROR: UndefinedBehaviorSanitizer|SUMMARY: \w+Sanitizer")
NONFINITE = re.compile(rb"(?i)(?<![a-z_])[-+]?(nan|inf|infinity)(?![a-z_])")


def json_nonfinite(text):
    """True when a JSON output holds a non-finite number: NaN/Infinity
    tokens (not JSON, but Python's parser takes them), numbers that
    overflow, or text that does not parse at all."""
    def refuse(tok):
        raise ValueError(tok)
    try:
        v = json.loads(text.decode("utf-8", "replace"), parse_constant=refuse)
    except ValueError:
        return True
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
            return True
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def paths(v, at=()):
    """Every (path, value) below v."""
    yield at, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, at + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, at + (i,))


def get(v, p):
    for k in p:
        v = v[k]
    return v


def put(v, p, x):
    get(v, p[:-1])[p[-1]] = x


def isint(x):
    return isinstance(x, int) and not isinstance(x, bool)


def cap(v):
    """Caps valid-but-slow sizes, in place; pins of a shrunk grid move to
    its last row or column, so the scene stays what it was, only smaller."""
    for p, x in list(paths(v)):
        if not p or not isint(x):
            continue
        key = p[-1]
        if key in CAPS and CAPS[key][0] < x <= CAPS[key][1]:
            put(v, p, CAPS[key][0])
            if key in ("rows", "cols") and len(p) >= 3 and p[-2] == "grid":
                cloth = get(v, p[:-2])
                pins = list(cloth.get("pins", [])) if isinstance(cloth.get("pins"), list) else []
                pins += [pp.get("pin") for pp in cloth.get("pin_paths", [])
                         if isinstance(cloth.get("pin_paths"), list) and isinstance(pp, dict)]
                q = 0 if key == "rows" else 1
                for pin in pins:
                    if isinstance(pin, list) and len(pin) == 2 and isint(pin[q]) \
                            and CAPS[key][0] <= pin[q] < x:
                        pin[q] = CAPS[key][0] - 1
    if isinstance(v, dict):
        ss, it = v.get("substeps", 20), v.get("iterations", 1)
        if (isinstance(ss, int) and isinstance(it, int) and not isinstance(ss, bool)
                and not isinstance(it, bool) and 0 < ss <= 10000 and 0 < it <= 1000
                and ss * it > 2000):
            v["substeps"], v["iterations"] = min(ss, 200), min(it, 10)
        strings = v.get("string")
        dt = v.get("dt")
        if isinstance(strings, list) and strings and isinstance(dt, (int, float)) \
                and not isinstance(dt, bool) and 0.05 < dt <= 1:
            # the string solver ticks at 1e-4 s: 2 frames of dt = 1 under
            # ASan take longer than the per-case timeout, without a bug
            v["dt"] = 0.05
        if isinstance(strings, list):
            # the string solver ticks at h: keep 2 frames to a few thousand
            for s in strings:
                if isinstance(s, dict) and isinstance(s.get("h"), (int, float)) \
                        and not isinstance(s.get("h"), bool) and 1e-6 <= s["h"] < 1e-5:
                    s["h"] = 1e-5


def explode(rng, doc):
    """Sets one key of the scene or of one of its objects to a valid but
    explosive value (EXPLOSIVE)."""
    kind = rng.choice(list(EXPLOSIVE))
    target, where = doc, ()
    if kind != ():
        objs = doc.get(kind[0])
        if isinstance(objs, list) and objs and isinstance(objs[0], dict):
            j = rng.randrange(len(objs))
            target, where = objs[j], (kind[0], j)
        else:
            kind = ()
    if not isinstance(target, dict):
        return "explode nothing"
    key = rng.choice(sorted(EXPLOSIVE[kind]))
    x = copy.deepcopy(rng.choice(EXPLOSIVE[kind][key]))
    target[key] = x
    return "explode %s = %r" % (where + (key,), x)


def mutate_tree(rng, doc):
    """One structural mutation of a parsed scene; returns a description."""
    all_paths = [p for p, _ in paths(doc) if p]
    nums = [p for p, x in paths(doc) if p and isinstance(x, (int, float))
            and not isinstance(x, bool)]
    op = rng.choice(["delete", "number", "number", "scale", "type", "unknown", "nest",
                     "shorten", "dup_object", "explode", "explode", "explode", "explode"])
    if op == "explode":
        # one to three explosive values at once (wind on a light cloth,
        # a long dt with soft constraints, ...)
        return " + ".join(explode(rng, doc) for _ in range(rng.choice([1, 2, 2, 3])))
    if op == "delete" and all_paths:
        p = rng.choice(all_paths)
        parent = get(doc, p[:-1])
        if isinstance(parent, dict):
            del parent[p[-1]]
        else:
            parent.pop(p[-1])
        return "delete %s" % (p,)
    if op in ("number", "scale") and nums:
        p = rng.choice(nums)
        if op == "number":
            x = rng.choice(NUMS)
        else:
            x = get(doc, p) * rng.choice([1e-30, 1e-10, 1e10, 1e30, -1])
        put(doc, p, x)
        return "%s %s = %r" % (op, p, x)
    if op == "type" and all_paths:
        p = rng.choice(all_paths)
        x = copy.deepcopy(rng.choice(JUNK))
        put(doc, p, x)
        return "type %s = %r" % (p, x)
    if op == "unknown":
        objs = [p for p, x in paths(doc) if isinstance(x, dict)]
        p = rng.choice(objs)
        get(doc, p)[rng.choice(["colour", "Dt", "extra", "spacing ", "x"])] = 1
        return "unknown key in %s" % (p,)
    if op == "nest" and all_paths:
        # a placeholder string, replaced by the nested text when the scene
        # is written (a tree 2000 deep would overflow Python's recursion)
        p = rng.choice(all_paths)
        depth = rng.choice([2, 10, 100, 2000])
        put(doc, p, NEST % depth)
        return "nest %s depth %d" % (p, depth)
    if op == "shorten":
        arrs = [p for p, x in paths(doc) if p and isinstance(x, list) and x]
        if arrs:
            p = rng.choice(arrs)
            get(doc, p).pop()
            return "shorten %s" % (p,)
    if op == "dup_object":
        for key in ("cloth", "rope", "sphere", "string"):
            if isinstance(doc.get(key), list) and doc[key]:
                twin = copy.deepcopy(doc[key][0])
                if isinstance(twin, dict) and isinstance(twin.get("name"), str):
                    twin["name"] += "_twin"  # names must be unique
                doc[key].append(twin)
                return "duplicate %s[0]" % key
    p = rng.choice(nums) if nums else None
    if p:
        put(doc, p, 0)
        return "number %s = 0" % (p,)
    return "none"


def mutate_text(rng, text):
    """One mutation of the JSON text itself."""
    op = rng.choice(["truncate", "bom", "leading_zero", "dup_key", "junk_bytes",
                     "trailing_comma", "comment", "nan", "nul"])
    b = text.encode()
    if op == "truncate":
        return b[:rng.randrange(0, max(1, len(b)))], "truncate"
    if op == "bom":
        return b"\xef\xbb\xbf" + b, "bom"
    if op == "leading_zero":
        ms = list(re.finditer(rb'(?<=[:\[, ])(-?)([1-9][0-9]*)(?=[,\]} \n])', b))
        if ms:
            m = rng.choice(ms)
            return b[:m.start()] + m.group(1) + b"0" + m.group(2) + b[m.end():], "leading zero"
    if op == "dup_key":
        ms = list(re.finditer(rb'"([a-z_]+)": *([-0-9.e]+|true|false)', b))
        if ms:
            m = rng.choice(ms)
            return b[:m.end()] + b", " + m.group(0) + b[m.end():], "duplicate key"
    if op == "junk_bytes":
        i = rng.randrange(0, len(b) + 1)
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        return b[:i] + junk + b[i:], "junk bytes"
    if op == "trailing_comma":
        i = b.rfind(b"}")
        return b[:i] + b"," + b[i:], "trailing comma"
    if op == "comment":
        return b"// scene\n" + b, "comment"
    if op == "nan":
        ms = list(re.finditer(rb'(?<=: )-?[0-9.]+', b))
        if ms:
            m = rng.choice(ms)
            return b[:m.start()] + rng.choice([b"NaN", b"Infinity", b"1e999", b"-1e999"]) \
                + b[m.end():], "nan"
    if op == "nul":
        i = rng.randrange(0, len(b) + 1)
        return b[:i] + b"\0" + b[i:], "nul"
    return b[: len(b) // 2], "truncate half"


def nested(rng, depth):
    """Text of `depth` nested arrays and objects around a 0."""
    opens = [rng.choice(['[', '{"a": ']) for _ in range(depth)]
    return "".join(opens) + "0" + "".join("]" if o == "[" else "}" for o in reversed(opens))


def dump(rng, doc):
    text = json.dumps(doc, indent=1)
    return re.sub(r'"@nest(\d+)@"', lambda m: nested(rng, int(m.group(1))), text)


def make_cases(scenes_dir, n, seed):
    rng = random.Random(seed)
    base = []
    for name in sorted(os.listdir(scenes_dir)):
        if name.endswith(".json"):
            with open(os.path.join(scenes_dir, name)) as f:
                doc = json.load(f)
            cap(doc)
            base.append((name, doc))
    cases = []
    for i in range(n):
        name, doc = base[i % len(base)]
        doc = copy.deepcopy(doc)
        what = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            what.append(mutate_tree(rng, doc))
        if isinstance(doc, dict):
            cap(doc)
        text = dump(rng, doc)
        if rng.random() < 0.2:
            data, w = mutate_text(rng, text)
            what.append(w)
        else:
            data = text.encode()
        cases.append((i, name, " + ".join(what), data))
    return cases


def run_case(exe, work, timeout, case):
    i, base, what, data = case
    d = os.path.join(work, "c%03d" % i)
    os.makedirs(d)
    path = os.path.join(d, "scene.json")
    with open(path, "wb") as f:
        f.write(data)
    backend = "cl" if i % 5 == 4 else "cpu"
    cmd = [exe, "run", path, "--frames", str(FRAMES), "--obj-dir", os.path.join(d, "obj"),
           "--stats", os.path.join(d, "stats.json"), "--backend", backend]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        rc, err = p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as ex:
        rc, err = "timeout", (ex.stderr or b"").decode(errors="replace")
    dt = time.time() - t0
    with open(os.path.join(d, "stderr.txt"), "w") as f:
        f.write("%s\n%s --backend %s\nexit %s\n%s" % (what, base, backend, rc, err))
    problems = []
    if rc == "timeout":
        problems.append("no exit within %g s (hang?)" % timeout)
    elif rc < 0:
        problems.append("killed by signal %d" % -rc)
    elif rc not in (0, 1, 2):
        problems.append("exit %d (expected 0, 1 or 2)" % rc)
    if SANITIZER.search(err):
        problems.append("sanitizer report")
    if rc in (1, 2) and path not in err:
        problems.append("exit %d without a message naming %s" % (rc, path))
    bad = []
    for root, _, files in os.walk(d):
        for fn in files:
            if fn.endswith(".obj") or (fn.endswith(".json") and fn != "scene.json"):
                with open(os.path.join(root, fn), "rb") as f:
                    text = f.read()
                # OBJ: any nan/inf token; JSON: a non-finite number (a
                # message string may quote "nan", e.g. a divergence's)
                if fn.endswith(".obj") and NONFINITE.search(text):
                    bad.append(os.path.relpath(os.path.join(root, fn), d))
                elif fn.endswith(".json") and json_nonfinite(text):
                    bad.append(os.path.relpath(os.path.join(root, fn), d))
    if bad:
        problems.append("nan/inf (or JSON that does not parse) in %s" % ", ".join(sorted(bad)[:4]))
    return i, base, what, backend, rc, dt, err, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("scenes")
    ap.add_argument("work")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--frames", type=int, default=2)
    a = ap.parse_args()
    global FRAMES
    FRAMES = a.frames
    t0 = time.time()
    cases = make_cases(a.scenes, a.cases, a.seed)
    counts = {}
    failed = 0
    slowest = (0, None)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for i, base, what, backend, rc, dt, err, problems in ex.map(
                lambda c: run_case(a.exe, a.work, a.timeout, c), cases):
            counts[rc] = counts.get(rc, 0) + 1
            slowest = max(slowest, (dt, i))
            if problems:
                failed += 1
                print("FAIL case %03d (%s: %s, %s): %s" % (i, base, what, backend,
                                                           "; ".join(problems)))
                tail = err.strip().splitlines()[-6:]
                for line in tail:
                    print("       | " + line[:300])
    summary = ", ".join("exit %s: %d" % (k, v) for k, v in sorted(counts.items(), key=str))
    print("     %d cases (seed %d) in %.1f s (%s); slowest case %03d: %.1f s"
          % (len(cases), a.seed, time.time() - t0, summary, slowest[1], slowest[0]))
    if failed:
        print("FAIL %d of %d mutated scenes (files kept in %s)" % (failed, len(cases), a.work))
        return 1
    print("ok   every mutated scene ran clean or was refused with a message naming its file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
