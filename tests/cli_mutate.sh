#!/usr/bin/env bash
# Seeded mutation test: `drape run` on 300 mutated copies of the shipped
# scenes (tests/cli_mutate.py says which mutations and what each case must
# do: exit 0 with finite output, or exit 1/2 naming the scene file; never a
# signal, a hang, a sanitizer report or nan/inf in an output file).
# Registered in the ASan + UBSan build only (tests/CMakeLists.txt), so every
# case runs under the sanitizers. MUTATE_CASES, MUTATE_SEED, MUTATE_JOBS and
# MUTATE_FRAMES change the count, the seed, the parallel runs and the frames
# per case, MUTATE_TIMEOUT the per-case limit in seconds (docs/testing.md).
# 60 s: the slowest case takes about 11 s on the 2-core machine alone and
# twice that inside the ASan `ctest -j2` on a slower CI machine (a 20 s limit
# once failed there on a case that finishes); a hang still ends it.
set -u
D=${DRAPE_EXE:?}
S=${DRAPE_SOURCE_DIR:?}
T=${DRAPE_BINARY_DIR:?}/test-tmp/cli_mutate-$$
rm -rf "$T" && mkdir -p "$T"
python3 "$S/tests/cli_mutate.py" "$D" "$S/scenes" "$T" --cases "${MUTATE_CASES:-300}" \
  --seed "${MUTATE_SEED:-13}" --timeout "${MUTATE_TIMEOUT:-60}" --jobs "${MUTATE_JOBS:-1}" --frames "${MUTATE_FRAMES:-2}"
rc=$?
if [[ $rc == 0 ]]; then rm -rf "$T"; fi
exit $rc
