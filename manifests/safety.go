package manifests

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpsh/mcp/internal/exit"
)

// A file another user owns or can change is not configuration and is not
// trusted, whatever its name: that is ssh's StrictModes, with sticky
// directories allowed. A file is the user's to trust when
//
//   - it is owned by the user or by root, and writable by neither group
//     nor others;
//   - when its path is a symlink, the link is the user's or root's;
//   - every directory above it, up to /, both as written and where
//     symlinks lead, is owned by the user or root and writable by neither
//     group nor others, unless it is sticky (as /tmp is): there others may
//     add names of their own but not rename or remove the user's, so
//     nobody else could have swapped the file or a directory on its way.
//
// Recipe discovery passes over a package.json that fails the rule, the
// editor configurations of the working directory that fail it are
// ignored, and project trust refuses every file that fails it. Without
// Unix owners and permission bits (Windows) every file passes.

// UnsafeFile is a file that is not the user's to trust, and why.
type UnsafeFile struct {
	// Path is relative to the project directory, with slashes; absolute
	// for a file outside it.
	Path string `json:"path"`
	// Problem says why, as a predicate of the file: "is owned by ...".
	Problem string `json:"problem"`
}

func (u UnsafeFile) String() string { return u.Path + " " + u.Problem }

// UnsafeError says a directory cannot be trusted: one of its files is not
// the user's to trust.
type UnsafeError struct {
	Dir  string
	File UnsafeFile
}

func (e *UnsafeError) ExitCode() int { return exit.Config }

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("cannot trust %s: %s", printable(e.Dir), printable(e.File.String()))
}

// unsafePath says why the file at path is not the user's to trust, as a
// predicate ("is owned by ..."), or "" when it is.
func unsafePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "cannot be inspected (" + err.Error() + ")"
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "cannot be inspected (" + describeOpenErr(err) + ")"
	}
	if why := notOwnersOrRoots(fi); why != "" {
		return "is " + why
	}
	if othersCanWrite(fi) {
		return "is writable by group or others (chmod go-w fixes that)"
	}
	if li, err := os.Lstat(abs); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if why := notOwnersOrRoots(li); why != "" {
			return "is a symlink " + why
		}
	}
	return unsafeDirs(filepath.Dir(abs))
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
					if why := notOwnersOrRoots(li); why != "" {
						return where(d) + ", a symlink " + why
					}
				}
			}
			fi, err := os.Stat(d)
			if err != nil {
				return where(d) + ", which cannot be inspected (" + describeOpenErr(err) + ")"
			}
			if why := notOwnersOrRoots(fi); why != "" {
				return where(d) + ", which is " + why
			}
			if othersCanWrite(fi) && fi.Mode()&fs.ModeSticky == 0 {
				return where(d) + ", which is writable by group or others (chmod go-w fixes that)"
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

// UnsafeDir says why dir is no place for the user's own files, as a
// predicate ("is under /x, which is writable by group or others"), or ""
// when it is: dir and every directory above it, as written and where
// symlinks lead, are the user's or root's and writable by nobody else
// unless sticky. Whoever could write one of them could rename what the
// user makes there and put their own in its place.
func UnsafeDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "cannot be inspected (" + err.Error() + ")"
	}
	return unsafeDirs(abs)
}
