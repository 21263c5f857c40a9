package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// CheckDir says why dir is no place for the user's own files, as a
// predicate ("is under /x, which is writable by group or others (chmod
// go-w fixes that)"), or "" when it is: dir and every directory above
// it, as written and where symlinks lead, are the user's or root's and
// writable by nobody else unless sticky. Whoever could write one of them
// could rename what the user makes there and put their own in its place.
func CheckDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "cannot be inspected (" + err.Error() + ")"
	}
	return unsafeDirs(abs)
}

// unsafeDirs checks dir, the directory a file is in, and every directory
// above it, as written and where symlinks lead.
func unsafeDirs(dir string) string {
	where := func(d string) string {
		if d == dir {
			return "is in " + d
		}
		return "is under " + d
	}
	seen := map[string]bool{}
	walk := func(start string, lexical bool) string {
		for d := start; !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if lexical {
				if li, err := os.Lstat(d); err == nil && li.Mode()&fs.ModeSymlink != 0 {
					if why := notOwnersOrRoots(inspectPath(li, d, false)); why != "" {
						return where(d) + ", a symlink " + why
					}
				}
			}
			fi, err := os.Stat(d)
			if err != nil {
				return where(d) + ", which cannot be inspected (" + describe(err) + ")"
			}
			if !fi.IsDir() {
				return where(d) + ", which is not a directory"
			}
			in := inspectPath(fi, d, true)
			if why := notOwnersOrRoots(in); why != "" {
				return where(d) + ", which is " + why
			}
			if who := dirWritableBy(in, d); who != "" {
				return where(d) + ", which is writable by " + who
			}
		}
		return ""
	}
	if why := walk(dir, true); why != "" {
		return why
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		return walk(real, false)
	}
	return ""
}
