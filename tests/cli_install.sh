#!/usr/bin/env bash
# The installed package: `cmake --install` into a temporary prefix, then
# examples/hello_drape.c and examples/embed_glfw.c built against it twice,
# as an embedder would, with find_package(drape) and with pkg-config; the
# hello binaries print the cloth's lowest point, resting above the floor
# (y >= thickness) and below the sphere's top; the embed binaries draw 20
# frames in their own GLFW window. Also: drape as an add_subdirectory of another project
# configures without building drape's tests or benchmarks.
set -u
S=${DRAPE_SOURCE_DIR:?}
B=${DRAPE_BINARY_DIR:?}
T=$B/test-tmp/cli_install-$$
rm -rf "$T" && mkdir -p "$T"
fail=0
P=$T/prefix
cmake --install "$B" --prefix "$P" >"$T/install.txt" 2>&1 || { echo "FAIL cmake --install"; cat "$T/install.txt"; exit 1; }
for f in include/drape/cloth.h lib/libdrape.a lib/libdrape_render.a lib/cmake/drape/drapeConfig.cmake \
         lib/cmake/drape/drapeConfigVersion.cmake lib/pkgconfig/drape.pc lib/pkgconfig/drape-render.pc \
         bin/drape share/doc/drape/README.md share/drape/scenes/drape_sphere.json; do
  [[ -e "$P/$f" ]] || { echo "FAIL not installed: $f"; fail=1; }
