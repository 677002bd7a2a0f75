#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the drape-over-
# sphere scene. With a display it opens the interactive viewer; without one
# it renders the scene headlessly (EGL, no X server) to a video, or to PNG
# frames when ffmpeg is absent, and prints where.
# Usage: scripts/run.sh [SCENE] (default scenes/drape_sphere.json)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
scene=${1:-scenes/drape_sphere.json}
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec ./build/drape view "$scene"
fi
mkdir -p out
name=$(basename "$scene" .json)
if command -v ffmpeg >/dev/null; then
  ./build/drape run "$scene" --frames 300 --video "out/$name.mp4"
  echo "no display: wrote the video $(pwd)/out/$name.mp4"
else
  ./build/drape run "$scene" --frames 300 --png-dir "out/$name" --overwrite
  echo "no display and no ffmpeg: wrote PNG frames to $(pwd)/out/$name/"
fi
