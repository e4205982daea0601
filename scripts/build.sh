#!/usr/bin/env bash
# Configures and builds hlo-offload in build/ (or $1). Pass extra CMake
# arguments after the folder, e.g. scripts/build.sh build-asan -DHLOFF_SANITIZE=ON.
# With the .venv of scripts/setup.sh (VENV= names another), the pytest suites
# are registered too.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
# The pytest suites run with the Python that scripts/setup.sh installed the
# package for, unless the arguments name one.
venv=${VENV:-.venv}
python=()
if [ -x "$venv/bin/python3" ] && [[ " $* " != *" -DPython3_EXECUTABLE="* ]]; then
  python=(-DPython3_EXECUTABLE="$(cd "$venv" && pwd)/bin/python3")
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${python[@]}" "$@" >/dev/null
cmake --build "$dir"
