// Package safefile is the one way mcp reads a file that another user
// might have touched: every file it takes as configuration or state.
//
// A file is read only when it is the user's to trust, and that is decided
// before it is opened: that is ssh's StrictModes, with sticky directories
// allowed. A file passes when
//
//   - it is a regular file (not a FIFO, a device, a socket or a
//     directory), which is what is then opened, without following a
//     symlink and without blocking, and checked again on the open
//     descriptor;
//   - it is owned by the user or by root, and writable by neither group
//     nor others;
//   - when its path is a symlink, the link is the user's or root's, in a
//     directory that passes, and where it leads passes the whole rule
//     again (unless the reader refuses symlinks);
//   - every directory above it, up to /, both as written and where
//     symlinks lead, is owned by the user or root and writable by neither
//     group nor others, unless it is sticky (as /tmp is): there others may
//     add names of their own but not rename or remove the user's, so
//     nobody else could have swapped the file or a directory on its way;
//   - it is no larger than the reader's limit.
//
// On Windows, where every file reads as mode 0666, the owner and mode part
// comes from the security descriptor (internal/winacl), read from the
// handle of what was opened: the owner must be the user (or the owner the
// user's token gives what it makes), or for "root" the system, the
// Administrators group or TrustedInstaller; and the access list may give
// no one else a right to change the file (for a directory on the way: to
// remove or rename what it holds, rename it, or change its list; adding
// names of one's own is allowed, as in a sticky directory), nor, for a
// private file, any right beyond reading its attributes. Elsewhere
// without Unix owners and permission bits every file passes that part;
// it is still a regular file read within its limit.
package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpsh/mcp/internal/exit"
)

// Kind says which part of the rule a file failed.
type Kind int

const (
	// Unreadable: the file or a directory above it could not be inspected
	// or read (a missing file is one: the error matches fs.ErrNotExist).
	Unreadable Kind = iota
	// Unsafe: another user owns or could have changed the file, a symlink
	// to it, or a directory above either.
	Unsafe
	// NotRegular: the file is a FIFO, a device, a socket or a directory,
	// or a symlink where the reader takes none.
	NotRegular
	// TooLarge: the file is larger than the reader's limit.
	TooLarge
)

// Error says why a file was not read. Its Problem is a predicate of the
// file ("is owned by NAME (uid N), not by you or root"), so that a reader
// can say "PATH: passed over: it PROBLEM" or "PATH PROBLEM".
type Error struct {
	Path    string
	Problem string
	Kind    Kind
	// Limit is the reader's limit, for a TooLarge error.
	Limit int64
	// Err is the system's error, for an Unreadable one.
	Err error
}

func (e *Error) Error() string { return e.Path + " " + e.Problem }

func (e *Error) Unwrap() error { return e.Err }

// ExitCode: a file that cannot be taken as configuration is a problem of
// the configuration.
func (e *Error) ExitCode() int { return exit.Config }

// Options is how one reader reads its files.
type Options struct {
	// Limit is the most bytes a file may hold; a larger one is refused,
	// never read in part. Zero or less: DefaultLimit.
	Limit int64
	// NoSymlink refuses a symlink at the path itself rather than
	// following it, for files mcp writes itself and never links.
	NoSymlink bool
	// Own requires the file to be the user's own, not root's (unless the
	// user is root): for files mcp writes itself.
	Own bool
	// Private requires the file to give group and others no access at
	// all (mode 0600 or less): for state that holds secrets.
	Private bool
}

// DefaultLimit is the limit of Options without one: 1 MiB.
const DefaultLimit = 1 << 20

// maxLinks bounds the symlinks followed from one path, as the kernel does.
const maxLinks = 40

// Read reads the file at path when it passes the rule, within limit bytes.
func Read(path string, limit int64) ([]byte, error) {
	return Options{Limit: limit}.Read(path)
}

// Read reads the file at path when it passes the rule o makes.
func (o Options) Read(path string) ([]byte, error) {
	f, err := o.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll()
}

// File is an open file that passed the rule.
type File struct {
	*os.File
	// Path is the file that was opened: where the path given led.
	Path  string
	Info  fs.FileInfo
	limit int64
	given string
}

