//go:build !unix

package privdir

import "os"

// ownedByUs trusts the system's own per-user temporary directory where
// there are no unix owners.
func ownedByUs(os.FileInfo) bool { return true }
