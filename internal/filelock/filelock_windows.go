package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes the exclusive LockFileEx lock of path, created when missing,
// waiting for whoever holds it. The returned func releases it. The lock is
// the open handle's, so two Locks in one process exclude each other too. A
// symlink (or other reparse point) at path is refused, not followed.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|windows.O_FILE_FLAG_OPEN_REPARSE_POINT, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: path, Err: errors.New("is a symlink or reparse point, which is not followed")}
	}
	// The handle is synchronous, so LockFileEx without
	// LOCKFILE_FAIL_IMMEDIATELY waits until the lock is free.
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, allBytes, allBytes, ol); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, allBytes, allBytes, new(windows.Overlapped))
		f.Close()
	}, nil
}

// allBytes, as both halves of a length, is the largest range a lock covers.
const allBytes = ^uint32(0)
