//go:build !unix

package filelock

// Lock is a no-op where flock is missing: writers are then not serialized.
func Lock(string) (unlock func(), err error) { return func() {}, nil }
