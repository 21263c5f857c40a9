//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FuzzRead builds a small tree from the input, each pair of bytes one
// entry (a file of some size and mode, a directory, a FIFO, a symlink to
// another entry, to a device or to itself), then reads every entry. The
// reader never panics or blocks, never returns what is not a regular
// file, and never more than its limit.
func FuzzRead(f *testing.F) {
	f.Add([]byte{0, 3, 1, 0x12, 2, 0, 3, 1, 4, 0}, int64(8))
	f.Add([]byte{3, 0, 3, 1, 5, 0x77}, int64(1))
	f.Add([]byte{0, 0xff, 2, 0x22, 3, 2}, int64(0))
	f.Fuzz(func(t *testing.T, spec []byte, limit int64) {
		if len(spec) > 32 {
			spec = spec[:32]
		}
		if limit > 1<<16 {
			limit = 1 << 16
		}
		dir := t.TempDir()
		names := make([]string, 0, len(spec)/2)
		for i := 0; i+1 < len(spec); i += 2 {
			name := filepath.Join(dir, string(rune('a'+i/2)))
			names = append(names, name)
			make1(t, dir, name, spec[i], spec[i+1], len(spec)/2)
		}
		for _, name := range names {
			file, err := Options{Limit: limit}.Open(name)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("%s: %T %v, not an *Error", name, err, err)
				}
				continue
			}
			data, err := file.ReadAll()
			file.Close()
			max := limit
			if max <= 0 {
				max = DefaultLimit
			}
			if !file.Info.Mode().IsRegular() || int64(len(data)) > max {
				t.Fatalf("%s: read %d bytes of a %v (limit %d)", name, len(data), file.Info.Mode(), max)
			}
			if li, err := os.Lstat(file.Path); err != nil || !li.Mode().IsRegular() {
				t.Fatalf("%s led to %s, not a regular file: %v", name, file.Path, err)
			}
		}
	})
}

// make1 makes one entry of FuzzRead's tree: kind picks what, arg its
// mode, size or target among the n entries.
func make1(t *testing.T, dir, name string, kind, arg byte, n int) {
	target := filepath.Join(dir, string(rune('a'+int(arg)%max(n, 1))))
	var err error
	switch kind % 6 {
	case 0:
		err = os.WriteFile(name, make([]byte, int(arg)), 0o600)
		if err == nil {
			err = os.Chmod(name, os.FileMode(arg)&0o777|0o400)
		}
	case 1:
		err = os.Mkdir(name, os.FileMode(arg)&0o777|0o700)
	case 2:
		err = syscall.Mkfifo(name, 0o600)
	case 3:
		err = os.Symlink(target, name)
	case 4:
		err = os.Symlink([]string{"/dev/null", "/dev/zero", "/dev/tty"}[int(arg)%3], name)
	case 5:
		err = os.Symlink(filepath.Base(name), name)
	}
	if err != nil {
		t.Fatal(err)
	}
}
