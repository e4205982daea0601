#!/usr/bin/env bash
# Runs `hlo-offload report` in every format on every HLO file under the given
# folders (the shared corpus): each run must exit 0, the JSON must parse with
# the documented keys, the DOT must be one digraph per module, and the HTML
# must end its page. Graphviz renders the DOT when it is installed. Prints
# one line per file and a count.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=0
while IFS= read -r -d '' file; do
  split=(--split-input-file)
  hlo-offload report "${split[@]}" "$file" > "$tmp/out.txt"
  grep -q '^verdict: ' "$tmp/out.txt"
  hlo-offload report "${split[@]}" --format=json "$file" > "$tmp/out.json"
  jq -e '(if type == "array" then . else [.] end) | all(.version == 1 and
      (.module | type) == "string" and (.host_bytes_in | type) == "number" and
      (.host_bytes_out | type) == "number" and (.offloads | type) == "array" and
      all(.offloads[]; (.start | type) == "string" and (.bytes | type) == "number"
          and (.source | has("file") and has("line") and has("op_name"))
          and all(.ends[]; (.kind | IN("move_to_device", "host_compute", "output", "custom_call")))))' \
      "$tmp/out.json" > /dev/null
  hlo-offload report "${split[@]}" --format=dot "$file" > "$tmp/out.dot"
  modules=$(jq 'if type == "array" then length else 1 end' "$tmp/out.json")
  graphs=$(grep -c '^digraph ' "$tmp/out.dot")
  if [ "$modules" != "$graphs" ]; then
    echo "error: $file: $modules modules but $graphs digraphs" >&2
    exit 1
  fi
  if command -v dot > /dev/null; then
    dot -Tsvg "$tmp/out.dot" > /dev/null
  fi
  hlo-offload report "${split[@]}" --format=html -o "$tmp/out.html" "$file"
  tail -n 1 "$tmp/out.html" | grep -q '</html>'
  echo "ok: $(basename "$file"): $(head -n 2 "$tmp/out.txt" | tail -n 1)"
  count=$((count + 1))
done < <(find "$@" -type f \( -name '*.hlo' -o -name '*.txt' \) ! -name '.*' -print0 | sort -z)
echo "report-corpus: $count files"
