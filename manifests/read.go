package manifests

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/mcpsh/mcp/internal/safefile"
)

// Bounds on every configuration file. A file over either is an error, never
// a partial read.
const (
	maxFileSize   = 1 << 20 // bytes
	maxServers    = 1000    // server entries in one file
	maxDepth      = 200     // nesting of JSON/YAML values
	maxYAMLNodes  = 200_000 // YAML nodes after alias expansion
	fileSizeLabel = "1 MiB"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// sizeLimit bounds what is read of one file; label says it in messages,
// and hint, when set, what to do about a file over it.
type sizeLimit struct {
	bytes       int64
	label, hint string
}

var fileLimit = sizeLimit{bytes: maxFileSize, label: fileSizeLabel}

func (l sizeLimit) err(file string) *Error {
	if l.hint != "" {
		return &Error{Pos: Pos{File: file}, Msg: "file is larger than the " + l.label + " limit for this file", Hint: l.hint}
	}
	return &Error{Pos: Pos{File: file},
		Msg:  "file is larger than the " + l.label + " limit for configuration files",
		Hint: "configuration files must be at most " + l.label}
}

// readAll reads r up to the size limit; file names the input in errors.
func readAll(r io.Reader, file string) ([]byte, error) {
	return readAllLimit(r, file, fileLimit)
}

func readAllLimit(r io.Reader, file string, limit sizeLimit) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit.bytes+1))
	if err != nil {
		return nil, &Error{Pos: Pos{File: file}, Msg: "cannot read: " + err.Error(), Err: err}
	}
	if int64(len(data)) > limit.bytes {
		return nil, limit.err(file)
	}
	return bytes.TrimPrefix(data, utf8BOM), nil
}

// readFile reads the file at path within the size limit when it passes
// the ownership rule (see safety.go), which decides before anything is
// opened; a symlink of the user's or root's is followed. display is how
// the file is named in errors. A missing file gives an error that matches
// fs.ErrNotExist; one that fails the rule, an error that matches a
// *safefile.Error.
func readFile(path, display string) ([]byte, error) {
	return readFileLimit(path, display, fileLimit)
}

// readFileLimit is readFile with another size limit.
func readFileLimit(path, display string, limit sizeLimit) ([]byte, error) {
	data, err := safefile.Read(path, limit.bytes)
	var se *safefile.Error
	switch {
	case err == nil:
		return bytes.TrimPrefix(data, utf8BOM), nil
	case !errors.As(err, &se):
		return nil, &Error{Pos: Pos{File: display}, Msg: "cannot read: " + safefile.Describe(err), Err: err}
	case se.Kind == safefile.TooLarge:
		return nil, limit.err(display)
	case se.Kind == safefile.NotRegular:
		return nil, &Error{Pos: Pos{File: display}, Msg: se.Problem, Err: err,
			Hint: "configuration files must be regular files or symlinks to them"}
	case se.Kind == safefile.Unsafe:
		return nil, &Error{Pos: Pos{File: display}, Msg: se.Problem, Err: err,
			Hint: "mcp reads no file that another user owns or could have changed or swapped"}
	}
	return nil, &Error{Pos: Pos{File: display}, Msg: "cannot read: " + safefile.Describe(se.Err), Err: err}
}

// refusedBy is the *safefile.Error of a file the ownership rule refused
// (another user's, or not a regular file), or nil.
func refusedBy(err error) *safefile.Error {
	var se *safefile.Error
	if errors.As(err, &se) && (se.Kind == safefile.Unsafe || se.Kind == safefile.NotRegular) {
		return se
	}
	return nil
}

// exists reports whether path names something (following symlinks).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
