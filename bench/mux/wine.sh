#!/usr/bin/env bash
# Measures mcp on Linux beside mcp's Windows build under Wine: warm and
# direct calls of the example's contacts server (built for each system),
# `mcp version` and a no-op Go program, in one loop. Prints a Markdown
# table. Needs Go; installs Wine and mingw-w64 from Debian as root when
# they are missing (internal/testenv/wine/prefix.sh).
#
#   bash bench/mux/wine.sh [--runs 100] [--slow-runs 30]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
source "$top/internal/testenv/wine/prefix.sh"
find_wine
[ -n "$wine" ] || { echo "wine.sh: wine64 is not installed (Debian: apt-get install wine64 gcc-mingw-w64-x86-64-win32)" >&2; exit 2; }
work=$(mktemp -d)
trap 'wineserver_kill; rm -rf "$work"' EXIT
make_prefix "$work" >&2
echo "wine.sh: building mcp, the no-op program and the contacts server for linux/amd64 and windows/amd64" >&2
release=(env CGO_ENABLED=0 go build -trimpath -ldflags='-s -w')
# The Windows side's files are on the prefix's drive C:, whose
# directories are private as a profile's are; Wine's Z: drive is / with
# its unix modes (/tmp would read as writable by everyone).
win="$WINEPREFIX/drive_c/muxbench"
for os in linux windows; do
	ext="" dir="$work/linux"
	[ "$os" = linux ] || { ext=.exe; dir="$win/bin"; }
	(cd "$top" && GOOS=$os GOARCH=amd64 "${release[@]}" -o "$dir/mcp$ext" ./cmd/mcp)
	(cd "$top" && GOOS=$os GOARCH=amd64 "${release[@]}" -o "$dir/noop$ext" ./bench/mux/noop)
	(cd "$top" && GOOS=$os GOARCH=amd64 "${release[@]}" -o "$dir/contacts$ext" ./examples/contacts/server)
done
(cd "$top" && go build -o "$work/muxbench" ./bench/mux)
"$work/muxbench" --only windows --wine "$wine" \
	--mcp "$work/linux/mcp" --noop "$work/linux/noop" --server "$work/linux/contacts" \
	--win-mcp "$win/bin/mcp.exe" --win-noop "$win/bin/noop.exe" --win-server "$win/bin/contacts.exe" "$@"