// ReadAll reads the whole file within the limit it was opened with.
func (f *File) ReadAll() ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f.File, f.limit+1))
	if err != nil {
		return nil, &Error{Path: f.given, Problem: "cannot be read (" + describe(err) + ")", Err: err}
	}
	if int64(len(data)) > f.limit {
		return nil, tooLarge(f.given, f.limit)
	}
	return data, nil
}

// Open opens the file at path for reading when it passes the rule o
// makes; the caller closes it. Nothing is opened that the rule refuses.
// A file replaced between its inspection and its opening (as an atomic
// write renames a new one over it) is inspected again.
func (o Options) Open(path string) (*File, error) {
	for try := 0; ; try++ {
		f, err := o.open(path)
		if !errors.Is(err, errChanged) || try == 5 {
			return f, err
		}
	}
}

var errChanged = errors.New("it changed while it was opened")

func (o Options) open(path string) (*File, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{Path: path, Problem: "cannot be inspected (" + err.Error() + ")", Err: err}
	}
	fail := func(k Kind, problem string, err error) (*File, error) {
		return nil, &Error{Path: path, Problem: problem, Kind: k, Err: err}
	}
	for links := 0; ; links++ {
		li, err := os.Lstat(abs)
		if err != nil {
			return fail(Unreadable, "cannot be inspected ("+describe(err)+")", err)
		}
		if li.Mode()&fs.ModeSymlink == 0 {
			break
		}
		switch {
		case o.NoSymlink:
			return fail(NotRegular, "is a symlink", nil)
		case links == maxLinks:
			return fail(NotRegular, "is a chain of more than "+strconv.Itoa(maxLinks)+" symlinks", nil)
		}
		if why := notOwnersOrRoots(inspectPath(li, abs, false)); why != "" {
			return fail(Unsafe, "is a symlink "+why, nil)
		}
		if why := unsafeDirs(filepath.Dir(abs)); why != "" {
			return fail(Unsafe, why, nil)
		}
		target, err := os.Readlink(abs)
		if err != nil {
			return fail(Unreadable, "cannot be inspected ("+describe(err)+")", err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		abs = filepath.Clean(target)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return fail(Unreadable, "cannot be inspected ("+describe(err)+")", err)
	}
	if why, k := o.fileProblem(fi, abs, nil); why != "" {
		return fail(k, why, nil)
	}
	if why := unsafeDirs(filepath.Dir(abs)); why != "" {
		return fail(Unsafe, why, nil)
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	f, err := openNoFollow(abs)
	if err != nil {
		return fail(Unreadable, "cannot be read ("+describe(err)+")", err)
	}
	// What was opened must be what was inspected, and pass on its own.
	opened, err := f.Stat()
	if err == nil && !os.SameFile(fi, opened) {
		err = errChanged
	}
	if err != nil {
		f.Close()
		return fail(Unreadable, "cannot be read ("+describe(err)+")", err)
	}
	if why, k := o.fileProblem(opened, abs, f); why != "" {
		f.Close()
		return fail(k, why, nil)
	}
	return &File{File: f, Path: abs, Info: opened, limit: limit, given: path}, nil
}

// fileProblem says why fi, not a symlink, fails the rule for the file
// itself at path, or "": from f, once it is open.
func (o Options) fileProblem(fi fs.FileInfo, path string, f *os.File) (string, Kind) {
	if !fi.Mode().IsRegular() {
		return "is not a regular file (" + FileType(fi.Mode()) + ")", NotRegular
	}
	in := inspectPath(fi, path, false)
	if f != nil {
		in = inspectFile(fi, f)
	}
	if o.Own {
		if why := notOwn(in); why != "" {
			return "is " + why, Unsafe
		}
	} else if why := notOwnersOrRoots(in); why != "" {
		return "is " + why, Unsafe
	}
	if who := writableBy(in, path); who != "" {
		return "is writable by " + who, Unsafe
	}
	if o.Private {
		if who := readableBy(in, path); who != "" {
			return "is readable by " + who, Unsafe
		}
	}
	return "", 0
}

func tooLarge(path string, limit int64) *Error {
	return &Error{Path: path, Problem: "is larger than " + Size(limit), Kind: TooLarge, Limit: limit}
}

// Size says a number of bytes as a person would: "1 MiB", "64 KiB",
// "300 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// FileType names the type of a file that is not regular: "a named pipe".
func FileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "mode " + m.String()
}

// describe says a system error in words, without the path it names.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "file does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// Describe is describe for readers that name their own errors.
func Describe(err error) string { return describe(err) }
