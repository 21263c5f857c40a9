#!/usr/bin/env bash
# Runs the Windows tests of the packages named (./internal/privdir ...) as
# windows/amd64 binaries under Wine, in a Wine prefix of its own that is
# removed after. As root with apt-get it installs Wine and mingw-w64 from
# Debian when they are missing; without Wine otherwise it says so and runs
# nothing.
#
# Debian 12's Wine 8 lacks two things Go's Windows binaries use: ProcessPrng
# (the runtime stops at start without it: bcryptprimitives.c stands in), and
# AF_UNIX sockets (error 10047), so the multiplexer's socket cannot be tested
# here. Wine makes a file's access list from its unix mode and ignores one
# that is set, so the tests run with a umask of 077, as a user's private
# profile directory would be on Windows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
find_wine() {
	wine=$(command -v wine64 || true)
	[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
}
find_wine
# As root on Debian (as in CI) the packages are installed, as make test
# installs the npm servers.
if [ -z "$wine" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "wine: installing Debian's wine64 and gcc-mingw-w64-x86-64-win32"
	export DEBIAN_FRONTEND=noninteractive
	pkgs="wine64 gcc-mingw-w64-x86-64-win32"
	apt-get install -y -q $pkgs >/dev/null ||
		{ apt-get update -q >/dev/null && apt-get install -y -q $pkgs >/dev/null; }
	find_wine
fi
if [ -z "$wine" ]; then
	echo "wine: wine64 is not installed, so the Windows tests did not run (Debian: apt-get install wine64 gcc-mingw-w64-x86-64-win32)"
	exit 0
fi
work=$(mktemp -d)
trap 'wineserver_kill; rm -rf "$work"' EXIT
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wineserver_kill() { WINEPREFIX="$WINEPREFIX" wineserver -k 2>/dev/null || true; }
x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bcryptprimitives.dll" \
	"$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32
umask 077
"$wine" wineboot --init >/dev/null 2>&1
cp "$work/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
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
