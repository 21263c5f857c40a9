//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package script

import (
	"runtime"
	"syscall"
)

// residentMeter reads this process's peak resident memory: getrusage's
// maxrss.
type residentMeter struct{ ru syscall.Rusage }

// peak is the high-water mark of this process's resident memory in bytes,
// or -1.
func (m *residentMeter) peak() int64 {
	if syscall.Getrusage(syscall.RUSAGE_SELF, &m.ru) != nil {
		return -1
	}
	return maxrssBytes(&m.ru)
}

// maxrssBytes is ru.Maxrss in bytes: getrusage gives it in bytes on macOS
// and in kilobytes on Linux and the BSDs.
func maxrssBytes(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
