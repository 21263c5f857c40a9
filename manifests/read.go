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

// readAll reads r up to the size limit; file names the input in errors.
func readAll(r io.Reader, file string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, &Error{Pos: Pos{File: file}, Msg: "cannot read: " + err.Error(), Err: err}
	}
	if len(data) > maxFileSize {
		return nil, &Error{Pos: Pos{File: file},
			Msg:  "file is larger than the " + fileSizeLabel + " limit for configuration files",
			Hint: "configuration files must be at most " + fileSizeLabel}
	}
	return bytes.TrimPrefix(data, utf8BOM), nil
}

// readFile reads the regular file at path (symlinks are followed) within the
// size limit. display is how the file is named in errors. A missing file
// gives an error that matches fs.ErrNotExist.
func readFile(path, display string) ([]byte, error) {
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
	if fi.Size() > maxFileSize {
		return nil, &Error{Pos: Pos{File: display},
			Msg:  "file is larger than the " + fileSizeLabel + " limit for configuration files",
			Hint: "configuration files must be at most " + fileSizeLabel}
	}
	return readAll(f, display)
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
