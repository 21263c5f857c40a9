#!/usr/bin/env bash
# Compares a 10-step chained `mcp run` program with 10 separate `mcp call`
# processes against the example contacts server, and times one cold
# `mcp call` against the server's own start. Prints medians over N rounds.
#
#   bash bench/runchain/run.sh [ROUNDS]
set -euo pipefail
rounds=${1:-7}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A configuration of its own: trusting the recipe touches no one else's.
export XDG_CONFIG_HOME="$work/config"
CGO_ENABLED=0 go build -trimpath -o "$work/mcp" "$top/cmd/mcp"
go build -o "$work/contacts-server" "$top/examples/contacts/server"
mkdir -p "$work/recipe"
cat > "$work/recipe/package.json" <<'JSON'
{ "pi": { "mcp": { "manifests": ["mcp.json"], "servers": [
  { "id": "contacts", "tools": { "include": ["search_contacts", "get_contact"] } } ] } } }
JSON
printf '{ "mcpServers": { "contacts": { "command": "%s" } } }\n' "$work/contacts-server" > "$work/recipe/mcp.json"
# Trusted as a person would trust it, having read it.
"$work/mcp" trust "$work/recipe" >/dev/null
cat > "$work/chain.js" <<'JS'
const out = [];
for (let i = 1; i <= 5; i++) {
  const found = await contacts.search_contacts({query: "a", limit: 6});
  out.push((await contacts.get_contact({id: found.contacts[i - 1].id})).name);
}
return out;
JS
cd "$work/recipe"
ms() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
calls=(); runs=()
for _ in $(seq "$rounds"); do
  t0=$(ms)
  for i in 1 2 3 4 5; do
    "$work/mcp" call contacts.search_contacts query=a limit=6 >/dev/null
    "$work/mcp" call contacts.get_contact id=c$i >/dev/null
  done
  t1=$(ms)
  "$work/mcp" run "$work/chain.js" >/dev/null
  t2=$(ms)
  calls+=($(( (t1 - t0) / 1000000 ))); runs+=($(( (t2 - t1) / 1000000 )))
done
c=$(printf '%s\n' "${calls[@]}" | median); r=$(printf '%s\n' "${runs[@]}" | median)
echo "10 separate mcp call processes: median ${c} ms"
echo "one mcp run with 10 chained calls: median ${r} ms"
awk -v c="$c" -v r="$r" 'BEGIN { printf "ratio: %.1fx\n", c / r }'
