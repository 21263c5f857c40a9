#!/usr/bin/env bash
# Measures the multiplexer: warm and cold `mcp call` side by side with
# mcporter's keep-alive daemon and with the server's own start, and the
# multiplexer's memory with 10 servers of 1,000 tools. Prints a Markdown
# table. Needs Go, Node.js and npm; installs the rest (npm ci here).
#
#   bash bench/mux/run.sh [--catalog catalog.jsonl] [--runs 100] [--slow-runs 30] [--keep]
#                         [--baseline REV | --baseline-mcp PATH]
#
# --catalog (a catalog file of JSON lines, as bench/searchquality reads)
# enables the memory measurement; without it that row says "not measured".
# --baseline builds mcp at a revision of this repository (as the release
# does), --baseline-mcp takes a binary built before; either is measured
# warm beside the current mcp, in the same loop.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
for tool in go node npm; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 2; }
done

# The memory rows use the LiveMCPBench catalog kept in bench/data.
catalog="$top/bench/data/livemcpbench/catalog.jsonl"
baseline_rev=""
baseline_mcp=""
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --catalog) catalog=${2:?run.sh: --catalog needs a file}; shift 2 ;;
    --catalog=*) catalog=${1#--catalog=}; shift ;;
    --no-catalog) catalog=""; shift ;;
    --baseline) baseline_rev=${2:?run.sh: --baseline needs a revision}; shift 2 ;;
    --baseline=*) baseline_rev=${1#--baseline=}; shift ;;
    --baseline-mcp) baseline_mcp=${2:?run.sh: --baseline-mcp needs a binary}; shift 2 ;;
    --baseline-mcp=*) baseline_mcp=${1#--baseline-mcp=}; shift ;;
    *) pass+=("$1"); shift ;;
  esac
done
if [ -n "$baseline_rev" ] && [ -n "$baseline_mcp" ]; then
  echo "run.sh: --baseline and --baseline-mcp exclude each other" >&2
  exit 2
fi
if [ -n "$baseline_rev" ]; then
  rev=$(cd "$top" && git rev-parse --verify --quiet "$baseline_rev^{commit}") ||
    { echo "run.sh: --baseline $baseline_rev is not a revision of this repository" >&2; exit 2; }
fi

# mcporter and the everything server, pinned by package-lock.json.
stamp="$here/node_modules/.muxbench-lock"
if ! cmp -s "$here/package-lock.json" "$stamp" 2>/dev/null; then
  echo "run.sh: npm ci in $here" >&2
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) >&2
  cp "$here/package-lock.json" "$stamp"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "run.sh: building mcp, catalogserver and the benchmark" >&2
# mcp as the release builds it (static, stripped), and a Go program that
# does nothing built the same way: the floor under its process start.
release=(env CGO_ENABLED=0 go build -trimpath -ldflags='-s -w')
(cd "$top" && "${release[@]}" -o "$work/mcp" ./cmd/mcp)
(cd "$top" && "${release[@]}" -o "$work/noop" ./bench/mux/noop)
(cd "$top" && go build -o "$work/catalogserver" ./bench/catalogserver)
(cd "$top" && go build -o "$work/muxbench" ./bench/mux)

exec_args=(--mcp "$work/mcp" --noop "$work/noop" --dir "$here")
if [ -n "$catalog" ]; then
  exec_args+=(--catalogserver "$work/catalogserver" --catalog "$catalog")
fi
if [ -n "$baseline_rev" ]; then
  # The revision's tree, exported from git: the repository and its work
  # trees are left as they are.
  short=$(cd "$top" && git rev-parse --short "$rev")
  name=$short
  case "$rev" in "$baseline_rev"*) ;; *) name="$baseline_rev at $short" ;; esac
  echo "run.sh: building mcp at $name as the baseline" >&2
  mkdir "$work/baseline-src"
  (cd "$top" && git archive "$rev") | tar -x -C "$work/baseline-src"
  (cd "$work/baseline-src" && "${release[@]}" -o "$work/baseline-mcp" ./cmd/mcp)
  rm -rf "$work/baseline-src"
  exec_args+=(--baseline-mcp "$work/baseline-mcp" --baseline-name "$name")
elif [ -n "$baseline_mcp" ]; then
  exec_args+=(--baseline-mcp "$baseline_mcp")
fi
"$work/muxbench" "${exec_args[@]}" ${pass[@]+"${pass[@]}"}
