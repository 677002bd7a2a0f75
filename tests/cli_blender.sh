#!/usr/bin/env bash
# OBJ that a real client reads: one frame of the main scene and of the
# hanging rope, written by `drape run --obj-dir`, imported into Blender in
# background mode (tests/blender_import.py), must come back with every
# vertex, edge and face. Blender 3.4 (Debian 12) keeps only the first two
# vertices of an OBJ `l` line, so a rope written as one polyline imports as
# a single segment; drape writes one `l a b` per link (world.h,
# drape_world_write_obj). The expected counts come from the scenes' sizes
# and, independently, from the file read by the OBJ rules (an `l` line of
# n vertices is n-1 edges, a face's sides are edges, shared ones once).
# A mesh cloth (scenes/tablecloth_mesh.json) is written with its file's
# texture coordinates (`vt`, faces `f a/a b/b c/c`): its counts and the sum
# of its UVs over the face corners must be the source mesh file's
# (meshes/square_irregular.obj, read by the same rules), in the file and
# in Blender's UV layer.
# Blender is a test dependency (scripts/setup.sh installs the Debian
# package): without it this test fails, it does not skip.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
T=${DRAPE_BINARY_DIR:?}/test-tmp/cli_blender-$$
rm -rf "$T" && mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
BLENDER=${DRAPE_BLENDER:-blender}
fail=0

if ! command -v "$BLENDER" >/dev/null; then
  echo "FAIL '$BLENDER' not found: Blender is needed by this test (scripts/setup.sh installs the Debian package blender)"
  exit 1
fi

# scene  frames  object  vertices  edges  faces
#   sheet: 64 x 64 grid, 2 triangles per cell; edges 64*63 + 63*64 + 63*63 diagonals
#   chain: 80 segments
#   sheet of tablecloth_mesh: "-": the counts of its mesh file
cases=(
  "drape_sphere.json sheet 4096 12033 7938"
  "hanging_rope.json chain 81 80 0"
  "tablecloth_mesh.json sheet - - - meshes/square_irregular.obj"
)
# What an OBJ file holds, by the OBJ rules: per object "OBJ name v= e= f="
# (unique edges) and, with texture coordinates, "UV name n= sum=" (face
# corners with a vt index, the sum of their u + v). A file without `o`
# lines (a mesh of meshes/) is one object named by $2.
count_obj() {
  python3 - "$@" <<'PY'
import struct, sys
objs, cur, vt = [], None, []
f32 = lambda x: struct.unpack("f", struct.pack("f", float(x)))[0]  # as Blender holds them
def new(name):
    o = {"name": name, "v": 0, "e": set(), "f": 0, "uvn": 0, "uvs": 0.0}
    objs.append(o)
    return o
for line in open(sys.argv[1]):
    t = line.split()
    if not t or t[0].startswith("#"):
        continue
    if t[0] == "o":
        cur = new(t[1])
        continue
    if cur is None:
        cur = new(sys.argv[2] if len(sys.argv) > 2 else "?")
    if t[0] == "v":
        cur["v"] += 1
    elif t[0] == "vt":
        vt.append((f32(t[1]), f32(t[2])))
    elif t[0] in ("f", "l"):
        ix = [int(s.split("/")[0]) for s in t[1:]]
        pairs = list(zip(ix, ix[1:]))
        if t[0] == "f":
            cur["f"] += 1
            pairs.append((ix[-1], ix[0]))
            for s in t[1:]:
                p = s.split("/")
                if len(p) > 1 and p[1]:
                    u, v = vt[int(p[1]) - 1]
                    cur["uvn"] += 1
                    cur["uvs"] += u + v
        cur["e"].update((min(a, b), max(a, b)) for a, b in pairs)
for o in objs:
    print("OBJ %s v=%d e=%d f=%d" % (o["name"], o["v"], len(o["e"]), o["f"]))
    if o["uvn"]:
        print("UV %s n=%d sum=%.3f" % (o["name"], o["uvn"], o["uvs"]))
PY
}

for c in "${cases[@]}"; do
  read -r scene name nv ne nf mesh <<<"$c"
  out="$T/${scene%.json}"
  if ! "$D" run "$S/scenes/$scene" --frames 2 --obj-dir "$out" --backend cpu 2>"$T/err"; then
    echo "FAIL drape run $scene: $(cat "$T/err")"; fail=1; continue
  fi
  obj="$out/frame_0002.obj"
  # What the file holds, by the OBJ rules (per object: v, unique edges, f).
  want_file=$(count_obj "$obj")
  want="OBJ $name v=$nv e=$ne f=$nf"
  [[ -n "$mesh" ]] && want=$(count_obj "$S/$mesh" "$name")
  if [[ "$want_file" != "$want" ]]; then
    echo "FAIL $scene: the OBJ file holds '$want_file', the scene makes '$want'"; fail=1
  fi
  t0=$(date +%s.%N)
  "$BLENDER" -b --factory-startup --python-exit-code 1 \
    --python "$S/tests/blender_import.py" -- "$obj" >"$T/blender.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  # (Blender's own log has 'OBJ import of ...' lines too)
  got=$(grep -E '^(OBJ [^ ]+ v=[0-9]+ e=[0-9]+ f=[0-9]+|UV [^ ]+ n=[0-9]+ sum=[-0-9.]+)$' \
    "$T/blender.log")
  if [[ $rc != 0 || "$got" != "$want" ]]; then
    echo "FAIL $scene: Blender ($(grep -m1 '^IMPORTER' "$T/blender.log")) read '${got:-nothing}'" \
         "(exit $rc), drape wrote '$want'"
    grep -i -m5 'error\|fail\|traceback' "$T/blender.log"
    fail=1
  else
    echo "ok   $scene: Blender reads" $got " ($(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s)"
  fi
done
exit $fail
