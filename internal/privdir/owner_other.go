//go:build !unix

package privdir

import "os"

// Owned trusts the system's own per-user temporary directory where
// there are no unix owners.
func Owned(os.FileInfo) bool { return true }

// openToOthers trusts the same: there are no unix modes to read (every
// directory reads as 0777).
func openToOthers(os.FileInfo) bool { return false }
