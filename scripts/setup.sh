#!/usr/bin/env bash
# Installs what hlo-offload needs to build and test: Debian 12 packages, then
# the Python package (its C++ core built as an extension, its console command,
# jax and pytest) into .venv from PyPI. Idempotent: packages already installed
# are left alone, and the package build is incremental (build-py/). graphviz
# renders `report --format=html|dot` pictures; chromium runs the HTML
# end-to-end test. HLOFF_SETUP_NO_PYTHON=1 installs the Debian packages only.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build python3 python3-dev python3-venv
  libabsl-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-14-tools jq ccache
  graphviz chromium fonts-dejavu-core
  # The fuzz targets (scripts/fuzz.sh): clang with libFuzzer and sanitizers.
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all Debian packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${HLOFF_SETUP_NO_PYTHON:-0}" = 1 ]; then exit 0; fi
# The Python package with its JAX front end and the test runner, in a virtual
# environment: .venv with python3 of PATH; PYTHON= names another interpreter and
# VENV= another folder (the second CI environment: pyenv's Python 3.13 in
# .venv-py313, which gets jax 0.12; README, "Supported JAX and XLA versions").
venv=${VENV:-.venv}
if [ ! -x "$venv/bin/python3" ]; then
  echo "setup: creating $venv"
  "${PYTHON:-python3}" -m venv "$venv"
fi
echo "setup: installing the Python package into $venv (builds the C++ core the first time: a few minutes)"
# The build backend lives in .venv and the package is built without an isolated
# environment, so that build-py/ keeps pointing at the same nanobind and a second
# install recompiles only what changed (an isolated build gets a new temporary
# nanobind each time, and with it every object file is rebuilt).
"$venv/bin/python3" -m pip install -q --disable-pip-version-check \
  'scikit-build-core>=0.10' 'nanobind>=2.0'
"$venv/bin/python3" -m pip install -q --disable-pip-version-check --no-build-isolation \
  '.[jax,test]'
echo "setup: $("$venv/bin/hlo-offload" --version) at $venv/bin/hlo-offload"
