# Imports one OBJ file into an empty Blender scene and prints, per mesh
# object, its vertex, edge and face counts (tests/cli_blender.sh checks
# them against what drape wrote), and for a mesh with texture
# coordinates their count and sum over the face corners. Run as
#   blender -b --factory-startup --python tests/blender_import.py -- FILE.obj
# Blender 3.2+ has the C++ importer bpy.ops.wm.obj_import; older ones only
# the Python add-on bpy.ops.import_scene.obj.
import os
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
if len(argv) != 1:
    print("usage: blender -b --factory-startup --python blender_import.py -- FILE.obj")
    sys.exit(2)
path = argv[0]
if not os.path.isfile(path):  # the importer would only log this and finish
    print("IMPORT FAILED", path, "no such file")
    sys.exit(1)

# The factory scene's cube, camera and light would be counted too.
for ob in list(bpy.data.objects):
    bpy.data.objects.remove(ob, do_unlink=True)

try:
    if hasattr(bpy.ops.wm, "obj_import"):
        res = bpy.ops.wm.obj_import(filepath=path)
        importer = "wm.obj_import"
    else:
        res = bpy.ops.import_scene.obj(filepath=path)
        importer = "import_scene.obj"
except Exception as ex:  # an operator error ends the test with a message
    print("IMPORT FAILED", path, ex)
    sys.exit(1)
if "FINISHED" not in res:
    print("IMPORT FAILED", path, res)
    sys.exit(1)
print("IMPORTER", importer, bpy.app.version_string)
for ob in sorted(bpy.data.objects, key=lambda o: o.name):
    if ob.type != "MESH":
        continue
    me = ob.data
    print("OBJ %s v=%d e=%d f=%d" % (ob.name, len(me.vertices), len(me.edges), len(me.polygons)))
    # texture coordinates per face corner, as cli_blender.sh sums them
    if me.uv_layers:
        uv = me.uv_layers[0].data
        print("UV %s n=%d sum=%.3f" % (ob.name, len(uv), sum(d.uv[0] + d.uv[1] for d in uv)))
sys.stdout.flush()
