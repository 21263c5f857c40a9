package privdir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/filelock"
	"github.com/mcpsh/mcp/internal/safefile"
)

// Runtime is the user's private directory for mcp's runtime files: the
// multiplexers' sockets and logs, and saved outputs. It is
// $XDG_RUNTIME_DIR/mcp when XDG_RUNTIME_DIR is an absolute path; else a
// directory of a random name in the temporary directory, never one at a
// name another user could take first. That one is made the first time
// (0700) and its path written down in the user's cache directory; after,
// it is used as long as it is still this user's alone. One that is gone
// (a cleaned /tmp) is made again; one that is there but not fit (a
// symlink, another user's, open to others) is left alone, and a new one is
// made and remembered in its place, which the hook OnWarning set hears of
// once.
func Runtime() (string, error) {
	if xdg := xdgRuntime(); xdg != "" {
		dir := filepath.Join(xdg, "mcp")
		if err := Make(dir); err != nil {
			return "", err
		}
		return dir, nil
	}
	records, err := RecordDir()
	if err != nil {
		return "", err
	}
	parent := os.TempDir()
	return remembered(filepath.Join(records, recordName(parent)), parent, "runtime directory")
}

// Short stands in for the runtime directory dir where its path is too
// long (a socket's path must be short): a directory of a random name in
// /tmp, remembered in dir itself (ShortRecord) as Runtime's is in the
// cache directory.
func Short(dir string) (string, error) {
	return remembered(filepath.Join(dir, ShortRecord), "/tmp", "socket directory")
}

// ShortRecord is the file in the runtime directory that names the
// directory Short made for it.
const ShortRecord = "short-dir"

// Parent is the directory Runtime makes its directory in:
// XDG_RUNTIME_DIR, or the temporary directory.
func Parent() string {
	if xdg := xdgRuntime(); xdg != "" {
		return xdg
	}
	return os.TempDir()
}

func xdgRuntime() string {
	if xdg := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(xdg) {
		return xdg
	}
	return ""
}

// remembered is the directory record names, checked, or a new one in
// parent, and says so to the hook when it replaces one not fit.
func remembered(record, parent, what string) (string, error) {
	dir, warning, err := remember(record, parent, what)
	if warning != "" {
		if f := warnHook.Load(); f != nil {
			(*f)(warning)
		}
	}
	return dir, err
}

var warnHook atomic.Pointer[func(string)]

// OnWarning sets what hears the one-line warning Runtime or Short gives
// when it replaces a remembered directory that is no longer fit; nil
// hears none.
func OnWarning(f func(string)) {
	if f == nil {
		warnHook.Store(nil)
		return
	}
	warnHook.Store(&f)
}

// RecordDir is where the paths of remembered runtime directories are
// written: mcp/runtime in the user's cache directory, made private.
func RecordDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", &NoRecordError{Err: err}
	}
	dir := filepath.Join(cache, "mcp", "runtime")
	if err := Make(dir); err != nil {
		return "", &NoRecordError{Err: err}
	}
	return dir, nil
}

// NoRecordError says there is no private cache directory to remember the
// runtime directory in.
type NoRecordError struct{ Err error }

func (e *NoRecordError) Error() string {
	return "no private cache directory to remember the runtime directory in (" + e.Err.Error() + "); set XDG_RUNTIME_DIR, or HOME to your own home"
}

func (e *NoRecordError) Unwrap() error { return e.Err }

// remember reads the directory in parent that record names and checks it,
// or makes a new one and writes it down; warning says why one that was
// there was not fit. The lock makes two first uses at once agree on one
// directory: the second finds what the first wrote down.
func remember(record, parent, what string) (dir, warning string, err error) {
	if !filepath.IsAbs(parent) {
		return "", "", fmt.Errorf("no private directory may be made in %.60q: it is not an absolute path", parent)
	}
	parent = filepath.Clean(parent)
	if dir, err := recall(record, parent); err == nil {
		return dir, "", nil
	}
	unlock, err := filelock.Lock(record + ".lock")
	if err != nil {
		return "", "", err
	}
	defer unlock()
	old, why := recall(record, parent)
	if why == nil {
		return old, "", nil
	}
	if dir, err = fresh(parent); err != nil {
		return "", "", err
	}
	if err := atomicfile.Write(record, []byte(dir+"\n")); err != nil {
		_ = os.Remove(dir)
		return "", "", err
	}
	if unfit(why) {
		warning = fmt.Sprintf("using a new %s, %s: %v", what, dir, why)
	}
	return dir, warning, nil
}

// recordName names the record of the runtime directory in parent.
func recordName(parent string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(parent)))
	return hex.EncodeToString(sum[:8])
}

// errNoRecord says a record is missing or names no directory of parent.
var errNoRecord = fmt.Errorf("no directory remembered: %w", fs.ErrNotExist)

// recall reads the directory record remembers and checks it.
func recall(record, parent string) (string, error) {
	// The record is this user's own file, a line of a path.
	data, err := safefile.Options{NoSymlink: true, Own: true, Limit: 4096}.Read(record)
	if err != nil {
		return "", err
	}
	dir := strings.TrimSuffix(string(data), "\n")
	if !filepath.IsAbs(dir) || filepath.Dir(dir) != parent {
		return "", errNoRecord
	}
	if err := check(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// fresh makes a new private directory of a random name in parent.
func fresh(parent string) (string, error) {
	prefix := "mcp-"
	if uid := os.Getuid(); uid >= 0 {
		prefix += strconv.Itoa(uid) + "-"
	}
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return "", err
	}
	if err := check(dir); err != nil {
		_ = os.Remove(dir)
		return "", err
	}
	return dir, nil
}
