//go:build unix

package filelock

import (
	"os"
	"syscall"
)

// Lock takes the exclusive flock(2) of path, created 0600 when missing,
// waiting for whoever holds it. The returned func releases it. The lock is
// the open file's, so two Locks in one process exclude each other too. A
// symlink at path is refused, not followed.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
