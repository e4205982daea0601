#!/usr/bin/env bash
# Configures and builds hlo-offload in build/ (or $1). Pass extra CMake
# arguments after the folder, e.g. scripts/build.sh build-asan -DHLOFF_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir"