done
# every public header compiles on its own; only the opt-in drape_cl.h and
# interop.h pull in OpenCL
# and none pulls in GL, EGL, GLFW or epoxy
for h in "$P"/include/drape/*.h; do
  n=$(basename "$h")
  printf '#include <drape/%s>\nint main(void) { return 0; }\n' "$n" >"$T/h.c"
  if ! cc -std=c11 -fsyntax-only -H -I"$P/include" "$T/h.c" 2>"$T/h.txt"; then
    echo "FAIL $n does not compile on its own"; cat "$T/h.txt"; fail=1; continue
  fi
  if grep -E -q '(^|/)(GL|EGL|GLFW|epoxy)/' "$T/h.txt"; then echo "FAIL $n includes a GL header"; fail=1; fi
  if [[ $n != drape_cl.h && $n != interop.h ]] && grep -q 'CL/' "$T/h.txt"; then echo "FAIL $n includes an OpenCL header"; fail=1; fi
done
echo "ok   public headers: self-contained, OpenCL only in the opt-in drape_cl.h and interop.h, no GL"
check_out() { # name output
  local y
  y=$(sed -n 's/.*lowest point is at y = \([-0-9.]*\) m/\1/p' <<<"$2")
  if [[ -z "$y" ]] || ! awk -v y="$y" 'BEGIN { exit !(y >= 0.009 && y < 0.8) }'; then
    echo "FAIL $1: $2"; fail=1
  else
    echo "ok   $1: lowest point y = $y m"
  fi
}
# find_package
cmake -S "$S/examples" -B "$T/ex" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release \
  >"$T/ex.txt" 2>&1 && cmake --build "$T/ex" >>"$T/ex.txt" 2>&1 ||
  { echo "FAIL examples with find_package"; tail -20 "$T/ex.txt"; fail=1; }
[[ -x "$T/ex/hello_drape" ]] && check_out "hello_drape (find_package, OpenCL)" "$("$T/ex/hello_drape" 2>&1)"
# embed_glfw: the user's own GLFW loop drawing a world (needs the display
# the test command's Xvfb gives; 20 frames of the main scene)
check_embed() { # name binary
  local out
  out=$("$2" "$S/scenes/drape_sphere.json" 20 2>&1)
  if [[ "$out" == *"drew 20 frames, t = 0.333 s"* ]]; then echo "ok   $1"; else echo "FAIL $1: $out"; fail=1; fi
}
if [[ -z "${DISPLAY:-}" ]]; then echo "FAIL embed_glfw needs a display (the test command runs ctest under xvfb-run)"; fail=1
elif [[ -x "$T/ex/embed_glfw" ]]; then check_embed "embed_glfw (find_package)" "$T/ex/embed_glfw"
else echo "FAIL embed_glfw was not built with find_package"; fail=1; fi
# pkg-config
out=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs drape 2>&1) ||
  { echo "FAIL pkg-config drape: $out"; fail=1; }
cc -std=c11 -o "$T/hello_pc" "$S/examples/hello_drape.c" $out 2>"$T/pc.txt" ||
  { echo "FAIL examples with pkg-config ($out)"; cat "$T/pc.txt"; fail=1; }
[[ -x "$T/hello_pc" ]] && check_out "hello_drape (pkg-config, CPU reference)" "$("$T/hello_pc" cpu 2>&1)"
out=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs drape-render glfw3 2>&1) ||
  { echo "FAIL pkg-config drape-render: $out"; fail=1; }
cc -std=c11 -o "$T/embed_pc" "$S/examples/embed_glfw.c" $out 2>"$T/pc2.txt" ||
  { echo "FAIL embed_glfw with pkg-config ($out)"; cat "$T/pc2.txt"; fail=1; }
[[ -x "$T/embed_pc" && -n "${DISPLAY:-}" ]] && check_embed "embed_glfw (pkg-config)" "$T/embed_pc"
# add_subdirectory: drape inside another project, no tests or benchmarks
mkdir -p "$T/outer"
cat >"$T/outer/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.21)
project(outer LANGUAGES C)
add_subdirectory("$S" drape)
add_executable(hello "$S/examples/hello_drape.c")
target_link_libraries(hello PRIVATE drape::drape)
CM
cmake -S "$T/outer" -B "$T/outer/build" >"$T/outer.txt" 2>&1 || { echo "FAIL add_subdirectory configure"; tail "$T/outer.txt"; fail=1; }
if [[ -d "$T/outer/build/drape/tests" || -d "$T/outer/build/drape/bench" ]]; then
  echo "FAIL add_subdirectory built drape's tests or benchmarks"; fail=1
else
  echo "ok   add_subdirectory: configured, no tests or benchmarks"
fi
# BUILD_SHARED_LIBS: shared libdrape / libdrape_render export only drape_*
# names (cmake/drape.map), install, and hello_drape links and runs on them
SB=$T/shared-build SP=$T/shared-prefix
if cmake -S "$S" -B "$SB" -DBUILD_SHARED_LIBS=ON -DDRAPE_BUILD_TESTS=OFF -DDRAPE_BUILD_BENCH=OFF \
     -DDRAPE_BUILD_CLI=OFF -DCMAKE_BUILD_TYPE=Release >"$T/shared.txt" 2>&1 &&
   cmake --build "$SB" -j2 >>"$T/shared.txt" 2>&1 && cmake --install "$SB" --prefix "$SP" >>"$T/shared.txt" 2>&1; then
  for lib in libdrape.so libdrape_render.so; do
    n=$(nm -D --defined-only "$SP/lib/$lib" | awk '{print $3}' | grep -c .)
    other=$(nm -D --defined-only "$SP/lib/$lib" | awk '{print $3}' | grep -v '^drape_' | head -3)
    # and every one of them is the API: declared in an installed header
    undocumented=$(for sym in $(nm -D --defined-only "$SP/lib/$lib" | awk '{print $3}'); do
                     grep -qw "$sym" "$P"/include/drape/*.h || echo "$sym"; done | head -5)
    if [[ -n "$other" || $n -lt 50 ]]; then echo "FAIL $lib exports $n symbols, not only drape_*: $other"; fail=1
    elif [[ -n "$undocumented" ]]; then echo "FAIL $lib exports internal names: $undocumented"; fail=1
    else echo "ok   $lib: $n symbols, all drape_* and all declared in include/drape"; fi
  done
  cmake -S "$S/examples" -B "$T/ex-shared" -DCMAKE_PREFIX_PATH="$SP" >"$T/exs.txt" 2>&1 &&
    cmake --build "$T/ex-shared" >>"$T/exs.txt" 2>&1 ||
    { echo "FAIL the examples against the shared libraries"; tail "$T/exs.txt"; fail=1; }
  [[ -x "$T/ex-shared/embed_glfw" && -n "${DISPLAY:-}" ]] &&
    check_embed "embed_glfw (shared libdrape_render)" "$T/ex-shared/embed_glfw"
  if [[ -x "$T/ex-shared/hello_drape" ]]; then
    ldd "$T/ex-shared/hello_drape" | grep -q "$SP/lib/libdrape.so" ||
      { echo "FAIL hello_drape is not linked to the shared libdrape"; fail=1; }
    check_out "hello_drape (shared libdrape, CPU reference)" "$("$T/ex-shared/hello_drape" cpu 2>&1)"
  fi
else
  echo "FAIL shared build"; tail -20 "$T/shared.txt"; fail=1
fi

rm -rf "$T"
[[ $fail == 0 ]] && echo "ok   install"
exit $fail
