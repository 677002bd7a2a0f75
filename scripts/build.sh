#!/usr/bin/env bash
# Configures and builds drape into build/ (Release with debug info, warnings
# as errors). Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}; shift || true
cmake -S . -B "$dir" -DDRAPE_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
