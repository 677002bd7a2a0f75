#!/usr/bin/env bash
# The layout rules of issue 14, checked on the source tree:
#  - no include cycle between source files (src/, include/, kernels/);
#  - the commands (src/app) include only public headers (drape/...), their
#    own (app/...), the command-line plumbing of src/io (flags, checked
#    output paths, child processes, signals) and the bench's peer: no
#    solver, OpenCL or renderer internals;
#  - no command in src/app steps a solver itself: they go through the world
#    (drape_world_step / drape_world_advance), and `drape string`, the seed
#    000 string's own command, through the string library's whole-run call
#    (drape_string_run: advance, finiteness check, a callback per dump).
set -u
S=${DRAPE_SOURCE_DIR:?}
python3 - "$S" <<'PY'
import os, re, sys
root = sys.argv[1]
files = {}
for base in ("src", "include", "kernels"):
    for d, _, names in os.walk(os.path.join(root, base)):
        for n in names:
            if n.endswith((".c", ".h", ".cl")):
                p = os.path.join(d, n)
                files[os.path.relpath(p, root)] = open(p, encoding="utf-8", errors="replace").read()
def resolve(src, inc):
    for cand in (os.path.join(os.path.dirname(src), inc), os.path.join("src", inc),
                 os.path.join("include", inc), os.path.join("kernels", inc)):
        cand = os.path.normpath(cand)
        if cand in files:
            return cand
    return None
graph = {f: [r for r in (resolve(f, m) for m in re.findall(r'^\s*#\s*include\s+"([^"]+)"', t, re.M)) if r]
         for f, t in files.items()}
state, stack, cycles = {}, [], []
def visit(f):
    state[f] = 1
    stack.append(f)
    for g in graph[f]:
        if state.get(g) == 1:
            cycles.append(stack[stack.index(g):] + [g])
        elif not state.get(g):
            visit(g)
    stack.pop()
    state[f] = 2
sys.setrecursionlimit(10000)
for f in sorted(graph):
    if not state.get(f):
        visit(f)
edges = sum(len(v) for v in graph.values())
if cycles:
    for c in cycles:
        print("FAIL include cycle: " + " -> ".join(c))
    sys.exit(1)
print("ok   no include cycle among %d files (%d include edges)" % (len(files), edges))
bad = []
for f, t in files.items():
    if not f.startswith("src/app/"):
        continue
    for call in ("drape_sim_step(", "drape_sim_create(", "run_cables_step(", "drape_cable_step(",
                 "drape_string_advance(", "drape_string_advance_scripted(", "drape_string_tick(",
                 "run_strings_start("):
        if call in t:
            bad.append("%s calls %s" % (f, call[:-1]))
if bad:
    print("FAIL a command steps a solver itself (use the world):\n  " + "\n  ".join(bad))
    sys.exit(1)
print("ok   no command in src/app steps a solver itself")
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
bad = []
for f, t in files.items():
    if not f.startswith("src/app/"):
        continue
    for h in inc.findall(t):
        if not (h.startswith("drape/") or h.startswith("app/") or h.startswith("io/") or h == "peer.h"):
            bad.append("%s includes \"%s\"" % (f, h))
if bad:
    print("FAIL a command reaches into the library's internals (use the public API):\n  " + "\n  ".join(bad))
    sys.exit(1)
print("ok   the commands include only public headers, app/, io/ and the bench peer")
PY
