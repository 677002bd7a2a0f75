#!/usr/bin/env bash
# Installs drape's build, test and run dependencies from Debian packages, by
# name, and only those that are missing. Works as root or through sudo; does
# nothing (and needs no network) when everything is present.
set -euo pipefail

PKGS=(
  build-essential pkg-config cmake
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libglfw3-dev libepoxy-dev libegl-dev libopengl-dev libgl-dev
  libgl1-mesa-dri libegl-mesa0
  libstb-dev libcjson-dev libcmocka-dev
  libassimp-dev              # mesh cloths: OBJ, glTF, PLY, STL, FBX (src/core/mesh_load.c)
  xvfb xauth
  ffmpeg gnuplot-nox python3 python3-numpy
  clang libclang-rt-14-dev   # libFuzzer for tests/cli_fuzz_scene.sh (clang is 14 on Debian 12)
  blender                    # tests/cli_blender.sh imports OBJ frames (Blender 3.4 on Debian 12)
  slurm-wlm munge            # tests/cli_batch_slurm.sh: drape batch --slurm on a one-node Slurm
)
# Optional extras: --bench adds the peer library the benchmark compares with.
if [[ "${1:-}" == "--bench" ]]; then PKGS+=(libbullet-dev); fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
