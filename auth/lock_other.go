//go:build !unix

package auth

// lockFile is a no-op where flock is missing: refreshes are then only
// serialized within one process.
func lockFile(string) (func(), error) { return func() {}, nil }
