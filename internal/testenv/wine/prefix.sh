# Sourced by run.sh (the Windows tests) and bench/mux/wine.sh (the
# Windows benchmark): finds Wine, installs it from Debian as root when it
# is missing, and makes a Wine prefix Go's Windows binaries start in.
#
# Debian 12's Wine 8 lacks ProcessPrng, which Go's runtime calls at start
# on Windows: bcryptprimitives.c, built with mingw-w64, stands in. Wine
# makes a file's access list from its unix mode and ignores one that is
# set, so everything runs with a umask of 077, as a user's private
# profile directory would be on Windows.

wine_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# find_wine sets wine to the Wine loader, installing Wine as root on
# Debian (as in CI) when it is missing; it stays empty without Wine.
find_wine() {
	wine=$(command -v wine64 || true)
	[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
	if [ -z "$wine" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "wine: installing Debian's wine64 and gcc-mingw-w64-x86-64-win32"
		local pkgs="wine64 gcc-mingw-w64-x86-64-win32"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null ||
			{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null; }
		wine=$(command -v wine64 || true)
		[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
	fi
}

# make_prefix DIR makes a Wine prefix in DIR/prefix, exports WINEPREFIX
# for it, and starts its wineserver with no pipe of the caller's held.
make_prefix() {
	export WINEPREFIX="$1/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	x86_64-w64-mingw32-gcc -shared -O2 -o "$1/bcryptprimitives.dll" \
		"$wine_here/bcryptprimitives.c" "$wine_here/bcryptprimitives.def" -ladvapi32
	umask 077
	"$wine" wineboot --init </dev/null >/dev/null 2>&1
	cp "$1/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
}

wineserver_kill() { WINEPREFIX="$WINEPREFIX" wineserver -k 2>/dev/null || true; }
