//go:build !unix && !windows

package privdir

import "os"

// Owned trusts every file where there are no unix owners.
func Owned(os.FileInfo) bool { return true }

// notPrivate trusts every directory there too.
func notPrivate(string, os.FileInfo) string { return "" }

func restrict(string) error { return nil }
