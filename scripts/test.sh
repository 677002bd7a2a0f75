#!/usr/bin/env bash
# The test command: installs what is missing, builds with -Werror, runs every
# test (window tests inside an Xvfb server this script starts), then builds
# again with AddressSanitizer + UBSan and runs every test but the long ones
# once more.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
run_ctest() { # build_dir [ctest options]
  # xvfb-run gives the window tests a display; headless tests unset DISPLAY
  # themselves where they must prove they need none.
  local dir=$1
  shift
  xvfb-run -a -s "-screen 0 1280x720x24" ctest --test-dir "$dir" --output-on-failure -j2 "$@"
}
echo "== build (-Wall -Wextra -Werror) =="
bash scripts/build.sh build
run_ctest build
echo "== build (ASan + UBSan, -Werror) =="
bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DDRAPE_SANITIZE=ON -DDRAPE_BUILD_BENCH=OFF
# Tests labelled long (minutes of simulated time) ran above; the sanitized
# run checks memory and undefined behaviour, which their shorter siblings
# reach through the same code.
run_ctest build-asan -LE long
echo "== all tests passed (plain and sanitized) =="
