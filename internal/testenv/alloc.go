package testenv

import "runtime"

// Allocated is how many bytes f allocates, the least of three runs: an
// upper bound on how much memory it holds at once.
func Allocated(f func()) uint64 {
	least := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}
