#!/usr/bin/env bash
# Builds the libFuzzer targets (build-fuzz/, clang++-14, ASan + UBSan) and runs
# each for SECONDS, one after the other, seeded with the shared corpus.
#
#   scripts/fuzz.sh SECONDS [TARGET...]     TARGET: parser, pipeline (default both)
#
# Environment: HLOFF_FUZZ_DIR (default build-fuzz), HLOFF_SHARED_DIR (default
# ../shared), HLOFF_FUZZ_MAX_LEN (default 4096), HLOFF_FUZZ_ARGS (more
# libFuzzer flags). The working corpus grows in $HLOFF_FUZZ_DIR/corpus/TARGET
# and is reused by the next run; crashes, leaks and timeouts are written to
# $HLOFF_FUZZ_DIR/artifacts/TARGET/ and make the script fail. Each target's
# last line says how many inputs it ran, in how many seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [parser|pipeline ...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parser pipeline)
dir=${HLOFF_FUZZ_DIR:-build-fuzz}
shared=${HLOFF_SHARED_DIR:-$(cd .. && pwd)/shared}
max_len=${HLOFF_FUZZ_MAX_LEN:-4096}

cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-14 -DHLOFF_BUILD_FUZZERS=ON -DHLOFF_BUILD_TESTS=OFF \
  >/dev/null
build_targets=()
for target in "${targets[@]}"; do build_targets+=("hloff_${target}_fuzzer"); done
cmake --build "$dir" --target "${build_targets[@]}"

# Seeds: every module of the shared corpus and of the fuzz regression tests
# (files split on '// -----' lines, whole-line comments dropped); of a module
# longer than max_len, its longest prefix that ends with a whole computation.
seeds="$dir/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
python3 - "$seeds" "$max_len" "$shared/corpus" tests/lit/fuzz-regressions <<'PY'
import hashlib, itertools, os, re, sys
out, max_len, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for root, _, files in itertools.chain.from_iterable(os.walk(d) for d in dirs):
    for name in sorted(files):
        if not name.endswith((".hlo", ".txt")):
            continue
        data = open(os.path.join(root, name), "rb").read()
        for module in re.split(rb"(?m)^// -----\r?$", data):
            module = re.sub(rb"(?m)^[ \t]*//.*\n", b"", module)
            if len(module) > max_len:
                cut = module.rfind(b"\n}\n", 0, max_len)
                module = module[: cut + 3] if cut > 0 else module[:max_len]
            if module.strip():
                digest = hashlib.sha1(module).hexdigest()[:16]
                open(os.path.join(out, digest), "wb").write(module)
PY

status=0
for target in "${targets[@]}"; do
  corpus="$dir/corpus/$target"
  artifacts="$dir/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  log="$dir/fuzz-$target.log"
  echo "fuzz: $target for ${seconds}s (log: $log)"
  set +e
  # shellcheck disable=SC2086
  "$dir/fuzz/hloff_${target}_fuzzer" "$corpus" "$seeds" \
    -dict=fuzz/hlo.dict -max_len="$max_len" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" ${HLOFF_FUZZ_ARGS:-} >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || true)
  if [ $rc -ne 0 ]; then
    echo "fuzz: $target FAILED (exit $rc); last lines of $log:"
    tail -n 40 "$log"
    status=1
  else
    echo "fuzz: $target ok: ${runs:-?} runs in ${secs:-?} s, no crash, leak or timeout"
  fi
done
exit $status
