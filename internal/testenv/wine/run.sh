#!/usr/bin/env bash
# Runs the Windows tests of the packages named (./internal/privdir ...) as
# windows/amd64 binaries under Wine, in a Wine prefix of its own that is
# removed after. As root with apt-get it installs Wine and mingw-w64 from
# Debian when they are missing; without Wine otherwise it says so and runs
# nothing.
#
# The Wine prefix is prefix.sh's (what Debian's Wine lacks, and why a
# umask of 077).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/prefix.sh"
find_wine
if [ -z "$wine" ]; then
	echo "wine: wine64 is not installed, so the Windows tests did not run (Debian: apt-get install wine64 gcc-mingw-w64-x86-64-win32)"
	exit 0
fi
work=$(mktemp -d)
trap 'wineserver_kill; rm -rf "$work"' EXIT
make_prefix "$work"
status=0
# A package may name the tests to run after a colon (./mux:Windows), where
# its other tests need what Wine lacks.
for arg in "$@"; do
	pkg=${arg%%:*} run=.
	[ "$pkg" = "$arg" ] || run=${arg#*:}
	bin="$work/$(basename "$pkg").test.exe"
	GOOS=windows GOARCH=amd64 go test -c -o "$bin" "$pkg"
	echo "wine: $arg"
	# In the package's directory, as go test runs a test (testdata).
	(cd "$pkg" && "$wine" "$bin" -test.count=1 -test.v -test.run="$run") || status=1
done
exit $status
