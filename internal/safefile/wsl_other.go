//go:build !linux

package safefile

// windowsDrives: WSL is Linux.
func windowsDrives() []string { return nil }
