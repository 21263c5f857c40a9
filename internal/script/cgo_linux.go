//go:build cgo

package script

// cgoThreads: threads are made by the C library, each with a stack of
// its own reserved in the address space.
const cgoThreads = true
