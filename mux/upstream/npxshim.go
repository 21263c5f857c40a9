package upstream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// shims says npm installs a package's binaries as shims (.cmd, .ps1 and a
// sh script, none of them the package's own file), as it does on Windows.
var shims = runtime.GOOS == "windows"

// shimMark is what shimBin puts before the script it found, for
// DirectCommand to run it under node.
const shimMark = "node-script:"

// shimBin is, where npm installs shims, the package's own script for its
// binary bin, named in package.json's bin (data), inside the package's
// directory pkgDir: marked for binScript, or "" when there is none. The
// shim npm made for it (nm/.bin/bin.cmd) must be there, as it is when
// npm installed the package.
func shimBin(nm, pkgDir string, data []byte, bin string) (string, error) {
	if _, err := os.Lstat(filepath.Join(nm, ".bin", bin+".cmd")); err != nil {
		return "", nil
	}
	script, ok := binTarget(data, bin)
	if !ok {
		return "", nil
	}
	path := filepath.Join(pkgDir, filepath.FromSlash(script))
	if err := checkPaths(filepath.Dir(path), path); err != nil {
		return "", unsafeOnly(err)
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", nil
	}
	return shimMark + path, nil
}

// binScript is the script a marked binary names, or "".
func binScript(bin string) string {
	script, _ := strings.CutPrefix(bin, shimMark)
	if script == bin {
		return ""
	}
	return script
}

// binTarget is the file package.json's bin (data) names for the binary
// bin: bin itself when it is one path, or bin's entry; a path that leaves
// the package is none.
func binTarget(data []byte, bin string) (string, bool) {
	var pkg struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return "", false
	}
	var one string
	if json.Unmarshal(pkg.Bin, &one) != nil || one == "" {
		var many map[string]string
		if json.Unmarshal(pkg.Bin, &many) != nil {
			return "", false
		}
		one = many[bin]
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(one)))
	if one == "" || !filepath.IsLocal(filepath.FromSlash(clean)) {
		return "", false
	}
	return clean, true
}
