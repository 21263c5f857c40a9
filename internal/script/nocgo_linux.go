//go:build !cgo

package script

// cgoThreads: the runtime makes its threads itself, their stacks on its
// heap.
const cgoThreads = false
