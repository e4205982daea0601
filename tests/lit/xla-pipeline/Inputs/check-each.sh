#!/usr/bin/env bash
# Checks every HLO file of a folder (sorted, *.hlo and *.txt) and prints its
# exit status and number of diagnostics (lines "file:line:col: warning|error|
# note: CODE"), then the count. Stops at the first exit status other than 0.
set -uo pipefail
count=0
for file in $(ls "$1" | grep -E '\.(hlo|txt)$' | LC_ALL=C sort); do
  [ "$file" = SOURCES.md ] && continue
  out=$(hlo-offload check "$1/$file" 2>&1)
  rc=$?
  n=$(printf '%s\n' "$out" | grep -cE '^[^ ].*: (warning|error|note): [A-Z]+[0-9]+' || true)
  echo "$file: exit $rc, diagnostics: $n"
  [ "$rc" = 0 ] || exit 1
  count=$((count + 1))
done
echo "checked $count files"
