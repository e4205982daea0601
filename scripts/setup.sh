#!/usr/bin/env bash
# Installs what hlo-offload needs to build and test, from Debian 12 packages.
# Idempotent: packages already installed are left alone. graphviz renders
# `report --format=html|dot` pictures; chromium runs the HTML end-to-end test.
set -euo pipefail

packages=(
  build-essential cmake ninja-build python3
  libabsl-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-14-tools jq
  graphviz chromium fonts-dejavu-core
  # The fuzz targets (scripts/fuzz.sh): clang with libFuzzer and sanitizers.
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
