#!/usr/bin/env bash
# Fuzzes the scene parser (drape_scene_parse, fuzz/fuzz_scene.c) with
# clang's libFuzzer under ASan + UBSan for a bounded time: the shipped
# scenes are the seed corpus, fuzz/scene.dict the documented keys. Fails on
# any crash, leak, sanitizer report, timeout or out-of-memory. Runs from
# the plain build only (tests/CMakeLists.txt): it builds its own
# instrumented binary with clang, so running it twice would only cost time.
# FUZZ_SECONDS (default 60) runs it longer; docs/testing.md.
set -u
S=${DRAPE_SOURCE_DIR:?}
B=${DRAPE_BINARY_DIR:?}
T=$B/test-tmp/cli_fuzz_scene-$$
secs=${FUZZ_SECONDS:-60}
rm -rf "$T" && mkdir -p "$T/corpus"
fail=0

CC=""
for c in clang clang-14; do command -v "$c" >/dev/null && { CC=$c; break; }; done
if [[ -z "$CC" ]]; then
  echo "FAIL clang not found (scripts/setup.sh installs clang and libclang-rt-14-dev)"
  exit 1
fi

# The parser and what it links: validate.c holds the value checks (pass 2),
# util.c the number formatting of its messages,
# scene_defs.c takes the string defaults from
# the string solver (drape_string_params_default), which needs banded.c;
# mesh_load.c reads mesh cloths' files through Assimp (-lassimp);
# collider_defs.c parses and checks the capsule and collider keys;
# materials.c holds the material presets ("material": "denim");
# render_def.c keeps the colours (presentation). A new source the parser
# calls must be added here: the target then fails to link, loudly.
# --gc-sections drops the solver code the target never calls.
src=(fuzz/fuzz_scene.c src/core/scene.c src/core/validate.c src/core/scene_defs.c src/core/render_def.c src/core/base.c src/core/util.c src/core/mesh_load.c src/core/collider_defs.c
     src/core/materials.c src/string/string.c src/string/string_step.c src/core/banded.c)
exe=$B/fuzz_scene
(cd "$S" && "$CC" -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -DDRAPE_VERSION='"fuzz"' \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Wall -Wextra -Wshadow -Werror -ffunction-sections -fdata-sections -Wl,--gc-sections \
  -Iinclude -Isrc "${src[@]}" -lcjson -lassimp -lm -o "$exe") 2>"$T/build.log"
if [[ $? != 0 ]]; then
  echo "FAIL building the fuzz target with $CC:"; cat "$T/build.log"; exit 1
fi
echo "ok   built $exe with $CC"

cp "$S"/scenes/*.json "$T/corpus/"
seeds=$(ls "$T/corpus" | wc -l)
# One process, one job: -timeout per input, -rss_limit_mb for the whole run;
# leaks are looked for at the end of every input that grew the corpus.
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
ASAN_OPTIONS=detect_leaks=1 \
  timeout $((secs + 120)) "$exe" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
  -dict="$S/fuzz/scene.dict" -print_final_stats=1 -artifact_prefix="$T/" \
  "$T/corpus" >"$T/fuzz.log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/fuzz.log")
eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$T/fuzz.log")
cov=$(grep -E '^#[0-9]+.*DONE' "$T/fuzz.log" | grep -o 'cov: [0-9]*')
echo "     $secs s: ${runs:-?} inputs, ${eps:-?}/s, $cov, corpus $seeds -> $(ls "$T/corpus" | wc -l) files"
if [[ $rc != 0 ]] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY:' "$T/fuzz.log"; then
  echo "FAIL fuzzer exit $rc; the report and the input that caused it:"
  grep -E -A25 'ERROR:|runtime error:|==[0-9]+==|unexpected|fails validation|left objects|does not name' "$T/fuzz.log" | head -60
  ls "$T"/crash-* "$T"/leak-* "$T"/timeout-* "$T"/oom-* 2>/dev/null
  fail=1
else
  echo "ok   no crash, leak, sanitizer report, timeout or out-of-memory"
fi
[[ -n "$runs" && "$runs" -gt 1000 ]] || { echo "FAIL the fuzzer ran only '${runs:-0}' inputs"; fail=1; }

if [[ $fail == 0 ]]; then rm -rf "$T"; else echo "(kept $T)"; fi
exit $fail
