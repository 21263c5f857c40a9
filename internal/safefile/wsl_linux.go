package safefile

import (
	"os"
	"sync"
)

// windowsDrives are the Windows drives WSL mounts without metadata, read
// from /proc/self/mountinfo once; none outside WSL.
var windowsDrives = sync.OnceValue(func() []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	return drvfsMounts(data)
})
