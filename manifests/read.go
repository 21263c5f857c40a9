package manifests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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

// readFile reads the regular file at path (symlinks are followed) within the
// size limit. display is how the file is named in errors. A missing file
// gives an error that matches fs.ErrNotExist.
func readFile(path, display string) ([]byte, error) {
	return readFileLimit(path, display, fileLimit)
}

// readFileLimit is readFile with another size limit.
func readFileLimit(path, display string, limit sizeLimit) ([]byte, error) {
	// Opening a FIFO for reading would block until a writer comes; the
	// platform open adds O_NONBLOCK where it exists, then the opened file's
	// own type decides.
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, &Error{Pos: Pos{File: display}, Msg: "cannot read: " + describeOpenErr(err), Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Pos: Pos{File: display}, Msg: "cannot read: " + describeOpenErr(err), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{Pos: Pos{File: display},
			Msg:  fmt.Sprintf("is not a regular file (%s)", fileKind(fi.Mode())),
			Hint: "configuration files must be regular files or symlinks to them"}
	}
	if fi.Size() > limit.bytes {
		return nil, limit.err(display)
	}
	return readAllLimit(f, display, limit)
}

func describeOpenErr(err error) string {
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

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// exists reports whether path names something (following symlinks).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
